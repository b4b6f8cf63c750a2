package recorder

import (
	"fmt"

	"github.com/clapper-dev/clapper/timeline"
)

// Verdict is the ledger's decision about one received frame.
type Verdict int

const (
	// Accept: the frame goes on to the spool buffer (where it may still be
	// evicted as overflow).
	Accept Verdict = iota
	Late
	Duplicate
	Reject
)

func (v Verdict) String() string {
	switch v {
	case Accept:
		return "accept"
	case Late:
		return "late"
	case Duplicate:
		return "duplicate"
	default:
		return "rejected"
	}
}

// InFlight is how many frames Chromium may have encoded and in flight at
// once; a run of more late frames than this cannot be reordering and means
// the source clock went backwards.
const InFlight = 3

// ClockError is reported when a run of late frames is longer than
// reordering can explain.
type ClockError struct {
	Run  int
	Last timeline.Time
	Got  timeline.Time
}

func (e *ClockError) Error() string {
	return fmt.Sprintf("source clock went backwards: %d late frames in a row (last delivered %v, got %v)", e.Run, e.Last, e.Got)
}

// Ledger keeps the frame accounting of one capture. It is pure: callers
// feed it what happened, in receipt order, and it decides and counts.
//
//	received  = delivered + discarded
//	discarded = overflow + late + duplicates + rejected
//
// A frame the ledger accepts is pending until the buffer either spools it
// (Delivered) or evicts it (Overflowed); pending frames are part of neither
// side until then, and Accounting counts them nowhere, so callers drain the
// buffer before reading the final accounting.
type Ledger struct {
	acc     timeline.Accounting
	pending int64
	last    timeline.Time
	hasLast bool
	lateRun int
	stopped bool
	err     error
}

// Offer classifies a received frame with source time src. ok is false when
// the frame is unusable (undecodable, wrong target). After Stop or a clock
// error every frame is rejected.
func (l *Ledger) Offer(src timeline.Time, ok bool) Verdict {
	l.acc.Received++
	switch {
	case l.stopped || l.err != nil || !ok:
		l.acc.Rejected++
		return Reject
	case l.hasLast && src < l.last:
		l.acc.Late++
		l.lateRun++
		if l.lateRun > InFlight {
			l.err = &ClockError{Run: l.lateRun, Last: l.last, Got: src}
		}
		return Late
	case l.hasLast && src == l.last:
		l.acc.Duplicates++
		return Duplicate
	}
	l.last, l.hasLast, l.lateRun = src, true, 0
	l.pending++
	return Accept
}

// Delivered records that n accepted frames were spooled.
func (l *Ledger) Delivered(n int64) { l.pending -= n; l.acc.Delivered += n }

// Overflowed records that n accepted frames were evicted from the buffer.
func (l *Ledger) Overflowed(n int64) { l.pending -= n; l.acc.Overflow += n }

// Dropped records that n accepted frames could not be spooled (the spool
// failed): they count as rejected.
func (l *Ledger) Dropped(n int64) { l.pending -= n; l.acc.Rejected += n }

// Stop makes every later frame rejected.
func (l *Ledger) Stop() { l.stopped = true }

// Err returns the clock error that ended the interval, if any.
func (l *Ledger) Err() error { return l.err }

// Pending returns accepted frames neither delivered nor evicted yet.
func (l *Ledger) Pending() int64 { return l.pending }

// Accounting returns the counts so far, with upstream drops unknown.
func (l *Ledger) Accounting() timeline.Accounting {
	a := l.acc
	a.Upstream = "unknown"
	return a
}
