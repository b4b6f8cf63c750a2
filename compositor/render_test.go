package compositor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

var palette = []color.RGBA{
	{200, 60, 60, 255}, {60, 170, 60, 255}, {60, 90, 200, 255},
	{200, 180, 50, 255}, {160, 60, 180, 255}, {50, 170, 170, 255},
}

// demoTake is 2 s of 640x360 frames (a 320x180 viewport at scale 2) at
// irregular source times, with pointer receipts.
func demoTake(t testing.TB) *timeline.Take {
	frames := []synthFrame{
		{ms(50), palette[0]}, {ms(310), palette[1]}, {ms(520), palette[2]},
		{ms(970), palette[3]}, {ms(1400), palette[4]}, {ms(1710), palette[5]},
	}
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	tl := timeline.Timeline{
		Name: "demo", Viewport: timeline.Viewport{Width: 320, Height: 180, Scale: 2},
		Start: 0, End: at(2000),
		Capture: timeline.Capture{Tab: "T1", Started: 0, Ended: at(2000), EndReason: "stopped"},
		Receipts: []timeline.Receipt{
			{Kind: timeline.InputMove, Tab: "T1", X: 40, Y: 30, Sent: at(200), Acked: at(201)},
			{Kind: timeline.InputMove, Tab: "T1", X: 100, Y: 60, Sent: at(600), Acked: at(601)},
			{Kind: timeline.InputMove, Tab: "T1", X: 200, Y: 120, Sent: at(990), Acked: at(991)},
			{Kind: timeline.InputDown, Tab: "T1", X: 200, Y: 120, Sent: at(1000), Acked: at(1002), Button: "left", Clicks: 1},
			{Kind: timeline.InputUp, Tab: "T1", X: 200, Y: 120, Sent: at(1100), Acked: at(1102), Button: "left", Clicks: 1},
			{Kind: timeline.InputMove, Tab: "T1", X: 250, Y: 150, Sent: at(1500), Acked: at(1501)},
		},
	}
	return writeTake(t, t.TempDir(), 640, 360, frames, tl)
}

type probeInfo struct {
	Streams []struct {
		CodecName   string `json:"codec_name"`
		PixFmt      string `json:"pix_fmt"`
		Width       int    `json:"width"`
		Height      int    `json:"height"`
		RFrameRate  string `json:"r_frame_rate"`
		ColorSpace  string `json:"color_space"`
		NbReadFrame string `json:"nb_read_frames"`
	} `json:"streams"`
	Format struct {
		Duration   string `json:"duration"`
		FormatName string `json:"format_name"`
	} `json:"format"`
}

func probe(t *testing.T, file string) probeInfo {
	t.Helper()
	ffprobe := requireTool(t, "ffprobe")
	out, err := exec.Command(ffprobe, "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,pix_fmt,width,height,r_frame_rate,color_space,nb_read_frames:format=duration,format_name",
		"-of", "json", file).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", file, err)
	}
	var p probeInfo
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Streams) != 1 {
		t.Fatalf("ffprobe: %d video streams", len(p.Streams))
	}
	return p
}

// decodeFrames decodes the given output frame numbers of file as raw
// pictures of pixel format pix, one after the other.
func decodeFrames(t *testing.T, file, pix string, ks []int) []byte {
	t.Helper()
	ff := requireTool(t, "ffmpeg")
	var sel []string
	for _, k := range ks {
		sel = append(sel, fmt.Sprintf("eq(n\\,%d)", k))
	}
	cmd := exec.Command(ff, "-v", "error", "-i", file, "-vf", "select="+strings.Join(sel, "+"),
		"-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", pix, "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("decode %s: %v: %s", file, err, stderr.String())
	}
	return out
}

// rgbFrames decodes the given output frame numbers to RGB.
func rgbFrames(t *testing.T, file string, w, h int, ks []int) [][]byte {
	t.Helper()
	out := decodeFrames(t, file, "rgb24", ks)
	size := w * h * 3
	if len(out) != size*len(ks) {
		t.Fatalf("decoded %d bytes, want %d frames of %d", len(out), len(ks), size)
	}
	var fs [][]byte
	for i := range ks {
		fs = append(fs, out[i*size:(i+1)*size])
	}
	return fs
}

func px(f []byte, w, x, y int) color.RGBA {
	i := (y*w + x) * 3
	return color.RGBA{f[i], f[i+1], f[i+2], 255}
}

func dist(a, b color.RGBA) float64 {
	dr, dg, db := float64(a.R)-float64(b.R), float64(a.G)-float64(b.G), float64(a.B)-float64(b.B)
	return math.Sqrt(dr*dr + dg*dg + db*db)
}

// nearest returns the palette index closest to c.
func nearest(c color.RGBA) (int, float64) {
	best, bd := -1, math.Inf(1)
	for i, p := range palette {
		if d := dist(c, p); d < bd {
			best, bd = i, d
		}
	}
	return best, bd
}

// cursorBox returns the bounding box of pixels that differ from bg in the
// window [x0,x1)x[y0,y1), and whether it holds a near-white and a dark pixel.
func cursorBox(f []byte, w, h int, bg color.RGBA, x0, y0, x1, y1 int) (minX, minY int, white, dark, any bool) {
	minX, minY = math.MaxInt, math.MaxInt
	for y := max(y0, 0); y < min(y1, h); y++ {
		for x := max(x0, 0); x < min(x1, w); x++ {
			c := px(f, w, x, y)
			if dist(c, bg) < 60 {
				continue
			}
			any = true
			minX, minY = min(minX, x), min(minY, y)
			if c.R > 220 && c.G > 220 && c.B > 220 {
				white = true
			}
			if c.R < 70 && c.G < 70 && c.B < 70 {
				dark = true
			}
		}
	}
	return
}

// darkTip returns the smallest x and y of the cursor's dark body in a box.
func darkTip(f []byte, w, x0, y0, x1, y1 int) (int, int) {
	minX, minY := math.MaxInt, math.MaxInt
	for y := max(y0, 0); y < y1 && (y+1)*w*3 <= len(f); y++ {
		for x := max(x0, 0); x < min(x1, w); x++ {
			if c := px(f, w, x, y); c.R < 70 && c.G < 70 && c.B < 70 {
				minX, minY = min(minX, x), min(minY, y)
			}
		}
	}
	return minX, minY
}

func TestRenderIntegration(t *testing.T) {
	requireTool(t, "ffmpeg")
	tk := demoTake(t)
	before := snapshot(t, tk.Dir)
	out := filepath.Join(t.TempDir(), "demo.mp4")
	var calls, lastDone, lastTotal int
	err := Render(context.Background(), tk, out, DefaultSettings(), func(done, total int) {
		calls++
		if done < lastDone || done > total {
			t.Errorf("progress went %d -> %d of %d", lastDone, done, total)
		}
		lastDone, lastTotal = done, total
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || lastDone != 60 || lastTotal != 60 {
		t.Errorf("progress: %d calls, last %d/%d, want ending 60/60", calls, lastDone, lastTotal)
	}
	if after := snapshot(t, tk.Dir); after != before {
		t.Errorf("the take changed:\n%s\n->\n%s", before, after)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*partial*")); len(leftovers) > 0 {
		t.Errorf("partial files left: %v", leftovers)
	}

	p := probe(t, out)
	st := p.Streams[0]
	if st.CodecName != "h264" || st.PixFmt != "yuv420p" || st.Width != 640 || st.Height != 360 || st.RFrameRate != "30/1" || st.ColorSpace != "bt709" {
		t.Errorf("stream = %+v, want h264 yuv420p 640x360 30/1 bt709", st)
	}
	if n, _ := strconv.Atoi(st.NbReadFrame); n != 60 {
		t.Errorf("decoded %s frames, want 60", st.NbReadFrame)
	}
	if d, _ := strconv.ParseFloat(p.Format.Duration, 64); math.Abs(d-2.0) > 1.0/30 {
		t.Errorf("duration %s, want 2.0 within a frame", p.Format.Duration)
	}

	// Which source frame each tick shows (tick k at k/30 s), and where the
	// cursor is (CSS px; scale 2 in the output), or -1 when hidden.
	checks := []struct {
		k, frame   int
		cssX, cssY float64
	}{
		{0, 0, -1, -1},   // before the first frame (50ms): the first frame, no cursor yet
		{3, 0, -1, -1},   // 100ms
		{9, 0, 40, 30},   // 300ms: frame 1 arrives at 310
		{10, 1, 40, 30},  // 333ms
		{24, 2, 100, 60}, // 800ms
		{42, 4, 200, 120},
		{50, 4, 250, 150}, // 1667ms
		{59, 5, 250, 150},
	}
	var ks []int
	for _, c := range checks {
		ks = append(ks, c.k)
	}
	frames := rgbFrames(t, out, 640, 360, ks)
	for i, c := range checks {
		f := frames[i]
		// Sample a corner away from the cursor for the frame colour.
		got, d := nearest(px(f, 640, 600, 10))
		if got != c.frame || d > 40 {
			t.Errorf("tick %d shows palette %d (distance %.0f), want frame %d", c.k, got, d, c.frame)
		}
		bg := palette[c.frame]
		if c.cssX < 0 {
			if _, _, _, _, any := cursorBox(f, 640, 360, bg, 0, 0, 640, 360); any {
				t.Errorf("tick %d: something drawn before the first pointer receipt", c.k)
			}
			continue
		}
		ox, oy := int(c.cssX*2), int(c.cssY*2)
		minX, minY, white, dark, _ := cursorBox(f, 640, 360, bg, ox-8, oy-8, ox+40, oy+50)
		if !white || !dark {
			t.Errorf("tick %d: no cursor near (%d,%d): white %v dark %v", c.k, ox, oy, white, dark)
			continue
		}
		if abs(minX-ox) > 3 || abs(minY-oy) > 3 {
			t.Errorf("tick %d: cursor tip at (%d,%d), want (%d,%d) within 3 px", c.k, minX, minY, ox, oy)
		}
		// The hotspot: the arrow's dark body starts at the commanded point
		// (the white outline lies just outside it).
		if dx, dy := darkTip(f, 640, ox-8, oy-8, ox+40, oy+50); abs(dx-ox) > 2 || abs(dy-oy) > 2 {
			t.Errorf("tick %d: hotspot at (%d,%d), want (%d,%d) within 2 px", c.k, dx, dy, ox, oy)
		}
	}

	// The ripple: 100-200 ms after the press at (400,240) output px, pixels
	// change left of the tip, where the arrow never draws.
	rf := rgbFrames(t, out, 640, 360, []int{33})[0]
	if _, _, _, _, any := cursorBox(rf, 640, 360, palette[3], 400-60, 240-60, 400-4, 240+60); !any {
		t.Error("tick 33: no click ripple left of the press")
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// snapshot lists a folder's files with sizes and modification times.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRenderLetterbox(t *testing.T) {
	requireTool(t, "ffmpeg")
	tk := demoTake(t)
	out := filepath.Join(t.TempDir(), "square.mp4")
	s := DefaultSettings()
	s.Width, s.Height, s.FPS = 240, 240, 25
	if err := Render(context.Background(), tk, out, s, nil); err != nil {
		t.Fatal(err)
	}
	p := probe(t, out)
	if st := p.Streams[0]; st.Width != 240 || st.Height != 240 || st.RFrameRate != "25/1" {
		t.Errorf("stream = %+v, want 240x240 25/1", st)
	}
	if n, _ := strconv.Atoi(p.Streams[0].NbReadFrame); n != 50 {
		t.Errorf("%s frames, want 50", p.Streams[0].NbReadFrame)
	}
	// Content 240x136 at y=52: black bars above and below, tick 20 (800ms)
	// shows frame 2 with the cursor at CSS (100,60) -> (75, 52+45).
	f := rgbFrames(t, out, 240, 240, []int{20})[0]
	if c := px(f, 240, 120, 10); dist(c, color.RGBA{0, 0, 0, 255}) > 30 {
		t.Errorf("letterbox bar = %v, want black", c)
	}
	if got, _ := nearest(px(f, 240, 220, 60)); got != 2 {
		t.Errorf("content shows palette %d, want 2", got)
	}
	minX, minY, white, _, _ := cursorBox(f, 240, 240, palette[2], 70, 90, 100, 130)
	if !white || abs(minX-75) > 2 || abs(minY-97) > 2 {
		t.Errorf("letterboxed cursor tip at (%d,%d) white %v, want (75,97)", minX, minY, white)
	}
}

func TestRenderFFmpegFails(t *testing.T) {
	tk := demoTake(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-ffmpeg")
	script := "#!/bin/sh\nfor a; do case \"$a\" in *.mp4) out=\"$a\";; esac; done\necho partial > \"$out\"\n" +
		"i=0; while [ $i -lt 300 ]; do echo \"noise line $i\" >&2; i=$((i+1)); done\n" +
		"echo 'Error: fake encoder exploded' >&2\nexit 3\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.FFmpeg = fake
	out := filepath.Join(dir, "out", "x.mp4")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Render(context.Background(), tk, out, s, nil)
	var fe *FFmpegError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want *FFmpegError", err)
	}
	if fe.Code != 3 || !strings.Contains(fe.StderrTail, "fake encoder exploded") || !strings.Contains(err.Error(), "fake encoder exploded") {
		t.Errorf("FFmpegError = code %d, tail %q; err %v", fe.Code, fe.StderrTail, err)
	}
	if len(fe.StderrTail) > stderrTailBytes || strings.Contains(fe.StderrTail, "noise line 0\n") {
		t.Errorf("stderr tail not bounded: %d bytes", len(fe.StderrTail))
	}
	if fe.Args[0] != fake {
		t.Errorf("Args[0] = %q", fe.Args[0])
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("output folder not empty after failure: %v", entries)
	}
}

func TestRenderNoFFmpeg(t *testing.T) {
	tk := demoTake(t)
	s := DefaultSettings()
	s.FFmpeg = filepath.Join(t.TempDir(), "no-such-ffmpeg")
	err := Render(context.Background(), tk, filepath.Join(t.TempDir(), "x.mp4"), s, nil)
	if !errors.Is(err, ErrNoFFmpeg) || !strings.Contains(err.Error(), "apt-get install ffmpeg") {
		t.Fatalf("err = %v, want ErrNoFFmpeg saying how to install it", err)
	}
}

func TestRenderCancel(t *testing.T) {
	requireTool(t, "ffmpeg")
	tk := demoTake(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.mp4")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := Render(ctx, tk, out, DefaultSettings(), func(done, total int) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("output folder not empty after cancel: %v", entries)
	}
}

func TestRenderBadInputs(t *testing.T) {
	tk := demoTake(t)
	s := DefaultSettings()
	s.FPS = 1000
	if err := Render(context.Background(), tk, filepath.Join(t.TempDir(), "x.mp4"), s, nil); err == nil || !strings.Contains(err.Error(), "fps") {
		t.Errorf("fps 1000: err = %v", err)
	}
	// A missing frame file is a take error, not an ffmpeg error, and leaves no output.
	requireTool(t, "ffmpeg")
	if err := os.Remove(filepath.Join(tk.Dir, timeline.FramePath(3))); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err := Render(context.Background(), tk, filepath.Join(dir, "x.mp4"), DefaultSettings(), nil)
	var fe *FFmpegError
	if err == nil || errors.As(err, &fe) || !strings.Contains(err.Error(), "frame 3") {
		t.Errorf("missing frame: err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("output folder not empty: %v", entries)
	}
}

// TestOverlayPathEscaping runs ffmpeg on an ass filter whose script path has
// every character the filter graph treats specially.
func TestOverlayPathEscaping(t *testing.T) {
	ff := requireTool(t, "ffmpeg")
	dir := filepath.Join(t.TempDir(), `it's:a,[dir];\x`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ass := filepath.Join(dir, "o.ass")
	g, _ := newGeometry(64, 64, timeline.Viewport{Width: 64, Height: 64, Scale: 1}, 0, 0)
	sched, _ := newSchedule(10, 0, timeline.Time(second/10), nil)
	track := NewCursorTrack([]timeline.Receipt{{Kind: timeline.InputMove, X: 5, Y: 5}}, "")
	if err := writeFile(ass, func(w io.Writer) error {
		return writeOverlay(w, overlayInput{Schedule: sched, Geometry: g, Cursor: DefaultSettings().Cursor, Track: track})
	}); err != nil {
		t.Fatal(err)
	}
	args, _, err := buildArgs(encodeSpec{FPS: 10, Ticks: 1, Geometry: g, Overlay: ass, Background: "black",
		Outputs: []outputSpec{{Format: formatMP4, Path: filepath.Join(t.TempDir(), "o.mp4"), CRF: 20, Preset: "ultrafast"}}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(ff, args...)
	var in bytes.Buffer
	fd := newFeed(&in, 10)
	if err := fd.frame(0, solidJPEG(t, 64, 64, palette[0])); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
}
