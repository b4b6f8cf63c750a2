package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLate(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		t    *timing
		why  string // "" for not late
	}{
		{"no meter", nil, ""},
		{"no timed part", &timing{took: time.Second}, ""},
		{"on time", &timing{planned: 900 * ms, took: 900 * ms, partsCompleted: 1}, ""},
		{"early", &timing{planned: 900 * ms, took: 800 * ms, partsCompleted: 1}, ""},
		{"a tenth late exactly", &timing{planned: 900 * ms, took: 990 * ms, partsCompleted: 1}, ""},
		{"over a tenth late", &timing{planned: 900 * ms, took: 991 * ms, inputs: 54, acks: 30 * ms, partsCompleted: 1}, "the machine was busy"},
		{"short part within the slack", &timing{planned: 120 * ms, took: 170 * ms, partsCompleted: 1}, ""},
		{"short part past the slack", &timing{planned: 120 * ms, took: 171 * ms, partsCompleted: 1}, "the machine was busy"},
		{"slow acknowledgements", &timing{planned: 900 * ms, took: 1970 * ms, inputs: 20, acks: 1800 * ms, longest: 420 * ms, partsCompleted: 1},
			"the browser took 1.8s to take 20 input events (the longest 420ms): the page was slow to handle input"},
		{"long turns", &timing{planned: 1140 * ms, took: 3 * time.Second, inputs: 40, acks: 200 * ms, turns: 1500 * ms, partsCompleted: 2},
			"the page's turns and the beat between inputs took 1.5s"},
		{"acks and turns both short of half", &timing{planned: 1 * time.Second, took: 2 * time.Second, acks: 400 * ms, turns: 300 * ms, partsCompleted: 1},
			"the browser took only 400ms to take the input and the page's turns 300ms: the machine was busy"},
	}
	for _, c := range cases {
		l := c.t.late()
		switch {
		case c.why == "" && l != nil:
			t.Errorf("%s: late %+v", c.name, l)
		case c.why != "" && l == nil:
			t.Errorf("%s: not late", c.name)
		case l != nil && (!strings.Contains(l.Why, c.why) || l.Planned != c.t.planned || l.Took != c.t.took || l.Inputs != c.t.inputs):
			t.Errorf("%s: %+v, want %q", c.name, l, c.why)
		}
	}
}

// Only a part that completed counts, and inputs count only within one;
// a part within a part counts once.
func TestTimedParts(t *testing.T) {
	tm := &timing{}
	ctx := withTiming(context.Background(), tm)
	tm.input(time.Second) // outside any part
	if err := timed(ctx, 0, func() error { tm.input(time.Second); return nil }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := timed(ctx, time.Second, func() error { return boom }); err != boom {
		t.Fatal(err)
	}
	if tm.partsCompleted != 0 || tm.planned != 0 {
		t.Errorf("a failed or untimed part counted: %+v", tm)
	}
	tm.inputs, tm.acks = 0, 0
	err := timed(ctx, 2*time.Second, func() error {
		tm.input(30 * time.Millisecond)
		tm.turn(10 * time.Millisecond)
		return timed(ctx, time.Second, func() error { tm.input(50 * time.Millisecond); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if tm.partsCompleted != 1 || tm.planned != 2*time.Second || tm.inputs != 2 || tm.acks != 80*time.Millisecond || tm.longest != 50*time.Millisecond || tm.turns != 10*time.Millisecond {
		t.Errorf("metered %+v", tm)
	}
	if err := timed(context.Background(), time.Second, func() error { return nil }); err != nil {
		t.Error(err) // no meter: runs as is
	}
}

// Filming live, the page's turn between keys ends when the next key is
// due, and none is given when it is due already.
func TestTurnBeforeTheNextKey(t *testing.T) {
	var called int
	var left time.Duration
	p := newPace(func(ctx context.Context, d *doc) {
		called++
		dl, _ := ctx.Deadline()
		left = time.Until(dl)
	}, 0)
	ctx := context.Background()
	p.turnBefore(ctx, clockNow(ctx)-time.Millisecond)
	if called != 0 {
		t.Errorf("a turn was given with the next key already due")
	}
	p.turnBefore(ctx, clockNow(ctx)+40*time.Millisecond)
	if called != 1 || left > 40*time.Millisecond || left <= 0 {
		t.Errorf("turn given %d times, %v left, want once, within 40ms", called, left)
	}
	p.turnBefore(ctx, clockNow(ctx)+time.Hour)
	if called != 2 || left > turnLimit {
		t.Errorf("turn given %d times, %v left, want within %v", called, left, turnLimit)
	}
}
