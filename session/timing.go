package session

import (
	"context"
	"fmt"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// A step's timed parts (a pointer's path, a wheel scroll, typing with a
// delay) are paced by the clock: what falls behind is coalesced into the
// next input, so a part ends on time unless the browser or the machine
// holds it up. When one ends late anyway, the step's record says by how
// much and what held it (timeline.Late). timing meters one step's timed
// parts, on the step's clock; it travels in the step's context.
type timing struct {
	planned, took time.Duration // summed over the parts that completed
	// Within the parts: the input events sent, the time the browser took
	// to take them (send to acknowledgement) and the longest, and the
	// time given to the page between inputs (its turn, the beat).
	inputs         int
	acks, longest  time.Duration
	turns          time.Duration
	depth          int // > 0 within a part
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
}

// turn notes time given to the page between inputs within a part.
func (t *timing) turn(d time.Duration) {
	if t == nil || t.depth == 0 {
		return
	}
	t.turns += d
}

// lateSlack is the least lateness recorded: three 60 Hz frames, since
// the parts are paced in 60 Hz slots and a page takes input at its next
// frame (in studio capture a pointer move takes two).
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
	l := &timeline.Late{Planned: t.planned, Took: t.took, Inputs: t.inputs, Acks: t.acks, Longest: t.longest, Turns: t.turns}
	switch {
	case t.acks >= t.turns && t.acks >= over/2:
		l.Why = fmt.Sprintf("the browser took %s to take %d input events (the longest %s): the page was slow to handle input",
			roundMs(t.acks), t.inputs, roundMs(t.longest))
	case t.turns >= over/2:
		l.Why = fmt.Sprintf("the page's turns and the beat between inputs took %s: the page was busy with its own tasks", roundMs(t.turns))
	default:
		l.Why = fmt.Sprintf("the browser took only %s to take the input and the page's turns %s: the machine was busy, and clapper's timers fired late",
			roundMs(t.acks), roundMs(t.turns))
	}
	return l
}

// roundMs is d to the millisecond, for messages.
func roundMs(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
