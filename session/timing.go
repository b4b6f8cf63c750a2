package session

import (
	"context"
	"fmt"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// A step's timed parts (a pointer's path, a wheel scroll, typing with a
// delay) are paced by the clock: a path's or a scroll's points whose time
// passed go out as one input with the next, and a late key is followed
// at once by the keys due, so a part ends on time unless the browser, the
// page or the machine holds it up. When one ends late anyway, the step's
// record says by how much and what held it (timeline.Late). timing meters
// one step's timed parts, on the step's clock, filming live; it travels
// in the step's context (Journal.ready gives the page its turn and the
// beat before a part starts, so they do not count).
type timing struct {
	planned, took time.Duration // summed over the parts that completed
	// Within the parts: the input events sent, the time the browser took
	// to take them (send to acknowledgement) and the longest, those that
	// took longer than a frame and their time past it, and the time the
	// page took between inputs (its turns between keys, its answers
	// during a drag).
	inputs         int
	acks, longest  time.Duration
	slow           int
	beyond         time.Duration
	turns          time.Duration
	dragTime       time.Duration // of turns, the drag's
	depth          int           // > 0 within a part
	partsCompleted int
}

type timingKey struct{}

func withTiming(ctx context.Context, t *timing) context.Context {
	return context.WithValue(ctx, timingKey{}, t)
}

// meter is the timing of ctx's step, or nil.
func meter(ctx context.Context) *timing {
	t, _ := ctx.Value(timingKey{}).(*timing)
	return t
}

// timed runs fn, a part of a step due to take planned, metered. A part of
// no planned time (typing without a delay) is not timed.
func timed(ctx context.Context, planned time.Duration, fn func() error) error {
	t := meter(ctx)
	if t == nil || planned <= 0 {
		return fn()
	}
	start := clockNow(ctx)
	t.depth++
	err := fn()
	t.depth--
	if err == nil && t.depth == 0 {
		t.planned += planned
		t.took += clockNow(ctx) - start
		t.partsCompleted++
	}
	return err
}

// input notes an input event sent within a part, and how long the
// browser took to take it.
func (t *timing) input(ack time.Duration) {
	if t == nil || t.depth == 0 {
		return
	}
	t.inputs++
	t.acks += ack
	t.longest = max(t.longest, ack)
	if ack > paceSlot {
		t.slow++
		t.beyond += ack - paceSlot
	}
}

// paceSlot is the slot a step's timed parts are paced in, a 60 Hz frame:
// a pointer path has a point per slot and a scroll a wheel event per slot.
const paceSlot = time.Second / 60

// pageTime notes time the page took between inputs within a part: its
// turn between keys, or its answer during a drag.
func (t *timing) pageTime(d time.Duration, drag bool) {
	if t == nil || t.depth == 0 {
		return
	}
	t.turns += d
	if drag {
		t.dragTime += d
	}
}

// lateSlack is the least lateness recorded: three 60 Hz frames, since
// the parts are paced in 60 Hz slots and a page takes input at its next
// frame.
const lateSlack = 50 * time.Millisecond

// late is the step's record of its timed parts when they ended more than
// a tenth, and more than lateSlack, after their own time; nil when they
// did not, or there were none. Pure.
func (t *timing) late() *timeline.Late {
	if t == nil || t.partsCompleted == 0 {
		return nil
	}
	over := t.took - t.planned
	if over <= max(t.planned/10, lateSlack) {
		return nil
	}
	l := &timeline.Late{Planned: t.planned, Took: t.took, Inputs: t.inputs, Acks: t.acks, Longest: t.longest,
		Slow: t.slow, Beyond: t.beyond, Turns: t.turns}
	switch {
	case t.beyond >= t.turns && t.beyond >= over/2:
		l.Why = fmt.Sprintf("the browser was slow to take input: %d of the %d input events took it longer than a frame, %s past their frames in all (the longest %s)",
			t.slow, t.inputs, roundMs(t.beyond), roundMs(t.longest))
	case t.turns >= over/2:
		l.Why = fmt.Sprintf("the page took %s %s: it was busy with its own tasks", roundMs(t.turns), pageWhere(t.turns, t.dragTime))
	default:
		l.Why = fmt.Sprintf("the browser held the input up only %s past its frames and the page %s between inputs: the machine was busy, and clapper's timers fired late",
			roundMs(t.beyond), roundMs(t.turns))
	}
	return l
}

// pageWhere says where the page's time between inputs went: between
// keys, in a drag's checks, or both. Pure.
func pageWhere(turns, drag time.Duration) string {
	switch {
	case drag == 0:
		return "between keys"
	case drag >= turns:
		return "answering during the drag"
	}
	return "between keys and during the drag"
}

// roundMs is d to the millisecond, for messages.
func roundMs(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
