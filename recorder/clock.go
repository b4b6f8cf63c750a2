package recorder

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/timeline"
)

// Monotonic reads the host's CLOCK_MONOTONIC in nanoseconds: the clock
// Chromium's metadata.monotonicTimestamp reads too.
func Monotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return time.Now().UnixNano() // unreachable on Linux
	}
	return ts.Nano()
}

// Clock is a take clock: host monotonic time since Origin.
type Clock struct {
	Origin int64
	Wall   time.Time
}

// NewClock starts a take clock now.
func NewClock() *Clock { return &Clock{Origin: Monotonic(), Wall: time.Now()} }

// Now returns the current time on the take clock.
func (c *Clock) Now() timeline.Time { return timeline.Time(Monotonic() - c.Origin) }

// FromMonotonic maps a CLOCK_MONOTONIC reading in seconds (as Chromium sends
// it) onto the take clock.
func (c *Clock) FromMonotonic(sec float64) timeline.Time {
	return timeline.Time(int64(sec*1e9+0.5) - c.Origin)
}

// FromWall maps a wall-clock time in seconds since the epoch onto the take
// clock, through the wall time recorded at the origin.
func (c *Clock) FromWall(sec float64) timeline.Time {
	ns := int64(sec * 1e9)
	return timeline.Time(ns - c.Wall.UnixNano())
}

// Info describes the clock for the timeline.
func (c *Clock) Info(m timeline.Mapping) timeline.Clock {
	return timeline.Clock{Origin: c.Origin, Wall: c.Wall, Mapping: m}
}
