package compositor

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// drawEverywhere is drawBackground as it was before it left the page's part
// undrawn: every pixel of the gradient, the whole shadow. The reference.
func drawEverywhere(g Geometry, fr FrameSettings) *image.RGBA {
	from, to, _ := parseBackground(fr.Background)
	img := image.NewRGBA(image.Rect(0, 0, g.OutW, g.OutH))
	diag := float64(g.OutW + g.OutH)
	for y := 0; y < g.OutH; y++ {
		for x := 0; x < g.OutW; x++ {
			u := float64(x+y) / diag
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = lerp8(from.R, to.R, u), lerp8(from.G, to.G, u), lerp8(from.B, to.B, u), 255
		}
	}
	none := image.Rectangle{}
	wx, wy, ww, wh := g.window()
	r := float64(fr.Radius)
	rect := [4]float64{float64(wx), float64(wy), float64(ww), float64(wh)}
	if fr.Shadow {
		blur := math.Max(8, float64(g.OutH)*0.025)
		paint(img, none, [4]float64{rect[0], rect[1] + blur*0.4, rect[2], rect[3]}, r, blur, func(cov float64) (color.RGBA, float64) { return color.RGBA{0, 0, 0, 255}, 0.45 * cov })
	}
	if g.BarH > 0 {
		paint(img, none, [4]float64{rect[0], rect[1], rect[2], float64(g.BarH) + r + 1}, r, 0.5, func(cov float64) (color.RGBA, float64) { return barColour, cov })
		bh := float64(g.BarH)
		for i, c := range dotColours {
			cx, cy, d := rect[0]+bh*0.6+float64(i)*bh*0.5, rect[1]+bh/2, bh*0.28
			paint(img, none, [4]float64{cx - d/2, cy - d/2, d, d}, d/2, 0.5, func(cov float64) (color.RGBA, float64) { return c, cov })
		}
		fx, fy, fw, fh := g.urlField()
		paint(img, none, [4]float64{fx, fy, fw, fh}, fh/2, 0.5, func(cov float64) (color.RGBA, float64) { return urlFieldFill, cov })
		paint(img, none, [4]float64{rect[0], rect[1] + bh - 1, rect[2], 1}, 0, 0.5, func(cov float64) (color.RGBA, float64) { return barLine, cov })
	}
	return img
}

// TestBackgroundOutsideThePage: the frame picture is the reference's at
// every pixel a video can show (all but the page's box less two pixels
// each side), and opaque black under the page; the layer written, from
// memory or not, decodes to it, with the corner colours of the reference.
func TestBackgroundOutsideThePage(t *testing.T) {
	vp2 := timeline.Viewport{Width: 1280, Height: 720, Scale: 2}
	vp1 := timeline.Viewport{Width: 1280, Height: 720, Scale: 1}
	for _, c := range []struct {
		name       string
		capW, capH int
		vp         timeline.Viewport
		w, h       int
		fr         FrameSettings
	}{
		{"docs with bar", 2560, 1440, vp2, 1920, 1080, FrameSettings{Enabled: true, Padding: 48, Background: "#4f46e5..#06b6d4", Radius: 12, Shadow: true, Bar: true}},
		{"no bar", 1280, 720, vp1, 1280, 720, FrameSettings{Enabled: true, Padding: 40, Background: "#202040..#204060", Radius: 10, Shadow: true}},
		{"square, no shadow", 1280, 720, vp1, 1080, 1080, FrameSettings{Enabled: true, Padding: 24, Background: "#1e1e2e", Radius: 0, Bar: true}},
		{"small gif", 1280, 720, vp1, 320, 180, FrameSettings{Enabled: true, Padding: 8, Background: "black..white", Radius: 4, Shadow: true, Bar: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := layout(c.capW, c.capH, c.vp, c.w, c.h, "contain", c.fr)
			if err != nil {
				t.Fatal(err)
			}
			want := drawEverywhere(g, c.fr)
			got, err := drawBackground(g, c.fr)
			if err != nil {
				t.Fatal(err)
			}
			hid := g.hidden()
			if hid.Empty() || !hid.In(image.Rect(g.ContentX, g.ContentY, g.ContentX+g.ContentW, g.ContentY+g.ContentH)) {
				t.Fatalf("hidden %v is not inside the page's box", hid)
			}
			bad := 0
			for y := 0; y < g.OutH; y++ {
				for x := 0; x < g.OutW; x++ {
					i := got.PixOffset(x, y)
					w := want.Pix[i : i+4]
					if (image.Point{x, y}).In(hid) {
						w = []byte{0, 0, 0, 255}
					}
					if !bytes.Equal(got.Pix[i:i+4], w) && bad < 5 {
						bad++
						t.Errorf("(%d,%d) = %v, want %v", x, y, got.Pix[i:i+4], w)
					}
				}
			}
			for pass := range 2 { // drawn, then from memory
				var buf bytes.Buffer
				corners, err := writeBackground(&buf, g, c.fr)
				if err != nil {
					t.Fatal(err)
				}
				dec, err := png.Decode(&buf)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range []image.Point{{0, 0}, {g.OutW - 1, g.OutH - 1}, {g.ContentX - 1, g.ContentY + 5}, {g.ContentX + 3, g.ContentY - 1}} {
					r, gg, b, _ := dec.At(p.X, p.Y).RGBA()
					i := want.PixOffset(p.X, p.Y)
					if uint8(r>>8) != want.Pix[i] || uint8(gg>>8) != want.Pix[i+1] || uint8(b>>8) != want.Pix[i+2] {
						t.Errorf("pass %d: the PNG at %v is not the picture's", pass, p)
					}
				}
				at := func(x, y int) color.RGBA {
					i := want.PixOffset(max(0, min(g.OutW-1, x)), max(0, min(g.OutH-1, y)))
					return color.RGBA{want.Pix[i], want.Pix[i+1], want.Pix[i+2], 255}
				}
				x0, y0, x1, y1 := g.ContentX, g.ContentY, g.ContentX+g.ContentW-1, g.ContentY+g.ContentH-1
				top := [2]color.RGBA{at(x0-1, y0-1), at(x1+1, y0-1)}
				if g.BarH > 0 {
					top = [2]color.RGBA{at(x0, y0), at(x1, y0)}
				}
				if wantC := [4]color.RGBA{top[0], top[1], at(x1+1, y1+1), at(x0-1, y1+1)}; corners != wantC {
					t.Errorf("pass %d: corners %v, want %v", pass, corners, wantC)
				}
			}
		})
	}
}
