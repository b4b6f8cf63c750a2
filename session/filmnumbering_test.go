package session

import (
	"context"
	"errors"
	"testing"

	"github.com/clapper-dev/clapper/compositor"
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
	hook := func(start func() (*recorder.Capture, error)) (*recorder.Capture, error) {
		calls++
		c, err := start()
		if calls == 2 && err == nil {
			return nil, &recorder.StartError{Result: c.Stop(context.Background()), Err: errors.New("the screencast did not start")}
		}
		return c, err
	}
	res, takeDir := runSiteTakeWith(t, "  - goto: ${serve.url}/index.html\n"+
		"  - tab: {open: side, url: \"${serve.url}/second.html\"}\n    optional: true\n"+
		"  - tab: {switch: side}\n"+
		"  - pause: 300ms\n", nil, RunOptions{startCapture: hook})
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

// A tab opened or switched to just before a film step that pins the film
// elsewhere is never filmed: the video does not cut to it for a frame and
// back. Without the next step's pin, opening a tab films it.
func TestOpenTabBeforeFilmStaysOnTheFilm(t *testing.T) {
	res, takeDir := runSiteTake(t, "  - goto: ${serve.url}/index.html\n"+
		"  - tab: {open: other, url: \"${serve.url}/second.html\"}\n"+
		"  - pause: 200ms\n"+
		"  - tab: {switch: main}\n"+
		"  - tab: {open: scout, url: \"${serve.url}/second.html\"}\n"+
		"  - film: main\n"+
		"  - tab: {switch: main}\n"+
		"  - tab: {switch: scout}\n"+
		"  - film: main\n"+
		"  - pause: 200ms\n", nil)
	mustPass(t, res)
	tk, err := timeline.Open(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	tabs := map[string]int{}
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		tabs[fr.Tab]++
	}
	if tabs["scout"] != 0 || tabs["main"] == 0 || tabs["other"] == 0 {
		t.Errorf("frames by tab %v: want none of scout (opened and switched to before film: main), some of other (opened unpinned)", tabs)
	}
	for _, b := range res.Timeline.Boundaries {
		if b.Tab == "scout" {
			t.Errorf("a boundary names scout: %+v", b)
		}
	}
}

// A pointer left on a link that navigates takes the shape of what the new
// page has under it: the take notes the cursor read again (a shape
// receipt, no input), and the video's cursor is an arrow over the empty
// page, not the old page's hand.
func TestPointerShapeReadAgainOnANewDocument(t *testing.T) {
	res, _ := runSiteTake(t, "  - goto: ${serve.url}/index.html\n"+
		"  - click: \"#next\"\n"+
		"  - wait: {text: Second page}\n"+
		"  - pause: 100ms\n", nil)
	mustPass(t, res)
	var down, shape *timeline.Receipt
	for i, r := range res.Timeline.Receipts {
		switch r.Kind {
		case timeline.InputDown:
			down = &res.Timeline.Receipts[i]
		case timeline.PointerShape:
			shape = &res.Timeline.Receipts[i]
		}
	}
	if down == nil || down.Cursor != "pointer" {
		t.Fatalf("the click on the link: %+v, want the pointer (hand) cursor", down)
	}
	if shape == nil || shape.Cursor != "auto" || shape.X != down.X || shape.Y != down.Y || shape.Sent < down.Sent {
		t.Fatalf("the shape read on the new page: %+v (the click %+v)", shape, down)
	}
	ct := compositor.NewCursorTrack(res.Timeline.Receipts, "")
	if st := ct.At(res.Timeline.End); !st.Visible || st.Shape != "arrow" {
		t.Errorf("the video's cursor at the end: %+v, want a visible arrow", st)
	}
}
