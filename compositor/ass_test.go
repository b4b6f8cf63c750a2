package compositor

import (
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

func TestCirclePathBox(t *testing.T) {
	for _, r := range []float64{5, 22, 33.5} {
		f := strings.Fields(circlePath(r))
		lo, hi := 1e9, -1e9
		for _, w := range f {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil {
				continue // m, b
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo != 0 || hi != 2*r {
			t.Errorf("r=%v: coordinates span [%v, %v], want [0, %v]", r, lo, hi, 2*r)
		}
	}
}

// The ripple the overlay writer draws for a click is centred on the
// click, as libass renders it: a click at CSS (115, 70) in a 200x150
// viewport captured at scale 2 ripples around output pixel (230, 140).
func TestRippleCentredOnClick(t *testing.T) {
	testenv.Need(t, "ffmpeg")
	dir := t.TempDir()
	g, err := newGeometry(400, 300, timeline.Viewport{Width: 200, Height: 150, Scale: 2}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	sched, err := newSchedule(30, 0, timeline.FromDuration(time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	track := NewCursorTrack([]timeline.Receipt{
		{Kind: timeline.InputMove, X: 115, Y: 70, Sent: at(0), Acked: at(1)},
		{Kind: timeline.InputDown, X: 115, Y: 70, Sent: at(300), Acked: at(301), Button: "left", Clicks: 1},
		{Kind: timeline.InputUp, X: 115, Y: 70, Sent: at(350), Acked: at(351), Button: "left", Clicks: 1},
	}, "")
	cursor := DefaultSettings().Cursor
	if !cursor.Enabled || !cursor.Click {
		t.Fatalf("default cursor settings %+v draw no ripple", cursor)
	}
	p := filepath.Join(dir, "overlay.ass")
	if err := writeFile(p, func(w io.Writer) error {
		return writeOverlay(w, overlayInput{Schedule: sched, Geometry: g, Cursor: cursor, Track: track})
	}); err != nil {
		t.Fatal(err)
	}
	// Frame 12 (400 ms) is 100 ms into the ripple: grown and still opaque
	// enough to see on white.
	out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=white:s=400x300:r=30:d=1", "-vf", "ass="+p+",select=eq(n\\,12)",
		"-fps_mode", "passthrough", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 400*300*3 {
		t.Fatalf("decoded %d bytes, want one 400x300 frame", len(out))
	}
	// The ripple is the bluish part (the cursor above it is dark and white).
	minX, maxX, minY, maxY := 400, -1, 300, -1
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			i := (y*400 + x) * 3
			if int(out[i+2])-int(out[i]) > 25 {
				minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
			}
		}
	}
	if maxX-minX < 10 || maxY-minY < 10 {
		t.Fatalf("no ripple drawn: bluish pixels span x [%d, %d], y [%d, %d]", minX, maxX, minY, maxY)
	}
	cx, cy := float64(minX+maxX)/2, float64(minY+maxY)/2
	if cx < 228 || cx > 232 || cy < 138 || cy > 142 {
		t.Errorf("ripple centred at (%.1f, %.1f) (box x [%d, %d], y [%d, %d]), want (230, 140)", cx, cy, minX, maxX, minY, maxY)
	}
}
