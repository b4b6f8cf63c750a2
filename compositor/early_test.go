package compositor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// liveTake writes a take of 8 s as it stands when the capture has reached
// upTo: the frames, receipts and steps before it, its end there.
func liveTake(t *testing.T, upTo timeline.Time) *timeline.Take {
	t.Helper()
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	var frames []synthFrame
	for n := 0; n < 80; n++ {
		if at(n*100+30) < upTo {
			frames = append(frames, synthFrame{ms(n*100 + 30), palette[n%len(palette)]})
		}
	}
	tl := timeline.Timeline{
		Name: "live", Viewport: timeline.Viewport{Width: 320, Height: 180, Scale: 2},
		Start: 0, End: upTo,
		Capture: timeline.Capture{Tab: "T1", Started: 0, Ended: upTo, EndReason: "stopped"},
	}
	receipts := []timeline.Receipt{
		{Kind: timeline.InputMove, Tab: "T1", X: 40, Y: 30, Sent: at(200), Acked: at(201)},
		{Kind: timeline.InputMove, Tab: "T1", X: 200, Y: 120, Sent: at(1990), Acked: at(1991)},
		{Kind: timeline.InputDown, Tab: "T1", X: 200, Y: 120, Sent: at(2000), Acked: at(2002), Button: "left", Clicks: 1},
		{Kind: timeline.InputUp, Tab: "T1", X: 200, Y: 120, Sent: at(2100), Acked: at(2102), Button: "left", Clicks: 1},
		{Kind: timeline.InputMove, Tab: "T1", X: 250, Y: 150, Sent: at(4200), Acked: at(4201)},
		{Kind: timeline.InputMove, Tab: "T1", X: 60, Y: 40, Sent: at(7000), Acked: at(7001)},
	}
	for _, r := range receipts {
		if r.Sent < upTo {
			tl.Receipts = append(tl.Receipts, r)
		}
	}
	steps := []timeline.Step{
		{Index: 0, Kind: "caption", Text: "Hello", Start: at(300), End: at(300), Duration: ms(1500), Outcome: "ok"},
		{Index: 1, Kind: "zoom", Region: &timeline.Rect{X: 180, Y: 100, W: 80, H: 50}, Scale: 2, Duration: ms(400), Start: at(2500), End: at(2500), Outcome: "ok"},
		{Index: 2, Kind: "zoom", Scale: 1, Duration: ms(400), Start: at(6500), End: at(6500), Outcome: "ok"},
	}
	for _, s := range steps {
		if s.Start < upTo {
			tl.Steps = append(tl.Steps, s)
		}
	}
	return writeTake(t, t.TempDir(), 640, 360, frames, tl)
}

// decodeAll decodes a video's every frame to RGB and returns, per frame,
// its size in bytes and the MD5 of its pixels (ffmpeg's framemd5), so
// that two videos are compared frame for frame without holding their
// pixels.
func decodeAll(t *testing.T, file string) []string {
	t.Helper()
	ff := requireTool(t, "ffmpeg")
	var stderr bytes.Buffer
	cmd := exec.Command(ff, "-v", "error", "-i", file, "-fps_mode", "passthrough", "-pix_fmt", "rgb24", "-f", "framemd5", "-")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("decode %s: %v: %s", file, err, stderr.String())
	}
	var frames []string
	for _, line := range strings.Split(string(out), "\n") {
		// stream, dts, pts, duration, size, hash
		if f := strings.Split(line, ","); len(f) == 6 && !strings.HasPrefix(line, "#") {
			frames = append(frames, strings.TrimSpace(f[4])+" "+strings.TrimSpace(f[5]))
		}
	}
	return frames
}

// rgbFrame is decodeAll's entry for a w x h frame: its size.
func rgbFrame(w, h int) string { return fmt.Sprint(w * h * 3) }

func cached(t *testing.T, c *ChunkCache) int {
	t.Helper()
	es, err := os.ReadDir(c.Dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(es)
}

// TestRenderWhileCapturingMatchesStoredRender renders a take's early chunks
// from the take as it stood mid-capture, then the finished take with them,
// and checks the video decodes to exactly the frames of the stored render
// (no early chunks), with the early chunks really used.
func TestRenderWhileCapturingMatchesStoredRender(t *testing.T) {
	requireTool(t, "ffmpeg")
	ctx := context.Background()
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 30, 320, 180 // small: what is compared is frames, at any size
	s.Captions = "burn"
	cache := &ChunkCache{Dir: t.TempDir() + "/chunks"}
	for _, upTo := range []int{3000, 5500} {
		if _, _, err := renderEarly(ctx, liveTake(t, timeline.FromDuration(ms(upTo))), s, cache, 0, nil); err != nil {
			t.Fatalf("early at %d ms: %v", upTo, err)
		}
	}
	early := cached(t, cache)
	if early == 0 {
		t.Fatal("no chunk rendered while capturing")
	}
	full := liveTake(t, timeline.FromDuration(ms(8000)))
	dir := t.TempDir()
	stored, streamed := dir+"/stored.mp4", dir+"/streamed.mp4"
	if err := Render(ctx, full, stored, s, nil); err != nil {
		t.Fatal(err)
	}
	if err := RenderAllCached(ctx, full, []string{streamed}, s, nil, cache); err != nil {
		t.Fatal(err)
	}
	chunks := len(planChunks(240, 30))
	if again := cached(t, cache) - early; again >= chunks {
		t.Fatalf("the final render made all %d chunks again; none rendered early was used", chunks)
	}
	a, b := decodeAll(t, stored), decodeAll(t, streamed)
	if len(a) != 240 || !strings.HasPrefix(a[0], rgbFrame(s.Width, s.Height)+" ") {
		t.Fatalf("stored render decodes to %d frames (the first %v), want 240 of %dx%d", len(a), a[:min(1, len(a))], s.Width, s.Height)
	}
	if !slices.Equal(a, b) {
		t.Fatal("the render made while capturing decodes to other frames than the stored render")
	}
	t.Logf("%d chunks, %d rendered early, %d made again at the end", chunks, early, cached(t, cache)-early)
}

func TestReachesBack(t *testing.T) {
	box := &timeline.Rect{W: 10, H: 10}
	for _, c := range []struct {
		st   timeline.Step
		want bool
	}{
		{timeline.Step{Kind: "wait", Traits: timeline.Traits{Waits: true}}, true},
		{timeline.Step{Kind: "goto", Traits: timeline.Traits{Waits: true, ChangesPage: true}}, true},
		{timeline.Step{Kind: "handoff", Traits: timeline.Traits{Cut: true}}, true},
		{timeline.Step{Kind: "click", Hidden: true}, true},
		{timeline.Step{Kind: "zoom", Traits: timeline.Traits{Presentation: true}, Region: box}, true},
		{timeline.Step{Kind: "click", Traits: timeline.Traits{Focus: true}}, true},
		{timeline.Step{Kind: "click", Traits: timeline.Traits{Focus: true}, Region: box}, false},
		{timeline.Step{Kind: "pause", Traits: timeline.Traits{Presentation: true}}, false},
		{timeline.Step{Kind: "press", Traits: timeline.Traits{ChangesPage: true}}, false},
	} {
		if got := reachesBack(c.st); got != c.want {
			t.Errorf("reachesBack(%s %+v, region %v, hidden %v) = %v, want %v", c.st.Kind, c.st.Traits, c.st.Region != nil, c.st.Hidden, got, c.want)
		}
	}
}

func TestKnownUpTo(t *testing.T) {
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	for _, c := range []struct {
		tl   timeline.Timeline
		want timeline.Time
	}{
		// A still page: the journal went on past the last frame.
		{timeline.Timeline{End: at(3000), Recovered: &timeline.Recovery{Journaled: at(3000)}}, at(3000)},
		// Frames past the journal's last record: their receipts may not
		// be flushed yet.
		{timeline.Timeline{End: at(3100), Recovered: &timeline.Recovery{Journaled: at(2400)}}, at(2400)},
		// A finished take is known to its end.
		{timeline.Timeline{End: at(3100)}, at(3100)},
		// A running type step whose field is not found yet: the camera
		// will ease toward it from the step's start.
		{timeline.Timeline{End: at(3100), Steps: []timeline.Step{
			{Index: 0, Kind: "goto", Start: 0, End: at(500), Outcome: timeline.OutcomeOK, Traits: timeline.Traits{Waits: true}},
			{Index: 1, Kind: "type", Start: at(800), End: at(3000), Outcome: timeline.OutcomeUnknown, Traits: timeline.Traits{Focus: true}},
		}, Recovered: &timeline.Recovery{Journaled: at(3000), Open: []int{1}}}, at(800)},
		// Its field found: known to the journal's end.
		{timeline.Timeline{End: at(3100), Steps: []timeline.Step{
			{Index: 1, Kind: "type", Start: at(800), End: at(3000), Outcome: timeline.OutcomeUnknown, Traits: timeline.Traits{Focus: true}, Region: &timeline.Rect{W: 10, H: 10}},
		}, Recovered: &timeline.Recovery{Journaled: at(3000), Open: []int{1}}}, at(3000)},
		// A running pause changes nothing before it ends.
		{timeline.Timeline{End: at(3100), Steps: []timeline.Step{
			{Index: 4, Kind: "pause", Start: at(1000), End: at(3000), Outcome: timeline.OutcomeUnknown, Traits: timeline.Traits{Presentation: true}},
		}, Recovered: &timeline.Recovery{Journaled: at(3000), Open: []int{4}}}, at(3000)},
	} {
		if got := knownUpTo(&c.tl); got != c.want {
			t.Errorf("knownUpTo(end %v, journaled %+v) = %v, want %v", c.tl.End, c.tl.Recovered, got, c.want)
		}
	}
}

// midStudioTake is a studio take of 6 s on the virtual clock: about:blank,
// then a goto whose document paints from 100 ms (a frame exactly at the
// goto's end, where a studio lead-in and a live one end differently), a
// click, and a long type step on a field the camera zooms toward, found
// 1.7 s after the step starts (the pointer moves there then).
func midStudioTake() (timeline.Timeline, []timeline.Frame) {
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	site := "http://site/"
	blank := "about:blank"
	box := &timeline.Rect{X: 180, Y: 100, W: 80, H: 30}
	tl := timeline.Timeline{
		Version: timeline.Version, Name: "studio", Tool: "compositor-test", Viewport: timeline.Viewport{Width: 320, Height: 180, Scale: 2},
		Start: 0, End: at(6000), Outcome: timeline.RunOK,
		Capture:    timeline.Capture{Mode: timeline.CaptureStudio, Tab: "T1", Started: 0, Ended: at(6000), EndReason: "stopped"},
		Boundaries: []timeline.Boundary{{Document: 0, LastSeq: -1, URL: &blank, At: 0, Tab: "T1"}, {Document: 1, LastSeq: 0, URL: &site, At: at(20), Tab: "T1"}},
		Steps: []timeline.Step{
			{Index: 0, Kind: "goto", Start: 0, End: at(100), Outcome: timeline.OutcomeOK, Traits: timeline.Traits{Waits: true, ChangesPage: true}},
			{Index: 1, Kind: "click", Start: at(900), End: at(1200), Outcome: timeline.OutcomeOK, Traits: timeline.Traits{Focus: true}, Region: &timeline.Rect{X: 40, Y: 30, W: 60, H: 20}},
			{Index: 2, Kind: "type", Start: at(1500), End: at(4500), Outcome: timeline.OutcomeOK, Traits: timeline.Traits{Focus: true}, Region: box},
			{Index: 3, Kind: "pause", Start: at(4500), End: at(6000), Outcome: timeline.OutcomeOK, Traits: timeline.Traits{Presentation: true}},
		},
		Receipts: []timeline.Receipt{
			{Kind: timeline.InputMove, Tab: "T1", X: 70, Y: 40, Sent: at(1000), Acked: at(1000)},
			{Kind: timeline.InputDown, Tab: "T1", X: 70, Y: 40, Sent: at(1100), Acked: at(1100), Button: "left", Clicks: 1},
			{Kind: timeline.InputUp, Tab: "T1", X: 70, Y: 40, Sent: at(1150), Acked: at(1150), Button: "left", Clicks: 1},
			{Kind: timeline.InputMove, Tab: "T1", X: 220, Y: 115, Sent: at(3200), Acked: at(3200)},
		},
	}
	var frames []timeline.Frame
	for n := 0; n*100 < 6000; n++ {
		doc := 1
		if n == 0 {
			doc = 0
		}
		frames = append(frames, timeline.Frame{Seq: int64(n), Document: doc, Source: at(n * 100), Received: at(n * 100),
			Width: 640, Height: 360, File: timeline.FramePath(int64(n)), PageScaleFactor: 1, DeviceWidth: 320, DeviceHeight: 180})
	}
	return tl, frames
}

// writeStudioTake writes tl's take as its run leaves it at upTo on the
// take clock: the frames made by then (and those of the next 300 ms: the
// frame index runs ahead of the journal), and a journal up to upTo in which
// a step not ended by then has only started (with its element's box once
// it has sent input), without timeline.json; or, at upTo < 0, finished. It
// returns the take as rendering reads it.
func writeStudioTake(t *testing.T, tl timeline.Timeline, frames []timeline.Frame, upTo timeline.Time) *timeline.Take {
	t.Helper()
	dir := t.TempDir()
	done := upTo < 0
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for _, fr := range frames {
		if done || fr.Source < upTo+timeline.FromDuration(ms(300)) {
			b := solidJPEG(t, fr.Width, fr.Height, palette[int(fr.Seq)%len(palette)])
			fr.Bytes = len(b)
			addFrame(t, dir, log, fr, b)
			n++
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if done {
		return finishTake(t, dir, &tl, n)
	}
	j, err := timeline.CreateJournal(dir, func() timeline.Time { return upTo })
	if err != nil {
		t.Fatal(err)
	}
	j.Append(timeline.JournalRun, timeline.JournalHeader{Name: tl.Name, Tool: tl.Tool, Viewport: tl.Viewport, Started: tl.Start})
	for _, b := range tl.Boundaries {
		if b.At <= upTo {
			j.Append(timeline.JournalBoundary, b)
		}
	}
	for _, st := range tl.Steps {
		if st.Start <= upTo {
			open := st
			open.End, open.Outcome, open.Region = 0, "", nil
			j.Append(timeline.JournalStepStart, open)
			for _, r := range tl.Receipts {
				if r.Sent >= st.Start && r.Sent <= upTo && st.End > upTo {
					open.Region = st.Region // found: journaled again
					j.Append(timeline.JournalStepStart, open)
					break
				}
			}
		}
		if st.End <= upTo {
			j.Append(timeline.JournalStep, st)
		}
	}
	for _, r := range tl.Receipts {
		if r.Sent <= upTo {
			j.Append(timeline.JournalReceipt, r)
		}
	}
	j.Append(timeline.JournalCapture, timeline.JournalCaptureState{At: upTo, Tab: "T1", Mode: tl.Capture.Mode,
		Frames: timeline.Accounting{Received: n, Delivered: n, Upstream: "unknown"}})
	j.Append(timeline.JournalAlive, timeline.JournalAliveAt{At: upTo})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := timeline.Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &timeline.Take{Dir: dir, Timeline: rec}
}

// A studio take read mid-capture (recovered from its journal, as rendering
// while capturing reads it) gives its chunks the inputs the finished take
// gives them: the final render uses every chunk rendered early, and its
// video decodes to the stored render's frames. (The journal once lacked
// the capture's mode, and the video of every take read mid-capture started
// one frame off: no chunk was ever used. A chunk made while the type step
// looked for its field would lack the zoom toward it.)
func TestStudioChunksRenderedEarlyAreUsed(t *testing.T) {
	requireTool(t, "ffmpeg")
	ctx := context.Background()
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 30, 320, 180 // small: what is compared is frames, at any size
	s.Zoom.Auto = true
	tl, frames := midStudioTake()
	cache := &ChunkCache{Dir: t.TempDir() + "/chunks"}
	rendered := 0
	for _, upTo := range []int{1400, 3100, 4000, 5200} {
		n, _, err := renderEarly(ctx, writeStudioTake(t, tl, frames, timeline.FromDuration(ms(upTo))), s, cache, 0, nil)
		if err != nil {
			t.Fatalf("early at %d ms: %v", upTo, err)
		}
		rendered += n
	}
	if rendered < 3 {
		t.Fatalf("%d chunks rendered while capturing, want 3 or more", rendered)
	}
	full := writeStudioTake(t, tl, frames, -1)
	out := filepath.Join(t.TempDir(), "studio.mp4")
	if err := RenderAllCached(ctx, full, []string{out}, s, nil, cache); err != nil {
		t.Fatal(err)
	}
	if used := cache.Used.Load(); used != int64(rendered) {
		t.Fatalf("the final render used %d of the %d chunks rendered while capturing", used, rendered)
	}
	stored := filepath.Join(t.TempDir(), "stored.mp4")
	if err := Render(ctx, full, stored, s, nil); err != nil {
		t.Fatal(err)
	}
	if a, b := decodeAll(t, stored), decodeAll(t, out); len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("the video made with the early chunks decodes to other frames (%d) than the stored render (%d)", len(b), len(a))
	}
}

// TestChunkClaims: one render makes a chunk; another finds it busy, waits,
// and then finds it cached, or makes it itself when the first gave up.
func TestChunkClaims(t *testing.T) {
	c := &ChunkCache{Dir: t.TempDir()}
	if mine, wait := c.claim("k"); !mine || wait != nil {
		t.Fatalf("first claim: mine %v, wait %v; want mine", mine, wait)
	}
	mine, wait := c.claim("k")
	if mine || wait == nil {
		t.Fatalf("second claim while busy: mine %v, wait %v; want a wait", mine, wait)
	}
	got := make(chan bool)
	go func() {
		m, err := c.await(context.Background(), "k")
		if err != nil {
			t.Error(err)
		}
		got <- m
	}()
	if err := os.WriteFile(c.path("k"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.release("k")
	if <-wait; <-got {
		t.Fatal("await after the chunk was made: mine, want it cached")
	}
	if mine, wait := c.claim("k"); mine || wait != nil {
		t.Fatalf("claim of a cached chunk: mine %v, wait %v", mine, wait)
	}
	// A claim given up without the chunk made passes it on.
	c.claim("j")
	go func() { c.release("j") }()
	if m, err := c.await(context.Background(), "j"); err != nil || !m {
		t.Fatalf("await after a claim given up: mine %v, err %v; want mine", m, err)
	}
	c.release("j")
	// A wait ends with its context.
	c.claim("i")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.await(ctx, "i"); err == nil {
		t.Fatal("await with an ended context returned no error")
	}
	var none *ChunkCache
	if mine, wait := none.claim("k"); !mine || wait != nil {
		t.Fatal("a nil cache's claims are always the caller's")
	}
	none.release("k")
}

// TestEarlyTicksLookAhead: a studio take's chunks settle StudioLookAhead
// after their end, a live take's LookAhead after it.
func TestEarlyTicksLookAhead(t *testing.T) {
	sched, err := newSchedule(30, 0, timeline.FromDuration(10*time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	known := timeline.FromDuration(2 * time.Second)
	for mode, ahead := range map[string]time.Duration{"": LookAhead, timeline.CaptureLive: LookAhead, timeline.CaptureStudio: StudioLookAhead} {
		want := sched.TicksBefore(known - timeline.FromDuration(ahead))
		if got := earlyTicks(sched, known, mode); got != want {
			t.Errorf("mode %q: %d ticks settled, want %d", mode, got, want)
		}
	}
	if a, b := earlyTicks(sched, known, timeline.CaptureStudio), earlyTicks(sched, known, timeline.CaptureLive); a <= b {
		t.Errorf("studio settles %d ticks, live %d: want more for studio", a, b)
	}
}

// TestFinalRenderWaitsForChunkInHand: a chunk still being made while
// capturing when the final render starts is waited for and used, not made
// again, and the others are made meanwhile; the video is the stored
// render's.
func TestFinalRenderWaitsForChunkInHand(t *testing.T) {
	requireTool(t, "ffmpeg")
	ctx := context.Background()
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 30, 320, 180 // small: what is compared is frames, at any size
	full := liveTake(t, timeline.FromDuration(ms(8000)))
	cache := &ChunkCache{Dir: t.TempDir() + "/chunks"}
	claimed, goOn := make(chan struct{}), make(chan struct{})
	type result struct {
		n   int
		err error
	}
	early := make(chan result)
	go func() {
		first := true
		n, _, err := renderEarly(ctx, full, s, cache, 0, func() bool {
			if !first {
				return false
			}
			first = false
			close(claimed) // the first chunk is claimed: hold it in hand
			<-goOn
			return true
		})
		early <- result{n, err}
	}()
	<-claimed
	final := make(chan error)
	out := filepath.Join(t.TempDir(), "final.mp4")
	go func() { final <- RenderAllCached(ctx, full, []string{out}, s, nil, cache) }()
	select {
	case err := <-final:
		t.Fatalf("the final render ended (%v) while a chunk it needs was in hand", err)
	case <-time.After(2 * time.Second): // it makes the other chunks meanwhile
	}
	close(goOn)
	r := <-early
	if r.err != nil || r.n != 1 {
		t.Fatalf("rendering early: %d chunks, %v; want 1", r.n, r.err)
	}
	if err := <-final; err != nil {
		t.Fatal(err)
	}
	if used := cache.Used.Load(); used != 1 {
		t.Fatalf("the final render used %d chunks made early, want the one in hand", used)
	}
	if chunks := len(planChunks(240, 30)); cached(t, cache) != chunks {
		t.Fatalf("%d chunks cached, want each of the %d made once", cached(t, cache), chunks)
	}
	stored := filepath.Join(t.TempDir(), "stored.mp4")
	if err := Render(ctx, full, stored, s, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(decodeAll(t, stored), decodeAll(t, out)) {
		t.Fatal("the video made with a chunk waited for decodes to other frames than the stored render")
	}
}

// TestGIFDecodedSmaller: a GIF of a scale-2 take, decoded at half size,
// shows each frame's picture at its time, as the MP4 does.
func TestGIFDecodedSmaller(t *testing.T) {
	requireTool(t, "ffmpeg")
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 10, 640, 360
	s.GIF = GIFSettings{Width: 160, FPS: 10}
	s.Cursor.Enabled = false
	tk := liveTake(t, timeline.FromDuration(ms(8000)))
	ti, err := scanFrames(tk)
	if err != nil {
		t.Fatal(err)
	}
	gw, gh, _ := gifSize(ti.first, s)
	p, err := newPlan(tk, ti, s, 10, gw, gh)
	if err != nil {
		t.Fatal(err)
	}
	if n := gifLowres(p.geometry, p.zoom.MaxZoom()); n != 1 {
		t.Fatalf("gifLowres = %d for 640x360 pictures in a %dx%d GIF at zoom %.1f, want 1", n, gw, gh, p.zoom.MaxZoom())
	}
	dir := t.TempDir()
	gif, mp4 := filepath.Join(dir, "a.gif"), filepath.Join(dir, "a.mp4")
	if err := RenderAll(context.Background(), tk, []string{mp4, gif}, s, nil); err != nil {
		t.Fatal(err)
	}
	ks := []int{5, 22, 41, 63, 78}
	g, m := rgbFrames(t, gif, gw, gh, ks), rgbFrames(t, mp4, 640, 360, ks)
	for i, k := range ks {
		a, _ := nearest(px(g[i], gw, gw/2, gh/2))
		b, _ := nearest(px(m[i], 640, 320, 180))
		if a != b || a < 0 {
			t.Errorf("tick %d: the GIF shows palette colour %d, the MP4 %d", k, a, b)
		}
	}
}

// TestGIFOnePassSameBytes: GIFs made in one pass (their palette made in the
// same ffmpeg run, two GIFs from one paletteuse) are byte for byte the GIF
// of the two passes.
func TestGIFOnePassSameBytes(t *testing.T) {
	requireTool(t, "ffmpeg")
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 10, 640, 360
	s.GIF = GIFSettings{Width: 320, FPS: 10}
	tk := liveTake(t, timeline.FromDuration(ms(3000)))
	dir := t.TempDir()
	one, one2, two := filepath.Join(dir, "one.gif"), filepath.Join(dir, "one2.gif"), filepath.Join(dir, "two.gif")
	if !gifOnePass(30, 320, 180, s.tune.gifOnePassLimit()) {
		t.Fatal("a 3 s GIF of 320x180 at 10 fps is not made in one pass")
	}
	if err := RenderAll(context.Background(), tk, []string{one, one2}, s, nil); err != nil {
		t.Fatal(err)
	}
	s.tune.gifOnePassBytes = -1 // every GIF takes two passes
	if err := RenderAll(context.Background(), tk, []string{two}, s, nil); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(two)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the one-pass GIF (%d bytes) is not the two-pass GIF (%d bytes)", len(a), len(b))
	}
	if a2, err := os.ReadFile(one2); err != nil || !bytes.Equal(a2, a) {
		t.Errorf("the second GIF of the one pass is not the first (%d bytes, %v)", len(a2), err)
	}
}

// A take filmed live renders its MP4 in one ffmpeg run: no chunk is made,
// even with a cache to put them in, and the video has every tick.
func TestLiveTakeRendersInOneRun(t *testing.T) {
	requireTool(t, "ffmpeg")
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 30, 640, 360
	tk := liveTake(t, timeline.FromDuration(ms(8000)))
	tk.Timeline.Capture.Mode = timeline.CaptureLive
	cache := &ChunkCache{Dir: t.TempDir() + "/chunks"}
	out := t.TempDir() + "/live.mp4"
	if err := RenderAllCached(context.Background(), tk, []string{out}, s, nil, cache); err != nil {
		t.Fatal(err)
	}
	if n := cached(t, cache); n != 0 {
		t.Errorf("%d chunks made for a live take", n)
	}
	if a := decodeAll(t, out); len(a) != 240 || !strings.HasPrefix(a[0], rgbFrame(640, 360)+" ") {
		t.Errorf("the live take's video decodes to %d frames (the first %v), want 240 of 640x360", len(a), a[:min(1, len(a))])
	}
}
