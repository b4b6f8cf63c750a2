package session

import (
	"errors"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto"

	"github.com/clapper-dev/clapper/recorder"
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
