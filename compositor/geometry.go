package compositor

import (
	"fmt"
	"math"

	"github.com/clapper-dev/clapper/timeline"
)

// Geometry places the captured frames in the output picture and maps the
// page's CSS pixels to output pixels.
type Geometry struct {
	// CaptureW and CaptureH are the captured frames' size in device pixels.
	CaptureW, CaptureH int
	// ViewportW and ViewportH are the page's size in CSS pixels.
	ViewportW, ViewportH float64
	// OutW and OutH are the output picture's size (even numbers).
	OutW, OutH int
	// Content is where the page lands in the output, in pixels.
	ContentX, ContentY, ContentW, ContentH int
	// ScaledW and ScaledH are the whole capture's size once scaled; CropX
	// and CropY are the offset of the content within it (non-zero only
	// when the capture covers the content box and overflows).
	ScaledW, ScaledH int
	CropX, CropY     int
	// BarH is the height of the browser bar above the content (0 for none).
	BarH int
}

// newGeometry fits a capture of capW x capH device pixels, showing a viewport
// of vp CSS pixels, into an output of outW x outH (0 x 0 means the capture
// size, rounded down to even numbers), letterboxed and centred.
func newGeometry(capW, capH int, vp timeline.Viewport, outW, outH int) (Geometry, error) {
	return layout(capW, capH, vp, outW, outH, "contain", FrameSettings{})
}

// layout fits the capture into the output: inside the window frame when fr is
// enabled (padding around it, a bar above it), by fit ("contain" letterboxes,
// "cover" fills and crops).
func layout(capW, capH int, vp timeline.Viewport, outW, outH int, fit string, fr FrameSettings) (Geometry, error) {
	if capW <= 0 || capH <= 0 {
		return Geometry{}, fmt.Errorf("capture size %dx%d is empty", capW, capH)
	}
	g := Geometry{CaptureW: capW, CaptureH: capH, ViewportW: float64(vp.Width), ViewportH: float64(vp.Height)}
	if g.ViewportW <= 0 || g.ViewportH <= 0 {
		// No viewport recorded: CSS pixels are device pixels over the
		// scale, or the device pixels themselves.
		sc := vp.Scale
		if sc <= 0 {
			sc = 1
		}
		g.ViewportW, g.ViewportH = float64(capW)/sc, float64(capH)/sc
	}
	pad := 0
	if fr.Enabled {
		pad = even(fr.Padding)
	}
	barH := func(h int) int {
		if !fr.Enabled || !fr.Bar {
			return 0
		}
		return even(int(math.Max(24, math.Min(96, math.Round(float64(h)*0.045)))))
	}
	if outW == 0 && outH == 0 {
		// The capture at its own size, with the frame around it.
		cw, ch := even(capW), even(capH)
		g.BarH = barH(ch)
		outW, outH = cw+2*pad, ch+2*pad+g.BarH
	} else {
		g.BarH = barH(outH)
	}
	g.OutW, g.OutH = even(outW), even(outH)
	boxW, boxH := g.OutW-2*pad, g.OutH-2*pad-g.BarH
	if boxW < 2 || boxH < 2 {
		return Geometry{}, fmt.Errorf("output size %dx%d leaves no room for the page", outW, outH)
	}
	sx, sy := float64(boxW)/float64(capW), float64(boxH)/float64(capH)
	if fit == "cover" {
		s := math.Max(sx, sy)
		g.ScaledW = coverSide(float64(capW)*s, boxW)
		g.ScaledH = coverSide(float64(capH)*s, boxH)
		g.ContentW, g.ContentH = boxW, boxH
		g.CropX, g.CropY = even((g.ScaledW-boxW)/2), even((g.ScaledH-boxH)/2)
	} else {
		s := math.Min(sx, sy)
		g.ContentW = fitSide(float64(capW)*s, boxW)
		g.ContentH = fitSide(float64(capH)*s, boxH)
		g.ScaledW, g.ScaledH = g.ContentW, g.ContentH
	}
	g.ContentX = even(pad + (boxW-g.ContentW)/2)
	g.ContentY = even(pad + g.BarH + (boxH-g.ContentH)/2)
	return g, nil
}

// fitSide rounds a scaled side to an even size no larger than out, and
// fills out when it is within rounding (an odd capture size) of it.
func fitSide(v float64, out int) int {
	n := even(int(math.Round(v)))
	if n > out || out-n <= 2 {
		n = out
	}
	return n
}

// coverSide rounds a scaled side up to an even size at least out.
func coverSide(v float64, out int) int {
	n := even(int(math.Round(v)) + 1)
	if n < out || n-out <= 2 {
		n = out
	}
	return n
}

func even(n int) int { return n &^ 1 }

// PixelsPerCSS is how many output pixels one CSS pixel of the page covers.
func (g Geometry) PixelsPerCSS() float64 {
	return float64(g.ScaledW) / g.ViewportW
}

// Point maps a CSS-pixel position in the viewport to output pixels.
func (g Geometry) Point(x, y float64) (float64, float64) {
	return float64(g.ContentX-g.CropX) + x*float64(g.ScaledW)/g.ViewportW,
		float64(g.ContentY-g.CropY) + y*float64(g.ScaledH)/g.ViewportH
}

// Framed reports whether the content sits in a window on a background image
// rather than on a plain letterbox.
func (g Geometry) window() (x, y, w, h int) {
	return g.ContentX, g.ContentY - g.BarH, g.ContentW, g.ContentH + g.BarH
}
