package compositor

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// TestRenderSizeChange renders a take whose frames change size mid-way,
// with a zoom and without, framed and not, to an MP4 (in chunks) and a
// WebM (one run): the graph must not be rebuilt (which would lose the
// frame picture and end the video early); later frames fill the same box.
// Unzoomed at the capture's size, the page is scaled only because of the
// change (encodeSpec.Varied).
func TestRenderSizeChange(t *testing.T) {
	requireTool(t, "ffmpeg")
	dir := t.TempDir()
	log, _ := timeline.CreateTake(dir)
	for i := 0; i < 6; i++ {
		w, h := 640, 360
		if i >= 3 {
			w, h = 600, 340
		}
		b := solidJPEG(t, w, h, palette[i])
		fr := timeline.Frame{Seq: int64(i + 1), Source: msT(i * 300), Width: w, Height: h, Bytes: len(b), File: timeline.FramePath(int64(i + 1))}
		addFrame(t, dir, log, fr, b)
	}
	log.Close()
	for _, zoom := range []bool{true, false} {
		tl := timeline.Timeline{
			Viewport: timeline.Viewport{Width: 320, Height: 180, Scale: 2}, End: msT(2000), Tool: "x", Outcome: "ok",
			Capture: timeline.Capture{Frames: timeline.Accounting{Received: 6, Delivered: 6, Upstream: "unknown"}}}
		if zoom {
			tl.Steps = []timeline.Step{{Kind: "zoom", Region: &timeline.Rect{X: 100, Y: 50, W: 60, H: 40}, Scale: 1.5, Start: msT(1500), Duration: ms(400)}}
		}
		timeline.WriteTimeline(dir, &tl)
		tk, _ := timeline.Open(dir)
		for _, framed := range []bool{false, true} {
			for _, ext := range []string{".mp4", ".webm"} {
				name := fmt.Sprintf("zoom %v, framed %v, %s", zoom, framed, ext)
				s := DefaultSettings()
				s.Frame.Enabled = framed
				out := filepath.Join(t.TempDir(), "r"+ext)
				if err := Render(context.Background(), tk, out, s, nil); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				g, _ := layout(640, 360, tl.Viewport, 0, 0, "contain", s.Frame)
				if st := probe(t, out).Streams[0]; st.NbReadFrame != "60" || st.Width != g.OutW || st.Height != g.OutH {
					t.Errorf("%s: %s frames of %dx%d, want 60 of %dx%d", name, st.NbReadFrame, st.Width, st.Height, g.OutW, g.OutH)
				}
				f := rgbFrames(t, out, g.OutW, g.OutH, []int{35})[0]
				// Tick 35 (1.167 s) shows frame 3 (900 ms), 600x340, scaled into the box.
				for _, p := range [][2]int{{g.ContentX + 4, g.ContentY + 4}, {g.ContentX + g.ContentW - 5, g.ContentY + g.ContentH - 5}} {
					if got, _ := nearest(px(f, g.OutW, p[0], p[1])); got != 3 {
						t.Errorf("%s: pixel %v shows palette %d, want 3", name, p, got)
					}
				}
			}
		}
	}
}
