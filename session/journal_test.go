package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

func TestJournalReceipts(t *testing.T) {
	j := NewJournal(recorder.NewClock())
	j.setStep(3)
	if err := j.send(t.Context(), nil, timeline.Receipt{Kind: timeline.InputMove, X: 10, Y: 20}, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	refused := j.send(t.Context(), nil, timeline.Receipt{Kind: timeline.InputKey, Key: "a"}, func() error {
		return fmt.Errorf("call: %w", &cdproto.Error{Code: -32602, Message: "bad params"})
	})
	lost := j.send(t.Context(), nil, timeline.Receipt{Kind: timeline.InputDown}, func() error { return errors.New("websocket closed") })
	rs := j.Receipts()
	if len(rs) != 3 {
		t.Fatalf("%d receipts", len(rs))
	}
	for i, r := range rs {
		if r.Step != 3 || r.Acked < r.Sent || (i > 0 && r.Sent < rs[i-1].Acked) {
			t.Errorf("receipt %d: %+v", i, r)
		}
	}
	if rs[0].X != 10 || rs[0].Y != 20 || rs[0].Error != "" || rs[1].Error == "" {
		t.Errorf("receipts: %+v", rs)
	}
	var se *StepError
	if !errors.As(refused, &se) || se.Outcome != timeline.OutcomeRejected {
		t.Errorf("a protocol error reply must be rejected, got %v", refused)
	}
	if !errors.As(lost, &se) || se.Outcome != timeline.OutcomeUnknown {
		t.Errorf("a lost reply must be unknown, got %v", lost)
	}
	// Receipts is a copy.
	rs[0].X = 99
	if j.Receipts()[0].X != 10 {
		t.Error("Receipts shares its slice")
	}
}

func TestSecretTypingLeavesNoText(t *testing.T) {
	// TypeText with secret=true must record "•" keys; checked without a
	// browser by a keyboard whose sends fail before dispatch.
	j := NewJournal(recorder.NewClock())
	k := &Keyboard{j: j, tab: "main"}
	ctx, cancel := t.Context(), func() {}
	defer cancel()
	_ = k.TypeText(ctx, "pw", 0, true) // no chromedp context: every send errors, but is recorded
	for _, r := range j.Receipts() {
		if r.Key != "•" {
			t.Errorf("secret key recorded as %q", r.Key)
		}
	}
	if len(j.Receipts()) == 0 {
		t.Error("no receipts recorded")
	}
}

// An input whose tab detached before the browser answered it (the page
// closed) is a pageClosedError of unknown outcome, its receipt marked
// closed and free of error; lastInput marks it as the step's last.
func TestJournalPageClosed(t *testing.T) {
	j := NewJournal(recorder.NewClock())
	err := j.send(t.Context(), nil, timeline.Receipt{Kind: timeline.InputUp, Tab: "signin"}, func() error {
		return fmt.Errorf("target 1F: %w: inspected target navigated or closed", chromedp.ErrTargetDetached)
	})
	r := j.Receipts()[0]
	if !r.Closed || r.Error != "" {
		t.Errorf("receipt %+v, want closed without an error", r)
	}
	var se *StepError
	var pc *pageClosedError
	if !errors.As(err, &se) || se.Outcome != timeline.OutcomeUnknown || !errors.As(err, &pc) || pc.last {
		t.Fatalf("got %v, want an unknown pageClosedError not yet last", err)
	}
	if !strings.Contains(err.Error(), `the page of tab "signin" closed before it answered`) {
		t.Errorf("message %q", err)
	}
	if lastInput(dispatched(err)); !pc.last {
		t.Error("lastInput did not mark it")
	}
	other := errors.New("websocket closed")
	if lastInput(other) != other || lastInput(nil) != nil {
		t.Error("lastInput changed an error that is not a closed page's")
	}
}

// needsPage: every step kind, those that act on their tab's page and
// those that do not.
func TestNeedsPage(t *testing.T) {
	no := []scripts.Action{scripts.Pause{}, scripts.Chapter{}, scripts.Caption{}, scripts.Cursor{}, scripts.Hold{}, scripts.Resume{},
		scripts.Film{}, scripts.Tab{}, scripts.Dialog{}, scripts.Zoom{}, scripts.Zoom{Region: &scripts.Rect{}}}
	yes := []scripts.Action{scripts.Goto{}, scripts.Back{}, scripts.Forward{}, scripts.Reload{}, scripts.Click{}, scripts.Hover{},
		scripts.Move{}, scripts.Drag{}, scripts.Scroll{}, scripts.Type{}, scripts.Press{}, scripts.KeyDown{}, scripts.KeyUp{},
		scripts.Fill{}, scripts.Select{}, scripts.Check{}, scripts.Uncheck{}, scripts.Upload{}, scripts.Wait{}, scripts.Expect{},
		scripts.Zoom{Target: &scripts.Target{}}, scripts.Handoff{}, scripts.Screenshot{}, scripts.Eval{}}
	kinds := map[string]bool{}
	for _, a := range no {
		kinds[a.Kind()] = true
		if needsPage(a) {
			t.Errorf("%s %+v needs no page", a.Kind(), a)
		}
	}
	for _, a := range yes {
		kinds[a.Kind()] = true
		if !needsPage(a) {
			t.Errorf("%s %+v needs its page", a.Kind(), a)
		}
	}
	if len(kinds) != 33 {
		t.Errorf("%d step kinds covered, want all 33", len(kinds))
	}
}

// closeEndsStep: a close ends a step done only when it met the step's
// last input, the step sent one, and the page is gone with the browser
// answering; sent and closed are asked only when needed.
func TestCloseEndsStep(t *testing.T) {
	detached := fmt.Errorf("x: %w", chromedp.ErrTargetDetached)
	last := func() error {
		return lastInput(&StepError{Outcome: timeline.OutcomeUnknown, Err: &pageClosedError{tab: "a", err: detached}})
	}
	notLast := &StepError{Outcome: timeline.OutcomeUnknown, Err: &pageClosedError{tab: "a", err: detached}}
	for _, c := range []struct {
		name         string
		err          error
		sent, closed bool
		want         bool
		asks         string
	}{
		{"no error", nil, true, true, false, ""},
		{"another error", errors.New("timeout"), true, true, false, ""},
		{"a detach not marked", detached, true, true, false, ""},
		{"not the last input", notLast, true, true, false, ""},
		{"last, nothing sent", last(), false, true, false, "s"},
		{"last, the browser gone", last(), true, false, false, "sc"},
		{"last, sent, closed", last(), true, true, true, "sc"},
		{"wrapped", fmt.Errorf("click: %w", last()), true, true, true, "sc"},
	} {
		asks := ""
		got := closeEndsStep(c.err, func() bool { asks += "s"; return c.sent }, func() bool { asks += "c"; return c.closed })
		if got != c.want || asks != c.asks {
			t.Errorf("%s: %v asking %q, want %v asking %q", c.name, got, asks, c.want, c.asks)
		}
	}
}

// sentIn: the inputs a step sent, not the shapes it read, nor another
// step's inputs.
func TestJournalSentIn(t *testing.T) {
	j := NewJournal(recorder.NewClock())
	send := func(step int, kind string) {
		j.setStep(step)
		if kind == timeline.PointerShape {
			j.note(timeline.Receipt{Kind: kind})
			return
		}
		if err := j.send(t.Context(), nil, timeline.Receipt{Kind: kind}, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	send(0, timeline.InputMove)
	send(2, timeline.PointerShape)
	send(3, timeline.InputKey)
	send(3, timeline.PointerShape)
	for step, want := range map[int]bool{0: true, 1: false, 2: false, 3: true, 4: false} {
		if got := j.sentIn(step); got != want {
			t.Errorf("step %d: sent %v, want %v", step, got, want)
		}
	}
}
