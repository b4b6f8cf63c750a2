package timeline

import (
	"fmt"
	"time"
)

// Time is a point on the take clock: nanoseconds of the host's monotonic clock
// since the take started. It can be negative for a frame Chromium produced
// just before the take began.
type Time int64

// Duration converts t to a time.Duration since the take start.
func (t Time) Duration() time.Duration { return time.Duration(t) }

// Millis returns t in whole milliseconds.
func (t Time) Millis() int64 { return int64(t) / int64(time.Millisecond) }

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(time.Second) }

func (t Time) String() string { return fmt.Sprintf("%.3fs", t.Seconds()) }

// FromDuration converts a duration since the take start to a Time.
func FromDuration(d time.Duration) Time { return Time(d) }

// Mapping says how frame source times were put on the take clock.
type Mapping string

const (
	// MappingMonotonic: Chromium's metadata.monotonicTimestamp, which reads
	// the host's CLOCK_MONOTONIC; no estimation.
	MappingMonotonic Mapping = "monotonic"
	// MappingWallOffset: Chromium's wall-clock timestamp shifted by a measured
	// offset, with the error bound stored beside it.
	MappingWallOffset Mapping = "wall-offset"
	// MappingReceipt: no usable source time; the host receipt time stands in.
	MappingReceipt Mapping = "receipt"
	// MappingVirtual: a studio capture; the take clock is the page's
	// virtual time, which clapper advances one frame interval at a time, so
	// source times are exact by construction.
	MappingVirtual Mapping = "virtual"
)

// Clock describes the take clock and how source times were mapped onto it.
type Clock struct {
	// Origin is the host CLOCK_MONOTONIC reading, in nanoseconds, that is
	// Time 0 of this take.
	Origin int64 `json:"origin_monotonic_ns"`
	// Wall is the wall-clock time at Time 0, for people reading the take.
	Wall time.Time `json:"wall"`
	// Mapping is the mapping used for frame source times.
	Mapping Mapping `json:"mapping"`
	// OffsetNs is the offset added to wall-clock source times (wall-offset
	// mapping only), and ErrorNs its error bound.
	OffsetNs int64 `json:"offset_ns,omitempty"`
	ErrorNs  int64 `json:"error_ns,omitempty"`
}
