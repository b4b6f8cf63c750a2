package compositor

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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
// every pixel but the page's box less two pixels each side, and opaque
// black there; converted, every luma and chroma sample outside the page's
// box (what the video shows) is the reference's, converted; the layer
// written, from memory or not, is the picture converted, with the corner
// colours of the reference.
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
			yg, yw := toYUV420(got), toYUV420(want)
			box := image.Rect(g.ContentX, g.ContentY, g.ContentX+g.ContentW, g.ContentY+g.ContentH)
			cw, ch := (g.OutW+1)/2, (g.OutH+1)/2
			shown := 0
			for y := 0; y < g.OutH; y++ {
				for x := 0; x < g.OutW; x++ {
					if !(image.Point{x, y}).In(box) {
						shown++
						if i := y*g.OutW + x; yg[i] != yw[i] {
							t.Fatalf("luma at (%d,%d) = %d, want %d", x, y, yg[i], yw[i])
						}
					}
				}
			}
			for j := 0; j < ch; j++ {
				for i := 0; i < cw; i++ {
					if image.Rect(2*i, 2*j, 2*i+2, 2*j+2).Intersect(box).Empty() {
						for _, k := range []int{g.OutW*g.OutH + j*cw + i, g.OutW*g.OutH + cw*ch + j*cw + i} {
							if yg[k] != yw[k] {
								t.Fatalf("chroma sample (%d,%d) = %d, want %d", i, j, yg[k], yw[k])
							}
						}
					}
				}
			}
			if shown == 0 {
				t.Fatal("no pixel outside the page")
			}
			for pass := range 2 { // drawn, then from memory
				var buf bytes.Buffer
				corners, err := writeBackground(&buf, g, c.fr)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), toYUV420(got)) {
					t.Errorf("pass %d: the layer written is not the picture drawn, converted", pass)
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

// TestToYUV420: the primaries, white, black and grey land on BT.709's
// limited-range values, a chroma sample is the mean of its pixels, and an
// odd size keeps its last column and row.
func TestToYUV420(t *testing.T) {
	for _, c := range []struct {
		rgb       color.RGBA
		y, cb, cr byte
	}{
		{color.RGBA{255, 255, 255, 255}, 235, 128, 128},
		{color.RGBA{0, 0, 0, 255}, 16, 128, 128},
		{color.RGBA{128, 128, 128, 255}, 126, 128, 128},
		{color.RGBA{255, 0, 0, 255}, 63, 102, 240},
		{color.RGBA{0, 255, 0, 255}, 173, 42, 26},
		{color.RGBA{0, 0, 255, 255}, 32, 240, 118},
	} {
		img := image.NewRGBA(image.Rect(0, 0, 2, 2))
		for i := 0; i < 4; i++ {
			img.SetRGBA(i%2, i/2, c.rgb)
		}
		got := toYUV420(img)
		if want := []byte{c.y, c.y, c.y, c.y, c.cb, c.cr}; !bytes.Equal(got, want) {
			t.Errorf("%v: %v, want %v", c.rgb, got, want)
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, 3, 1)) // black, white | red
	img.SetRGBA(0, 0, color.RGBA{0, 0, 0, 255})
	img.SetRGBA(1, 0, color.RGBA{255, 255, 255, 255})
	img.SetRGBA(2, 0, color.RGBA{255, 0, 0, 255})
	got := toYUV420(img)
	if want := []byte{16, 235, 63, 128, 102, 128, 240}; !bytes.Equal(got, want) {
		t.Errorf("3x1: %v, want %v", got, want)
	}
}

// TestBackgroundAsFFmpegConverts: the layer Go converts is what ffmpeg's
// own conversion of the picture (swscale to BT.709 limited range, which
// each run used to do) gives: luma within a level; chroma within a level
// but at sharp colour edges (the bar's dots), where swscale's rounding
// differs by up to four (measured: 99.5% of the chroma within one).
func TestBackgroundAsFFmpegConverts(t *testing.T) {
	requireTool(t, "ffmpeg")
	fr := FrameSettings{Enabled: true, Padding: 48, Background: "#4f46e5..#06b6d4", Radius: 12, Shadow: true, Bar: true}
	g, err := layout(2560, 1440, timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, 1920, 1080, "contain", fr)
	if err != nil {
		t.Fatal(err)
	}
	img, err := drawBackground(g, fr)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "frame.png")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", in,
		"-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-f", "rawvideo", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := toYUV420(img)
	if len(out) != len(got) {
		t.Fatalf("ffmpeg gave %d bytes, Go %d", len(out), len(got))
	}
	luma := g.OutW * g.OutH
	worst := [2]int{}
	for i := range got {
		d := int(got[i]) - int(out[i])
		d = max(d, -d)
		k := 0
		if i >= luma {
			k = 1
		}
		worst[k] = max(worst[k], d)
	}
	near := 0 // chroma samples within a level
	for i := luma; i < len(got); i++ {
		if d := int(got[i]) - int(out[i]); d >= -1 && d <= 1 {
			near++
		}
	}
	if share := float64(near) / float64(len(got)-luma); worst[0] > 1 || worst[1] > 4 || share < 0.99 {
		t.Errorf("Go's conversion differs from ffmpeg's by up to %d levels of luma and %d of chroma (%.4f of chroma within 1), want 1, 4 and 0.99", worst[0], worst[1], share)
	}
}

// TestHiddenTooSmall: a page box of four pixels or less hides nothing.
func TestHiddenTooSmall(t *testing.T) {
	for _, g := range []Geometry{{}, {ContentX: 10, ContentY: 10, ContentW: 4, ContentH: 100}, {ContentW: 100, ContentH: 3}} {
		if h := g.hidden(); !h.Empty() {
			t.Errorf("%+v hides %v", g, h)
		}
	}
	if h := (Geometry{ContentX: 10, ContentY: 20, ContentW: 6, ContentH: 8}).hidden(); h != image.Rect(12, 22, 14, 26) {
		t.Errorf("a 6x8 box at (10,20) hides %v, want (12,22)-(14,26)", h)
	}
}
