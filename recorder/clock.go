package recorder

import (
	"math"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/timeline"
)

// Monotonic reads the host's CLOCK_MONOTONIC in nanoseconds: the clock
// Chromium's metadata.monotonicTimestamp reads too.
func Monotonic() int64 { return readClock(unix.CLOCK_MONOTONIC) }

// wallNanos reads the host's CLOCK_REALTIME in nanoseconds since the epoch:
// the clock Chromium's wall-clock timestamps read.
func wallNanos() int64 { return readClock(unix.CLOCK_REALTIME) }

func readClock(id int32) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return time.Now().UnixNano() // unreachable on Linux
	}
	return ts.Nano()
}

// WallOffset relates the host's wall clock to its monotonic clock:
// monotonic = wall + Offset, to within ±Error nanoseconds.
type WallOffset struct {
	Offset int64
	Error  int64
}

// wallSamples is how many readings MeasureWallOffset takes by default.
const wallSamples = 16

// MeasureWallOffset reads the wall clock between two monotonic readings,
// samples times, and keeps the tightest bracket: the wall reading was taken
// somewhere in [m1, m2], so its midpoint is the estimate and half the
// bracket the error. A bracket can be stretched by preemption, never
// shrunk, so the tightest one is the best.
func MeasureWallOffset(samples int) WallOffset {
	return measureWallOffset(samples, Monotonic, wallNanos)
}

func measureWallOffset(samples int, mono, wall func() int64) WallOffset {
	if samples < 1 {
		samples = 1
	}
	var best WallOffset
	for i := 0; i < samples; i++ {
		m1 := mono()
		w := wall()
		m2 := mono()
		half := (m2 - m1 + 1) / 2
		o := WallOffset{Offset: m1 + (m2-m1)/2 - w, Error: half}
		if i == 0 || o.Error < best.Error {
			best = o
		}
	}
	return best
}

// secondsToNanos converts seconds, as Chromium sends them (a float64 of
// seconds since the epoch or since boot), to whole nanoseconds. The whole
// seconds are split off first so that the fraction keeps its precision.
func secondsToNanos(sec float64) int64 {
	whole := math.Floor(sec)
	return int64(whole)*int64(time.Second) + int64(math.Round((sec-whole)*1e9))
}

// wallQuantum bounds the rounding of a float64 wall-clock timestamp in
// seconds since the epoch (its spacing is 0.24 µs until 2106): part of the
// error bound of the wall-offset mapping.
const wallQuantum = 500

// Clock is a take clock: host monotonic time since Origin. It also carries
// the wall-to-monotonic offset measured when it started, used to map
// wall-clock source times when Chromium sends no monotonic ones.
type Clock struct {
	// Origin is the CLOCK_MONOTONIC reading that is Time 0.
	Origin int64
	// Wall is the wall-clock time at Origin, for people reading the take.
	Wall time.Time
	// Offset is the measured wall-to-monotonic offset.
	Offset WallOffset
	// Virtual, when set, is the clock of a studio capture: Now reads it
	// instead of the host's monotonic clock.
	Virtual *VirtualTime
}

// NewClock starts a take clock now and measures the wall offset.
func NewClock() *Clock {
	off := MeasureWallOffset(wallSamples)
	origin := Monotonic()
	return &Clock{Origin: origin, Wall: time.Unix(0, origin-off.Offset), Offset: off}
}

// NewVirtualClock starts a take clock on virtual time (studio capture):
// Origin and Wall still say when the take began, for people reading it.
func NewVirtualClock() *Clock {
	c := NewClock()
	c.Virtual = NewVirtualTime()
	return c
}

// Now returns the current time on the take clock.
func (c *Clock) Now() timeline.Time {
	if c.Virtual != nil {
		return c.Virtual.Now()
	}
	return timeline.Time(Monotonic() - c.Origin)
}

// FromMonotonic maps a CLOCK_MONOTONIC reading in seconds (as Chromium sends
// it) onto the take clock.
func (c *Clock) FromMonotonic(sec float64) timeline.Time {
	return timeline.Time(secondsToNanos(sec) - c.Origin)
}

// FromWall maps a wall-clock time in seconds since the epoch onto the take
// clock through the measured offset: wall + WallToTake().
func (c *Clock) FromWall(sec float64) timeline.Time {
	return timeline.Time(secondsToNanos(sec) + c.WallToTake())
}

// WallToTake is the number of nanoseconds to add to a wall-clock time (ns
// since the epoch) to put it on the take clock.
func (c *Clock) WallToTake() int64 { return c.Offset.Offset - c.Origin }

// Info describes the clock for the timeline. For the wall-offset mapping it
// records the offset (added to a wall-clock time in ns since the epoch, it
// gives take time) and its error bound: the measurement's, plus the
// rounding of Chromium's float timestamps.
func (c *Clock) Info(m timeline.Mapping) timeline.Clock {
	if c.Virtual != nil {
		m = timeline.MappingVirtual
	}
	info := timeline.Clock{Origin: c.Origin, Wall: c.Wall, Mapping: m}
	if m == timeline.MappingWallOffset {
		info.OffsetNs = c.WallToTake()
		info.ErrorNs = c.Offset.Error + wallQuantum
	}
	return info
}
