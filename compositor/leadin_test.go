package compositor

import (
	"image"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

func TestFindLeadIn(t *testing.T) {
	blank, site := "about:blank", "http://127.0.0.1:8080/"
	bounds := func(first *string) []timeline.Boundary {
		return []timeline.Boundary{{Document: 0, LastSeq: -1, URL: first, At: 0}, {Document: 1, LastSeq: 3, URL: &site, At: msT(300)}, {Document: 2, LastSeq: 9, URL: &site, At: msT(2000)}}
	}
	step := func(kind string, at int) timeline.Step {
		return timeline.Step{Kind: kind, Start: msT(at), End: msT(at + 10)}
	}
	hidden := step("eval", 10)
	hidden.Hidden = true
	for _, c := range []struct {
		name  string
		tl    timeline.Timeline
		want  leadIn
		found bool
	}{
		{"goto first", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindGoto, 100), step("click", 900)}}, leadIn{1, msT(300), msT(300), false}, true},
		{"studio: only frames after the load", timeline.Timeline{Capture: timeline.Capture{Mode: timeline.CaptureStudio}, Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindGoto, 100), step("click", 900)}}, leadIn{1, msT(300), msT(300), true}, true},
		{"chapter before goto", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindChapter, 0), step(kindGoto, 100)}}, leadIn{1, msT(300), msT(300), false}, true},
		{"hidden step before goto", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{hidden, step(kindGoto, 100)}}, leadIn{1, msT(300), msT(300), false}, true},
		{"unnamed first document", timeline.Timeline{Boundaries: bounds(nil), Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{1, msT(300), msT(300), false}, true},
		{"a caption first is worth showing", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindCaption, 0), step(kindGoto, 100)}}, leadIn{}, false},
		{"a pause first is kept", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step("pause", 0), step(kindGoto, 100)}}, leadIn{}, false},
		{"a real first page (claimed tab)", timeline.Timeline{Boundaries: bounds(&site), Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{}, false},
		{"goto that committed nothing", timeline.Timeline{Boundaries: bounds(&blank)[:1], Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{}, false},
		{"goto after the first boundary", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindChapter, 0), step(kindGoto, 1000)}}, leadIn{2, msT(2000), msT(2000), false}, true},
		{"goto that loads after its commit", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{{Kind: kindGoto, Start: msT(100), End: msT(900)}}}, leadIn{1, msT(300), msT(900), false}, true},
		{"no steps", timeline.Timeline{Boundaries: bounds(&blank)}, leadIn{}, false},
		{"no boundaries", timeline.Timeline{Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{}, false},
	} {
		got, ok := findLeadIn(&c.tl)
		if ok != c.found || got != c.want {
			t.Errorf("%s: findLeadIn = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.found)
		}
	}
	li := leadIn{Document: 1, After: msT(300), Loaded: msT(900)}
	for _, c := range []struct {
		fr           timeline.Frame
		shows, loads bool
	}{
		{timeline.Frame{Document: 0, Source: msT(100)}, false, false},
		{timeline.Frame{Document: 1, Source: msT(290)}, false, false}, // received after the commit, made before it
		{timeline.Frame{Document: 1, Source: msT(300)}, true, false},  // after the commit, before the load: may be blank
		{timeline.Frame{Document: 1, Source: msT(900)}, true, true},
		{timeline.Frame{Document: 2, Source: msT(5000)}, true, true},
	} {
		if got := li.shows(c.fr); got != c.shows {
			t.Errorf("shows(%+v) = %v, want %v", c.fr, got, c.shows)
		}
		if got := li.loaded(c.fr); got != c.loads {
			t.Errorf("loaded(%+v) = %v, want %v", c.fr, got, c.loads)
		}
	}
	// In studio mode the frame at the load's own (virtual) time can be the
	// document before its first paint: only later ones count as loaded.
	strict := leadIn{Document: 1, After: 0, Loaded: 0, Strict: true}
	for _, c := range []struct {
		fr    timeline.Frame
		loads bool
	}{
		{timeline.Frame{Document: 1, Source: 0}, false},
		{timeline.Frame{Document: 1, Source: 16666667}, true},
	} {
		if got := strict.loaded(c.fr); got != c.loads {
			t.Errorf("studio: loaded(%+v) = %v, want %v", c.fr, got, c.loads)
		}
	}
}

// The render starts at the first frame after the goto's load, or, when no
// frame follows the load, the first after the commit.
func TestScanFramesFindsTheLeadIn(t *testing.T) {
	blank, site := "about:blank", "http://127.0.0.1:8080/"
	for _, c := range []struct {
		name   string
		frames []int // source ms; documents from the boundary at 300 ms
		want   int
	}{
		{"a frame after the load", []int{0, 350, 950, 1000}, 950},
		{"only frames before the load", []int{0, 350, 400}, 350},
	} {
		dir := t.TempDir()
		log, err := timeline.CreateTake(dir)
		if err != nil {
			t.Fatal(err)
		}
		b := encodeJPEG(t, image.NewRGBA(image.Rect(0, 0, 64, 36)))
		for i, at := range c.frames {
			fr := timeline.Frame{Seq: int64(i), Source: msT(at), Received: msT(at + 5), Width: 64, Height: 36, Bytes: len(b),
				File: timeline.FramePath(int64(i)), Document: map[bool]int{true: 1}[at >= 300]}
			addFrame(t, dir, log, fr, b)
		}
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
		n := int64(len(c.frames))
		tl := timeline.Timeline{Name: "lead-in", Tool: "compositor-test", Outcome: "ok", Viewport: timeline.Viewport{Width: 64, Height: 36, Scale: 1},
			Start: 0, End: msT(2000),
			Capture:    timeline.Capture{Tab: "T1", Ended: msT(2000), EndReason: "stopped", Frames: timeline.Accounting{Received: n, Delivered: n, Upstream: "unknown"}},
			Steps:      []timeline.Step{{Kind: kindGoto, Start: msT(100), End: msT(900), Outcome: "ok"}},
			Boundaries: []timeline.Boundary{{Document: 0, LastSeq: -1, URL: &blank, At: 0}, {Document: 1, LastSeq: 0, URL: &site, At: msT(300)}},
		}
		if err := timeline.WriteTimeline(dir, &tl); err != nil {
			t.Fatal(err)
		}
		tk, err := timeline.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		ti, err := scanFrames(tk)
		if err != nil {
			t.Fatal(err)
		}
		if !ti.hasStart || ti.start.Source != msT(c.want) {
			t.Errorf("%s: start %v (found %v), want %v", c.name, ti.start.Source, ti.hasStart, msT(c.want))
		}
		p, err := newPlan(tk, ti, DefaultSettings(), 10, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.schedule.Ticks(); got != int((2000-c.want+50)/100) {
			t.Errorf("%s: %d ticks, want the video from %d ms to the end", c.name, got, c.want)
		}
	}
}
