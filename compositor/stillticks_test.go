package compositor

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// exprLeaf mirrors one of zoompanExprs' leaves at tick k, in the order
// ffmpeg evaluates it: a constant, or a + (b-a)*smoothstep(clip).
func exprLeaf(a, b float64, sg *zoomSeg, k int) float64 {
	if sg == nil || sg.K1 <= sg.K0 || a == b {
		return b
	}
	u := min(max(float64(k-sg.K0)/float64(sg.K1-sg.K0), 0), 1)
	return a + (b-a)*(u*u*(3-2*u))
}

// exprValues mirrors zoompanExprs' z, x and y (before the -iw/zoom/2
// terms) at tick k: the leaf of the last segment started at or before k.
func exprValues(zt *ZoomTrack, k int) [3]float64 {
	i := -1
	for j, sg := range zt.segs {
		if sg.K0 <= k {
			i = j
		}
	}
	if i < 0 {
		b := zt.base
		return [3]float64{b.Z, b.CX, b.CY}
	}
	sg := &zt.segs[i]
	return [3]float64{
		exprLeaf(sg.From.Z, sg.To.Z, sg, k),
		exprLeaf(sg.From.CX, sg.To.CX, sg, k),
		exprLeaf(sg.From.CY, sg.To.CY, sg, k),
	}
}

// randomTrack is a camera of up to four segments over n ticks, some
// interrupting others, some standing still, some starting before tick 0
// (as a chunk's cut track does).
func randomTrack(r *rand.Rand, n int) *ZoomTrack {
	state := func() zoomState {
		if r.Intn(4) == 0 {
			return zoomState{1, 640, 360}
		}
		return zoomState{1 + float64(r.Intn(20))/10, float64(r.Intn(1280)), float64(r.Intn(720))}
	}
	zt := &ZoomTrack{base: zoomState{1, 640, 360}}
	k := r.Intn(n/2+1) - n/4
	for i := r.Intn(5); i > 0 && k <= n; i-- {
		from := zt.At(k)
		to := state()
		if r.Intn(5) == 0 {
			to = from
		}
		zt.segs = append(zt.segs, zoomSeg{K0: k, K1: k + r.Intn(30), From: from, To: to})
		k += 1 + r.Intn(n/2+1)
	}
	return zt
}

// Between two kept ticks, every tick of a run has the frame and the camera
// of the tick before: the same capture frame (no run starts there) and
// the same z, x and y, to the bit. Checked over random cameras and runs.
func TestKeptTicksCoverEveryChange(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for trial := 0; trial < 5000; trial++ {
		n := 1 + r.Intn(90)
		zt := randomTrack(r, n)
		var starts []int
		for k := 0; k < n; k++ {
			if r.Intn(4) == 0 {
				starts = append(starts, k)
			}
		}
		kept := keptTicks(starts, zt, n)
		if !slices.IsSorted(kept) || len(slices.Compact(slices.Clone(kept))) != len(kept) {
			t.Fatalf("keptTicks = %v: not sorted without repeats", kept)
		}
		if kept[0] != 0 || kept[len(kept)-1] != n {
			t.Fatalf("keptTicks = %v: want tick 0 and the closing tick %d", kept, n)
		}
		for k := 1; k <= n; k++ {
			if slices.Contains(kept, k) {
				continue
			}
			if slices.Contains(starts, k) {
				t.Fatalf("trial %d: tick %d starts a frame but is not kept (%v)", trial, k, kept)
			}
			if a, b := exprValues(zt, k-1), exprValues(zt, k); a != b {
				t.Fatalf("trial %d: the camera moves at tick %d (%v -> %v) but it is not kept (segs %+v, kept %v)", trial, k, a, b, zt.segs, kept)
			}
		}
	}
}

func TestKeptTicks(t *testing.T) {
	held := &ZoomTrack{base: zoomState{1, 640, 360}, segs: []zoomSeg{{From: zoomState{1, 640, 360}, To: zoomState{1, 640, 360}}}}
	easing := &ZoomTrack{base: zoomState{1, 640, 360}, segs: []zoomSeg{{K0: -3, K1: 2, From: zoomState{1, 640, 360}, To: zoomState{2, 600, 300}}, {K0: 50, K1: 53, From: zoomState{2, 600, 300}, To: zoomState{1, 640, 360}}}}
	for _, c := range []struct {
		name   string
		starts []int
		zt     *ZoomTrack
		n      int
		want   []int
	}{
		{"held camera", []int{0, 10, 30}, held, 60, []int{0, 10, 30, 60}},
		{"easing in and out", []int{0, 20}, easing, 60, []int{0, 1, 2, 20, 50, 51, 52, 53, 60}},
		{"an easing past the end", nil, easing, 51, []int{0, 1, 2, 50, 51}},
		{"starts out of range", []int{-1, 5, 61}, held, 60, []int{0, 5, 60}},
	} {
		if got := keptTicks(c.starts, c.zt, c.n); !slices.Equal(got, c.want) {
			t.Errorf("%s: keptTicks = %v, want %v", c.name, got, c.want)
		}
	}
}

// evalExpr evaluates the expressions selectExpr and tickPTSExpr write:
// if, lt, between, eq, (N+d), N, n and integers.
func evalExpr(t *testing.T, e string, v int) int {
	t.Helper()
	e = strings.TrimSpace(e)
	if e == "n" || e == "N" {
		return v
	}
	if x, err := strconv.Atoi(e); err == nil {
		return x
	}
	if strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") {
		inner := e[1 : len(e)-1]
		if i := strings.LastIndex(inner, "+"); i > 0 {
			return evalExpr(t, inner[:i], v) + evalExpr(t, inner[i+1:], v)
		}
	}
	open := strings.IndexByte(e, '(')
	if open < 0 || !strings.HasSuffix(e, ")") {
		t.Fatalf("cannot evaluate %q", e)
	}
	name, body := e[:open], e[open+1:len(e)-1]
	var args []string
	depth, last := 0, 0
	for i, c := range body {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				args = append(args, body[last:i])
				last = i + 1
			}
		}
	}
	args = append(args, body[last:])
	b := func(ok bool) int {
		if ok {
			return 1
		}
		return 0
	}
	switch {
	case name == "if" && len(args) == 3:
		if evalExpr(t, args[0], v) != 0 {
			return evalExpr(t, args[1], v)
		}
		return evalExpr(t, args[2], v)
	case name == "lt" && len(args) == 2:
		return b(evalExpr(t, args[0], v) < evalExpr(t, args[1], v))
	case name == "eq" && len(args) == 2:
		return b(evalExpr(t, args[0], v) == evalExpr(t, args[1], v))
	case name == "between" && len(args) == 3:
		x := evalExpr(t, args[0], v)
		return b(x >= evalExpr(t, args[1], v) && x <= evalExpr(t, args[2], v))
	}
	t.Fatalf("cannot evaluate %q", e)
	return 0
}

// selectExpr keeps exactly the kept ticks, and tickPTSExpr gives the N-th
// kept frame its tick, over random sets of ticks.
func TestStillTickExprs(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + r.Intn(120)
		kept := []int{0}
		for k := 1; k < n; k++ {
			if r.Intn(3) == 0 {
				kept = append(kept, k)
			}
		}
		kept = append(kept, n)
		sel := selectExpr(kept)
		for k := 0; k <= n+2; k++ {
			if got, want := evalExpr(t, sel, k) != 0, slices.Contains(kept, k); got != want {
				t.Fatalf("select %q at n=%d: %v, want %v (kept %v)", sel, k, got, want, kept)
			}
		}
		pts := tickPTSExpr(kept, 60)
		body, ok := strings.CutSuffix(pts, "/(60*TB)")
		if !ok {
			t.Fatalf("tickPTSExpr = %q: want .../(60*TB)", pts)
		}
		for i, k := range kept {
			if got := evalExpr(t, body, i); got != k {
				t.Fatalf("setpts %q at N=%d: %d, want tick %d (kept %v)", body, i, got, k, kept)
			}
		}
	}
}

// stillTake is a 4-second take of textured frames (so that where the
// camera looks shows in every pixel): one every 150 ms, a burst of one a
// tick around a second in, a zoom that another interrupts while it eases,
// and a reset.
func stillTake(t *testing.T) *timeline.Take {
	t.Helper()
	const w, h = 640, 360
	dir := t.TempDir()
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	var times []time.Duration
	for at := time.Duration(0); at < 4*time.Second; at += 150 * time.Millisecond {
		times = append(times, at)
	}
	for at := 1000 * time.Millisecond; at < 1300*time.Millisecond; at += time.Second / 60 {
		times = append(times, at+time.Millisecond)
	}
	slices.Sort(times)
	for i, at := range times {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.RGBA{uint8(x*3 + i*7), uint8(y*5 + x), uint8((x/16+y/16)%2*200 + i), 255}
				if x > 40+i*9 && x < 90+i*9 && y > 60 && y < 140 {
					c = color.RGBA{250, 250, 250, 255}
				}
				img.SetRGBA(x, y, c)
			}
		}
		b := encodeJPEG(t, img)
		fr := timeline.Frame{Seq: int64(i + 1), Source: timeline.FromDuration(at), Received: timeline.FromDuration(at + ms(3)),
			Width: w, Height: h, Bytes: len(b), File: timeline.FramePath(int64(i + 1)),
			PageScaleFactor: 1, DeviceWidth: 320, DeviceHeight: 180}
		addFrame(t, dir, log, fr, b)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	tl := timeline.Timeline{
		Name: "still", Tool: "compositor-test", Outcome: timeline.RunOK,
		Viewport: timeline.Viewport{Width: 320, Height: 180, Scale: 2}, Start: 0, End: at(4000),
		Capture: timeline.Capture{Tab: "T1", Started: 0, Ended: at(4000), EndReason: "stopped"},
		Receipts: []timeline.Receipt{
			{Kind: timeline.InputMove, Tab: "T1", X: 40, Y: 30, Sent: at(200), Acked: at(201)},
			{Kind: timeline.InputMove, Tab: "T1", X: 200, Y: 120, Sent: at(1900), Acked: at(1901)},
		},
		Steps: []timeline.Step{
			{Index: 0, Kind: "zoom", Region: &timeline.Rect{X: 30, Y: 20, W: 80, H: 50}, Scale: 2, Duration: ms(400), Start: at(800), End: at(800), Outcome: "ok"},
			{Index: 1, Kind: "zoom", Region: &timeline.Rect{X: 180, Y: 100, W: 60, H: 40}, Scale: 2.5, Duration: ms(500), Start: at(1000), End: at(1000), Outcome: "ok"},
			{Index: 2, Kind: "zoom", Scale: 1, Duration: ms(300), Start: at(2900), End: at(2900), Outcome: "ok"},
		},
	}
	return finishTake(t, dir, &tl, int64(len(times)))
}

// A chunked render zooms only the ticks that can change, and its video is
// the one zooming every tick makes, decoded frame for frame the same.
// graphLoggingFFmpeg writes into dir an ffmpeg that notes each run's
// filter graph, inline or in a script, in the file graphs, and runs
// ffmpeg.
func graphLoggingFFmpeg(t *testing.T, dir string) (wrapper, graphs string) {
	t.Helper()
	ff := requireTool(t, "ffmpeg")
	graphs = filepath.Join(dir, "graphs")
	wrapper = filepath.Join(dir, "ffmpeg")
	script := "#!/bin/sh\nprev=\nfor a in \"$@\"; do\n  case \"$prev\" in\n    -filter_complex) printf '%s\\n' \"$a\" >> '" + graphs + "';;\n    -filter_complex_script) cat \"$a\" >> '" + graphs + "'; echo >> '" + graphs + "';;\n  esac\n  prev=$a\ndone\nexec '" + ff + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper, graphs
}

// renderFlagged renders tk to out with s (whose ffmpeg is a
// graphLoggingFFmpeg writing graphs) and *flag set to on, restored after,
// and returns the decoded frames and the graphs of its ffmpeg runs.
func renderFlagged(t *testing.T, tk *timeline.Take, s Settings, set func(*Settings, bool), on bool, out, graphs string) ([]string, string) {
	t.Helper()
	set(&s, on)
	os.Remove(graphs)
	if err := Render(context.Background(), tk, out, s, nil); err != nil {
		t.Fatal(err)
	}
	g, err := os.ReadFile(graphs)
	if err != nil {
		t.Fatal(err)
	}
	return decodeAll(t, out), string(g)
}

func TestStillTicksSameVideo(t *testing.T) {
	tk := stillTake(t)
	dir := t.TempDir()
	wrapper, graphs := graphLoggingFFmpeg(t, dir)
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 60, 640, 360
	s.FFmpeg = wrapper
	render := func(still bool) ([]string, string) {
		return renderFlagged(t, tk, s, zoomStill, still, filepath.Join(dir, fmt.Sprintf("still-%v.mp4", still)), graphs)
	}
	every, everyGraphs := render(false)
	still, stillGraphs := render(true)
	if len(every) != 240 || !strings.HasPrefix(every[0], rgbFrame(640, 360)+" ") {
		t.Fatalf("the render decodes to %d frames (the first %v), want 240 of 640x360", len(every), every[:min(1, len(every))])
	}
	if strings.Contains(everyGraphs, "select=") {
		t.Fatalf("zooming every tick, a graph selects ticks:\n%s", everyGraphs)
	}
	// Every chunk is zoomed (the camera moves in the first), and each
	// zooms only its kept ticks.
	chunks := len(planChunks(240, 60))
	if n, m := strings.Count(stillGraphs, "zoompan="), strings.Count(stillGraphs, "select=expr="); n != chunks || m != n {
		t.Fatalf("%d chunk graphs zoom and %d select their ticks, want %d and %d:\n%s", n, m, chunks, chunks, stillGraphs)
	}
	for k := range min(len(every), len(still)) {
		if every[k] != still[k] {
			t.Fatalf("frame %d differs between zooming every tick and zooming the ticks that can change", k)
		}
	}
	if len(still) != len(every) {
		t.Fatalf("zooming the ticks that can change made %d frames, zooming every tick %d", len(still), len(every))
	}
}
