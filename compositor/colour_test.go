package compositor

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// bt709 is the limited-range BT.709 Y'CbCr that a JPEG pixel (full-range
// BT.601 Y'CbCr, as JFIF has it) should become in a video tagged BT.709:
// the same R'G'B', another matrix and range. Pure.
func bt709(y, cb, cr float64) (float64, float64, float64) {
	r := (y + 1.402*(cr-128)) / 255
	g := (y - 0.344136*(cb-128) - 0.714136*(cr-128)) / 255
	b := (y + 1.772*(cb-128)) / 255
	l := 0.2126*r + 0.7152*g + 0.0722*b
	return 16 + 219*l, 128 + 224*(b-l)/1.8556, 128 + 224*(r-l)/1.5748
}

// jpegPixel is the Y'CbCr a solid-colour JPEG of c holds.
func jpegPixel(t *testing.T, c color.RGBA) (y, cb, cr float64) {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(solidJPEG(t, 16, 16, c)))
	if err != nil {
		t.Fatal(err)
	}
	p := img.(*image.YCbCr).YCbCrAt(8, 8)
	return float64(p.Y), float64(p.Cb), float64(p.Cr)
}

// planeMeans takes one decoded yuv420p frame of w x h and
// returns the mean Y, Cb and Cr of the box [x0,x1) x [y0,y1) (even).
func planeMeans(out []byte, w, h, x0, y0, x1, y1 int) (y, cb, cr float64) {
	mean := func(p []byte, stride, x0, y0, x1, y1 int) float64 {
		s := 0
		for yy := y0; yy < y1; yy++ {
			for xx := x0; xx < x1; xx++ {
				s += int(p[yy*stride+xx])
			}
		}
		return float64(s) / float64((x1-x0)*(y1-y0))
	}
	cw := w / 2
	u := out[w*h : w*h+cw*(h/2)]
	v := out[w*h+cw*(h/2):]
	return mean(out, w, x0, y0, x1, y1), mean(u, cw, x0/2, y0/2, x1/2, y1/2), mean(v, cw, x0/2, y0/2, x1/2, y1/2)
}

// TestRenderKeepsColours renders solid colours captured as JPEGs (BT.601,
// full range) at the capture's size, shrunk, enlarged and enlarged from
// an odd size, and checks the video carries what each JPEG holds in the
// BT.709 limited range it is tagged with, within half a level: one
// conversion, with the right matrix and range, rounded once. (swscale's
// own conversion was a level off: white 234, neutral chroma 127.)
func TestRenderKeepsColours(t *testing.T) {
	requireTool(t, "ffmpeg")
	colours := []color.RGBA{
		{255, 255, 255, 255}, {128, 128, 128, 255}, {0, 0, 0, 255},
		{200, 40, 40, 255}, {40, 160, 60, 255}, {50, 90, 210, 255}, {245, 246, 248, 255},
	}
	var frames []synthFrame
	for i, c := range colours {
		frames = append(frames, synthFrame{ms(200 * i), c})
	}
	end := timeline.FromDuration(ms(200 * len(colours)))
	cases := []struct {
		name           string
		capW, capH     int
		vpW, vpH, outW int
		outH           int
		zoom           bool
	}{
		{"same size", 320, 180, 320, 180, 320, 180, false},
		{"shrunk from scale 2", 640, 360, 320, 180, 320, 180, false},
		{"enlarged", 160, 90, 160, 90, 320, 180, false},
		{"enlarged from an odd size", 161, 91, 161, 91, 320, 180, false},
		{"zoomed", 320, 180, 320, 180, 320, 180, true},
		{"zoomed from scale 2", 640, 360, 320, 180, 320, 180, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := timeline.Timeline{
				Name: "colours", Viewport: timeline.Viewport{Width: c.vpW, Height: c.vpH, Scale: float64(c.capW) / float64(c.vpW)},
				Start: 0, End: end,
				Capture: timeline.Capture{Tab: "T1", Started: 0, Ended: end, EndReason: "stopped"},
			}
			if c.zoom { // held to the end
				tl.Steps = []timeline.Step{{Kind: kindZoom, Region: &timeline.Rect{X: 40, Y: 20, W: 160, H: 90}, Scale: 1.5, Start: 0, End: 1, Duration: ms(100)}}
			}
			tk := writeTake(t, t.TempDir(), c.capW, c.capH, frames, tl)
			out := filepath.Join(t.TempDir(), "colours.mp4")
			s := DefaultSettings()
			s.Width, s.Height, s.FPS = c.outW, c.outH, 25
			if err := Render(context.Background(), tk, out, s, nil); err != nil {
				t.Fatal(err)
			}
			if cs := probe(t, out).Streams[0].ColorSpace; cs != "bt709" {
				t.Errorf("tagged %q, want bt709", cs)
			}
			// Tick 5i+2 (80 ms into colour i's 200 ms), away from the
			// edges a resize blurs: decoded at once.
			var ks []int
			for i := range colours {
				ks = append(ks, 5*i+2)
			}
			fs := c.outW * c.outH * 3 / 2
			decoded := decodeFrames(t, out, "yuv420p", ks)
			if len(decoded) != fs*len(ks) {
				t.Fatalf("decoded %d bytes, want %d %dx%d frames", len(decoded), len(ks), c.outW, c.outH)
			}
			var bad []string
			for i, col := range colours {
				gy, gcb, gcr := planeMeans(decoded[i*fs:(i+1)*fs], c.outW, c.outH, c.outW/4&^1, c.outH/4&^1, 3*c.outW/4&^1, 3*c.outH/4&^1)
				wy, wcb, wcr := bt709(jpegPixel(t, col))
				if math.Abs(gy-wy) > 0.5 || math.Abs(gcb-wcb) > 0.5 || math.Abs(gcr-wcr) > 0.5 {
					bad = append(bad, fmt.Sprintf("%v: Y'CbCr %.1f %.1f %.1f, want %.1f %.1f %.1f", col, gy, gcb, gcr, wy, wcb, wcr))
				}
			}
			if len(bad) > 0 {
				t.Errorf("colours off by more than half a level:\n%s", strings.Join(bad, "\n"))
			}
		})
	}
}
