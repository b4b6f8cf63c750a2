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
	// Late: it arrived behind a newer frame; discarded, never re-timed.
	Late
	// Duplicate: the same source time as the last accepted frame.
	Duplicate
	// Reject: unusable, or offered after the interval ended.
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

// InFlight is Chromium's default limit on screencast frames sent and not
// yet acked (maxFramesInFlight). It encodes that many at once, so that many
// can arrive out of order.
const InFlight = 3

// ClockError is reported when a run of late frames is longer than
// reordering can explain.
type ClockError struct {
	// Run is the number of late frames since the last accepted one, Limit
	// the in-flight limit it exceeded.
	Run, Limit int
	Last, Got  timeline.Time
}

func (e *ClockError) Error() string {
	return fmt.Sprintf("source clock went backwards: %d late frames since the last delivered one, more than the %d Chromium keeps in flight (last delivered %v, got %v)",
		e.Run, e.Limit, e.Last, e.Got)
}

// Ledger keeps the frame accounting of one capture. It is pure: callers
// feed it what happened, in receipt order, and it decides and counts.
//
//	received  = delivered + discarded
//	discarded = overflow + late + duplicates + rejected
//
// A frame the ledger accepts is pending until the buffer either spools it
// (Delivered), evicts it (Overflowed) or cannot spool it (Dropped);
// Accounting counts pending frames on neither side, so callers drain the
// buffer before reading the final accounting.
//
// Accepted source times strictly increase. A late frame is one whose
// source time is behind the last accepted one. With n frames in flight,
// Chromium encodes up to n at once, so at most n-1 can arrive behind a
// newer one; a run of more than InFlight late frames since the last
// accepted one cannot be reordering: the source clock went backwards, the
// interval ends with a ClockError, and every later frame is rejected.
type Ledger struct {
	// InFlight is the in-flight limit the capture asked Chromium for; 0
	// means Chromium's default (the InFlight constant).
	InFlight int

	acc     timeline.Accounting
	pending int64
	last    timeline.Time
	hasLast bool
	// cast is the source time of the last screencast (not seeded) frame
	// accepted from each session (0 the tab's, 1 the second one a live
	// capture hands its screencast over to): only frames older than their
	// own session's show the clock going back, since two screencasts that
	// overlap send the same frames, each in its own time.
	cast    [2]timeline.Time
	hasCast [2]bool
	lateRun [2]int
	stopped bool
	err     error
}

// Offer classifies a received frame with source time src. ok is false when
// the frame is unusable (undecodable, no source time). After Stop or a
// clock error every frame is rejected.
func (l *Ledger) Offer(src timeline.Time, ok bool) Verdict { return l.OfferFrom(0, src, ok) }

// OfferFrom is Offer for a screencast frame of session cast (0 or 1). A
// session's late frames are evidence of the clock going backwards only
// behind that session's own last accepted frame; a session none of whose
// frames was accepted yet (a hand-over's new screencast catching up)
// shows nothing, except the tab's own (0) at the start of a capture.
func (l *Ledger) OfferFrom(cast int, src timeline.Time, ok bool) Verdict {
	v := l.offer(src, ok, false, cast)
	if v == Accept {
		l.cast[cast], l.hasCast[cast] = src, true
	}
	return v
}

// OfferSeed classifies a frame the recorder took itself (a screenshot)
// and returns the source time it is kept at. A seed is the page as it was
// when it was asked for, and it was asked for because the take needs it
// (the first frame, the final state after a step, the last one): one
// stamped at or before the last frame taken (a screencast frame produced
// while the screenshot was made, or stamped a little ahead of the host
// clock) is kept just after that frame, not thrown away as late. It is
// ordered like any frame, but frames arriving late behind it are not
// evidence of the source clock going backwards unless they are older than
// the last screencast frame too.
func (l *Ledger) OfferSeed(src timeline.Time, ok bool) (Verdict, timeline.Time) {
	if ok && l.hasLast && src <= l.last {
		src = l.last + 1
	}
	return l.offer(src, ok, true, 0), src
}

func (l *Ledger) offer(src timeline.Time, ok, seed bool, cast int) Verdict {
	l.acc.Received++
	switch {
	case l.stopped || l.err != nil || !ok:
		l.acc.Rejected++
		return Reject
	case l.hasLast && src < l.last:
		l.acc.Late++
		evidence := l.hasCast[cast] && src < l.cast[cast] || !l.hasCast[cast] && cast == 0
		if !seed && evidence {
			l.lateRun[cast]++
			if limit := l.limit(); l.lateRun[cast] > limit {
				l.err = &ClockError{Run: l.lateRun[cast], Limit: limit, Last: l.last, Got: src}
			}
		}
		return Late
	case l.hasLast && src == l.last:
		l.acc.Duplicates++
		return Duplicate
	}
	l.last, l.hasLast = src, true
	if !seed {
		l.lateRun[cast] = 0
	}
	l.pending++
	return Accept
}

func (l *Ledger) limit() int {
	if l.InFlight > 0 {
		return l.InFlight
	}
	return InFlight
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

// Stopped reports whether the ledger refuses every frame now (after Stop
// or a clock error).
func (l *Ledger) Stopped() bool { return l.stopped || l.err != nil }

// Err returns the clock error that ended the interval, if any.
func (l *Ledger) Err() error { return l.err }

// Pending returns accepted frames neither delivered nor discarded yet.
func (l *Ledger) Pending() int64 { return l.pending }

// Accounting returns the counts so far, with upstream drops unknown.
func (l *Ledger) Accounting() timeline.Accounting {
	a := l.acc
	a.Upstream = "unknown"
	return a
}
