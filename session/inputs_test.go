package session

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// The inputs sample, tried as a new user would: a drag-and-drop board, a
// custom toggle and slider, a button under a sticky header, a same-site
// and a cross-site iframe form, filmed in studio mode (what clapper run
// uses for a video). Every step passes; every press lands inside the
// element its step aimed at; and in the rendered video the cursor is
// drawn where each press landed: the video's picture differs from the
// page's own there, and not far from it.
func TestInputsSampleFilmed(t *testing.T) {
	testenv.Need(t, shellName, "ffmpeg")
	s, err := scripts.Load("../samples/inputs.yaml", scripts.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Browser.NoSandbox = testenv.NoSandbox()
	s.Browser.Capture = scripts.CaptureStudio
	dir := t.TempDir()
	takeDir := filepath.Join(dir, "take")
	res, err := Run(context.Background(), s, RunOptions{TakeDir: takeDir, Studio: studioEndpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, res)
	tk, err := timeline.Open(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	tl := tk.Timeline

	set := compositor.DefaultSettings()
	set.FPS = 30
	set.Frame.Enabled = false
	set.Zoom.Auto, set.Zoom.MaxScale = false, 1
	set.Captions, set.StepLabels, set.Keys, set.Cuts = "none", false, false, false
	set.SpeedUp.Waits = false
	video := filepath.Join(dir, "inputs.mp4")
	if err := compositor.Render(context.Background(), tk, video, set, nil); err != nil {
		t.Fatal(err)
	}
	start := leadInStart(t, tk)
	w, h := tl.Viewport.Width, tl.Viewport.Height

	presses := 0
	for _, r := range tl.Receipts {
		if r.Kind != timeline.InputDown || r.Error != "" {
			continue
		}
		st := tl.Steps[r.Step]
		if st.Region != nil && st.Kind != "drag" { // a drag's region is where it drops
			g := st.Region
			if r.X < g.X || r.X > g.X+g.W || r.Y < g.Y || r.Y > g.Y+g.H {
				t.Errorf("step %d (%s, line %d): pressed at (%.0f, %.0f), outside its element %+v", r.Step, st.Kind, st.Line, r.X, r.Y, *g)
			}
		}
		// The tick just after the press: the cursor is on the point.
		at := r.Acked + timeline.Time(int64(1e9)/30)
		k := int(int64(at-start) * 30 / int64(1e9))
		shown := videoFrame(t, video, k, w, h)
		page := pageFrameAt(t, tk, start+timeline.Time(int64(k)*int64(1e9)/30))
		near, far := cursorDiff(shown, page, int(r.X), int(r.Y))
		if near < 12 || far > near*4 {
			t.Errorf("step %d (%s, line %d): the cursor is not drawn at the press (%.0f, %.0f) in video frame %d: %d changed pixels beside it, %d elsewhere",
				r.Step, st.Kind, st.Line, r.X, r.Y, k, near, far)
		}
		presses++
	}
	if presses < 6 {
		t.Errorf("%d presses, want one for each drag, check, click and field", presses)
	}
}

// leadInStart is where the video starts: the first picture of the
// goto's document after its load, as the compositor starts a take that
// opens on the blank tab.
func leadInStart(t *testing.T, tk *timeline.Take) timeline.Time {
	t.Helper()
	b := tk.Timeline.Boundaries[1]
	after := max(b.At, tk.Timeline.Steps[0].End)
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Document >= b.Document && fr.Source >= after {
			return fr.Source
		}
	}
	t.Fatal("no frame of the goto's document")
	return 0
}

// videoFrame decodes frame k of the video as RGB.
func videoFrame(t *testing.T, video string, k, w, h int) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", video, "-vf", "select=eq(n\\,"+strconv.Itoa(k)+")",
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil || len(out) != w*h*3 {
		t.Fatalf("decode frame %d: %v (%d bytes)", k, err, len(out))
	}
	return out
}

// pageFrameAt is the page's picture shown at take time at: the last frame
// at or before it, as RGB.
func pageFrameAt(t *testing.T, tk *timeline.Take, at timeline.Time) []byte {
	t.Helper()
	var last *timeline.Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Source > at+compositor.TickSlack {
			break
		}
		f := fr
		last = &f
	}
	if last == nil {
		t.Fatalf("no frame before %v", at)
	}
	b, err := tk.ReadFrame(*last)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	out := make([]byte, 0, bd.Dx()*bd.Dy()*3)
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			out = append(out, byte(r>>8), byte(g>>8), byte(bl>>8))
		}
	}
	return out
}

// cursorDiff counts the pixels where the video's picture differs
// strongly from the page's: near, in the box an arrow cursor and its
// click ripple cover from the point (x, y); far, everywhere more than 90
// pixels away.
func cursorDiff(video, page []byte, x, y int) (near, far int) {
	if len(video) != len(page) {
		panic(fmt.Sprintf("sizes differ: %d, %d", len(video), len(page)))
	}
	const w = 1280
	for i := 0; i+2 < len(video); i += 3 {
		d := absDiff(uint32(video[i]), uint32(page[i])) + absDiff(uint32(video[i+1]), uint32(page[i+1])) + absDiff(uint32(video[i+2]), uint32(page[i+2]))
		if d < 120 {
			continue
		}
		px, py := (i/3)%w, (i/3)/w
		dx, dy := px-x, py-y
		switch {
		case dx >= -4 && dx <= 24 && dy >= -4 && dy <= 30:
			near++
		case dx*dx+dy*dy > 90*90:
			far++
		}
	}
	return near, far
}
