package session

import (
	"context"
	"errors"
	"testing"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/timeline"
)

// A capture that fails after it began its part of the take (its boundary
// and seeded frame written: recorder.StartError) is kept, and the capture
// after it numbers its frames and documents on: the run's take verifies,
// and no picture is written over. Here the capture of a tab opened by an
// optional step fails so, and switching to that tab films it again.
func TestFailedCaptureStartKeepsOneNumbering(t *testing.T) {
	calls := 0
	startCaptureHook = func(start func() (*recorder.Capture, error)) (*recorder.Capture, error) {
		calls++
		c, err := start()
		if calls == 2 && err == nil {
			return nil, &recorder.StartError{Result: c.Stop(context.Background()), Err: errors.New("the screencast did not start")}
		}
		return c, err
	}
	defer func() { startCaptureHook = nil }()
	res, takeDir := runSiteTake(t, "  - goto: ${serve.url}/index.html\n"+
		"  - tab: {open: side, url: \"${serve.url}/second.html\"}\n    optional: true\n"+
		"  - tab: {switch: side}\n"+
		"  - pause: 300ms\n", nil)
	mustPass(t, res)
	if calls != 3 {
		t.Fatalf("%d captures started, want 3 (main, the failed one, side again)", calls)
	}
	if st := res.Timeline.Steps[1]; st.Outcome == timeline.OutcomeOK {
		t.Errorf("the tab open whose capture failed passed")
	}
	if v := timeline.Verify(takeDir); !v.OK() {
		t.Fatal(v.Err())
	}
	tk, err := timeline.Open(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	n := int64(0)
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if seen[fr.Seq] {
			t.Fatalf("frame %d listed twice", fr.Seq)
		}
		seen[fr.Seq] = true
		n++
	}
	if a := res.Timeline.Capture.Frames; a.Delivered != n {
		t.Errorf("the take lists %d frames, its accounting delivered %d", n, a.Delivered)
	}
	docs := map[int]bool{}
	for _, b := range res.Timeline.Boundaries {
		if docs[b.Document] {
			t.Errorf("document %d begins twice: %+v", b.Document, res.Timeline.Boundaries)
		}
		docs[b.Document] = true
	}
}
