package compositor

import (
	"context"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// studioTake is 3 s of 640x360 frames (320x180 CSS at scale 2) whose left
// half is one colour and right half another, with steps for every studio
// feature: a caption, two chapters, a zoom onto the right half, a hidden
// step (1.0-1.5 s, cut), keys including a secret, navigations.
func studioTake(t testing.TB) *timeline.Take {
	t.Helper()
	dir := t.TempDir()
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	u1, u2 := "http://127.0.0.1:8080/", "http://127.0.0.1:8080/checkout?step=2"
	tl := timeline.Timeline{
		Name: "studio", Viewport: timeline.Viewport{Width: 320, Height: 180, Scale: 2},
		Start: 0, End: at(3000),
		Capture: timeline.Capture{Tab: "T1", Started: 0, Ended: at(3000), EndReason: "stopped"},
		Steps: []timeline.Step{
			{Index: 0, Kind: "chapter", Text: "Start", Start: at(0), End: at(0), Outcome: "ok"},
			{Index: 1, Kind: "caption", Text: "Welcome <b>&", Start: at(100), End: at(100), Duration: ms(600), Outcome: "ok"},
			{Index: 2, Kind: "type", Traits: timeline.Traits{ChangesPage: true, Focus: true}, Label: "secret", Start: at(1000), End: at(1500), Hidden: true, Outcome: "ok"},
			{Index: 3, Kind: "chapter", Text: "Checkout", Start: at(1600), End: at(1600), Outcome: "ok"},
			{Index: 4, Kind: "zoom", Region: &timeline.Rect{X: 220, Y: 40, W: 80, H: 90}, Scale: 2.5, Duration: ms(400), Start: at(1800), End: at(1800), Outcome: "ok"},
		},
		Receipts: []timeline.Receipt{
			{Kind: "move", Tab: "T1", X: 60, Y: 50, Sent: at(200)},
			{Kind: "key", Tab: "T1", Type: "keyDown", Key: "h", Sent: at(300)},
			{Kind: "key", Tab: "T1", Type: "keyDown", Key: "i", Sent: at(400)},
			{Kind: "key", Tab: "T1", Type: "keyDown", Key: "•", Sent: at(1200)},
			{Kind: "move", Tab: "T1", X: 240, Y: 90, Sent: at(1700), Cursor: "pointer"},
		},
		Boundaries: []timeline.Boundary{{Document: 0, LastSeq: -1, URL: &u1, At: 0}, {Document: 1, LastSeq: 3, URL: &u2, At: at(1600)}},
	}
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	left, right := palette[0], palette[2]
	img := image.NewRGBA(image.Rect(0, 0, 640, 360))
	for y := 0; y < 360; y++ {
		for x := 0; x < 640; x++ {
			c := left
			if x >= 320 {
				c = right
			}
			img.Set(x, y, c)
		}
	}
	b := encodeJPEG(t, img)
	times := []int{0, 400, 900, 1200, 1700, 2300}
	for i, ms := range times {
		fr := timeline.Frame{Seq: int64(i + 1), Source: at(ms), Received: at(ms + 2), Width: 640, Height: 360,
			Bytes: len(b), File: timeline.FramePath(int64(i + 1)), Document: map[bool]int{true: 1}[ms >= 1600]}
		addFrame(t, dir, log, fr, b)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	tl.Tool, tl.Outcome = "compositor-test", "ok"
	return finishTake(t, dir, &tl, int64(len(times)))
}

func TestRenderStudio(t *testing.T) {
	requireTool(t, "ffmpeg")
	tk := studioTake(t)
	dir := t.TempDir()
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 25, 480, 320
	if err := withOptions(&s, map[string]any{
		"keys": true, "captions": "both", "step_labels": false,
		"frame":  map[string]any{"padding": 16, "radius": 10, "bar": true, "background": "#202040..#204060"},
		"gif":    map[string]any{"width": 240, "fps": 10},
		"cursor": map[string]any{"smoothing": "spring"},
	}); err != nil {
		t.Fatal(err)
	}
	outs := []string{filepath.Join(dir, "demo.mp4"), filepath.Join(dir, "demo.webm"), filepath.Join(dir, "demo.gif"), filepath.Join(dir, "shots.png")}
	var last [2]int
	start := time.Now()
	if err := RenderAll(context.Background(), tk, outs, s, func(d, n int) { last = [2]int{d, n} }); err != nil {
		t.Fatal(err)
	}
	t.Logf("rendered in %v", time.Since(start))
	// 3 s minus the 0.5 s cut: 2.5 s = 62.5 -> 63 ticks at 25 fps
	// (rounded), GIF 25 ticks in its one pass.
	if last[0] != last[1] || last[1] != 63+25 {
		t.Errorf("progress ended %v, want 88/88", last)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "demo.chapters.vtt demo.gif demo.mp4 demo.vtt demo.webm shots"
	if strings.Join(names, " ") != want {
		t.Errorf("files = %v, want %s", names, want)
	}
	for _, f := range []struct {
		file, codec string
		w, h        int
	}{{"demo.mp4", "h264", 480, 320}, {"demo.webm", "vp9", 480, 320}, {"demo.gif", "gif", 240, 160}} {
		p := probe(t, filepath.Join(dir, f.file))
		if st := p.Streams[0]; st.CodecName != f.codec || st.Width != f.w || st.Height != f.h {
			t.Errorf("%s: %+v, want %s %dx%d", f.file, st, f.codec, f.w, f.h)
		}
	}
	p := probe(t, filepath.Join(dir, "demo.mp4"))
	if n := p.Streams[0].NbReadFrame; n != "63" {
		t.Errorf("mp4 has %s frames, want 63 (the hidden step cut)", n)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "shots", "*.png"))
	if len(pngs) != 63 {
		t.Errorf("%d png frames, want 63", len(pngs))
	}
	vtt, _ := os.ReadFile(filepath.Join(dir, "demo.vtt"))
	if !strings.Contains(string(vtt), "00:00:00.120 --> 00:00:00.720\nWelcome &lt;b&gt;&amp;") {
		t.Errorf("captions vtt:\n%s", vtt)
	}
	chap, _ := os.ReadFile(filepath.Join(dir, "demo.chapters.vtt"))
	// Checkout at 1.6 s is 1.1 s into the video once 0.5 s is cut.
	if !strings.Contains(string(chap), "00:00:00.000 --> 00:00:01.120\nStart") || !strings.Contains(string(chap), "00:00:01.120 --> 00:00:02.520\nCheckout") {
		t.Errorf("chapters vtt:\n%s", chap)
	}
	out, err := execOutput(t, "ffprobe", "-v", "error", "-show_entries", "chapter=start_time,end_time:chapter_tags=title", "-of", "csv=p=0", filepath.Join(dir, "demo.mp4"))
	if err != nil || !strings.Contains(out, "Checkout") || !strings.Contains(out, "1.120000") {
		t.Errorf("mp4 chapters: %q %v", out, err)
	}

	g, _ := layout(640, 360, tk.Timeline.Viewport, 480, 320, "contain", s.Frame)
	// Tick 10 (0.4 s): unzoomed; left half colour at the content's left,
	// right half colour at its right; the background outside the window.
	// Tick 50 (take 2.5 s, inside the zoom onto the right half): all right colour.
	fs := rgbFrames(t, filepath.Join(dir, "demo.mp4"), 480, 320, []int{10, 50})
	cy := g.ContentY + g.ContentH/2
	if got, _ := nearest(px(fs[0], 480, g.ContentX+20, cy)); got != 0 {
		t.Errorf("tick 10 left: palette %d, want 0", got)
	}
	if got, _ := nearest(px(fs[0], 480, g.ContentX+g.ContentW-20, cy)); got != 2 {
		t.Errorf("tick 10 right: palette %d, want 2", got)
	}
	bg := px(fs[0], 480, 4, 4)
	if dist(bg, color.RGBA{0x20, 0x20, 0x40, 255}) > 30 {
		t.Errorf("frame background at the corner = %v, want near #202040", bg)
	}
	if got, _ := nearest(px(fs[1], 480, g.ContentX+20, cy)); got != 2 {
		t.Errorf("tick 50 (zoomed onto the right half) left edge: palette %d, want 2", got)
	}
	// The pointer hand at CSS (240,90), moved by the camera.
	hx, hy := g.ZoomedPoint(zoomState{2.5, 260, 85}, 240, 90)
	ppc := g.PixelsPerCSS()
	x0 := int(hx - 5.5*ppc)
	minX, minY, white, dark, _ := cursorBox(fs[1], 480, 320, palette[2], x0-6, int(hy)-6, x0+30, int(hy)+30)
	if !white || !dark || abs(minX-x0) > 3 || abs(minY-int(hy)) > 3 {
		t.Errorf("zoomed hand cursor: box at (%d,%d) white %v dark %v, want near (%d,%.0f)", minX, minY, white, dark, x0, hy)
	}
}

// TestRenderLongGraph renders with many zoom steps through a filter graph
// file, as a long take's graph (over maxInlineGraph) is passed.
func TestRenderLongGraph(t *testing.T) {
	requireTool(t, "ffmpeg")
	tk := demoTake(t)
	tl := tk.Timeline
	for i := 0; i < 12; i++ {
		tl.Steps = append(tl.Steps, timeline.Step{Kind: "zoom", Start: msT(100 + i*150), Duration: ms(100), Scale: 1.5 + float64(i%3)/2,
			Region: &timeline.Rect{X: float64(20 * i), Y: 40, W: 40, H: 40}})
	}
	s := DefaultSettings()
	s.Zoom.Ease = 60 * time.Millisecond
	s.tune.maxInlineGraph = 256
	sched, _ := newSchedule(30, tl.Start, tl.End, nil)
	g, _ := newGeometry(640, 360, tl.Viewport, 0, 0)
	zt := newZoomTrack(zoomShots(tl, s.Zoom), sched, tl.Viewport, s.Zoom.Ease)
	args, graph, err := buildArgs(encodeSpec{FPS: 30, Ticks: 300, Geometry: g, Zoom: zt, GraphFile: "/w/graph.txt",
		Outputs: []outputSpec{{Format: formatMP4, Path: "/o/x.mp4", CRF: 20, Preset: "veryfast"}}, tune: s.tune})
	if err != nil || !strings.Contains(strings.Join(args, " "), "-filter_complex_script /w/graph.txt") || !strings.Contains(graph, "zoompan") {
		t.Fatalf("args %v err %v", args, err)
	}
	out := filepath.Join(t.TempDir(), "z.mp4")
	if err := Render(context.Background(), tk, out, s, nil); err != nil {
		t.Fatal(err)
	}
	if n := probe(t, out).Streams[0].NbReadFrame; n != "60" {
		t.Errorf("%s frames, want 60", n)
	}
}
