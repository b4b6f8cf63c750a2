package session

import (
	"context"
	"errors"
	"slices"
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
		{"no meter (studio)", nil, ""},
		{"no timed part", &timing{took: time.Second}, ""},
		{"on time", &timing{planned: 900 * ms, took: 900 * ms, partsCompleted: 1}, ""},
		{"early", &timing{planned: 900 * ms, took: 800 * ms, partsCompleted: 1}, ""},
		{"a tenth late exactly", &timing{planned: 900 * ms, took: 990 * ms, partsCompleted: 1}, ""},
		{"over a tenth late", &timing{planned: 900 * ms, took: 991 * ms, inputs: 54, acks: 600 * ms, beyond: 30 * ms, partsCompleted: 1}, "the machine was busy"},
		{"short part within the slack", &timing{planned: 120 * ms, took: 170 * ms, partsCompleted: 1}, ""},
		{"short part past the slack", &timing{planned: 120 * ms, took: 171 * ms, partsCompleted: 1}, "the machine was busy"},
		{"slow acknowledgements", &timing{planned: 900 * ms, took: 1970 * ms, inputs: 20, acks: 1800 * ms, slow: 12, beyond: 1500 * ms, longest: 420 * ms, partsCompleted: 1},
			"the browser was slow to take input: 12 of the 20 input events took it longer than a frame, 1.5s past their frames in all (the longest 420ms)"},
		{"long turns", &timing{planned: 1140 * ms, took: 3 * time.Second, inputs: 40, acks: 900 * ms, beyond: 200 * ms, turns: 1500 * ms, partsCompleted: 2},
			"the page took 1.5s between keys: it was busy with its own tasks"},
		{"a drag's checks", &timing{planned: 400 * ms, took: 2 * time.Second, inputs: 10, turns: 1500 * ms, dragTime: 1500 * ms, partsCompleted: 1},
			"the page took 1.5s answering during the drag"},
		{"acks and turns both short of half", &timing{planned: 1 * time.Second, took: 2 * time.Second, acks: 800 * ms, beyond: 400 * ms, turns: 300 * ms, partsCompleted: 1},
			"the browser held the input up only 400ms past its frames and the page 300ms between inputs: the machine was busy"},
	}
	for _, c := range cases {
		l := c.t.late()
		switch {
		case c.why == "" && l != nil:
			t.Errorf("%s: late %+v", c.name, l)
		case c.why != "" && l == nil:
			t.Errorf("%s: not late", c.name)
		case l != nil && (!strings.Contains(l.Why, c.why) || l.Planned != c.t.planned || l.Took != c.t.took || l.Inputs != c.t.inputs || l.Beyond != c.t.beyond):
			t.Errorf("%s: %+v, want %q", c.name, l, c.why)
		}
	}
}

func TestPageWhere(t *testing.T) {
	for _, c := range []struct {
		turns, drag time.Duration
		want        string
	}{
		{time.Second, 0, "between keys"},
		{time.Second, time.Second, "answering during the drag"},
		{time.Second, time.Millisecond, "between keys and during the drag"},
	} {
		if got := pageWhere(c.turns, c.drag); got != c.want {
			t.Errorf("pageWhere(%v, %v) = %q, want %q", c.turns, c.drag, got, c.want)
		}
	}
}

// An input counts as slow past one 60 Hz frame, by its time past it.
func TestInputPastItsFrame(t *testing.T) {
	tm := &timing{depth: 1}
	for _, ack := range []time.Duration{time.Millisecond, paceSlot, paceSlot + 1, 100 * time.Millisecond} {
		tm.input(ack)
	}
	if tm.inputs != 4 || tm.slow != 2 || tm.beyond != 1+100*time.Millisecond-paceSlot || tm.longest != 100*time.Millisecond {
		t.Errorf("%+v", tm)
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
		tm.pageTime(10*time.Millisecond, false)
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

// Between keys the page runs its queued tasks; on virtual time it also
// gets its animation frame.
func TestKeyTurn(t *testing.T) {
	if keyTurn(false) != "tasks" || keyTurn(true) != "turn" {
		t.Errorf("live %q, studio %q", keyTurn(false), keyTurn(true))
	}
}

// The page's turn and the beat before a step's first input are given
// once: before its timed part (Journal.ready), or before the input.
func TestPaceBeforeOncePerStep(t *testing.T) {
	var helpers []string
	p := newPace(func(ctx context.Context, d *doc, helper string) { helpers = append(helpers, helper) }, 0)
	ctx := context.Background()
	if err := p.before(ctx, 0); err != nil || len(helpers) != 0 {
		t.Fatalf("the first input of a run waited: %v %v", err, helpers)
	}
	p.after(ctx, 0)
	for range 2 { // ready, then the step's first input
		if err := p.before(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	p.after(ctx, 1)
	if err := p.before(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(helpers, []string{"turn"}) {
		t.Errorf("turns given: %v, want one", helpers)
	}
	p.betweenKeys(ctx)
	if !slices.Equal(helpers, []string{"turn", "tasks"}) {
		t.Errorf("turns given: %v, want the tasks between keys, live", helpers)
	}
}
