package compositor

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// namedColours are the colour names clapper's own drawing understands (the
// frame background); the letterbox colour goes to ffmpeg, which knows more.
var namedColours = map[string]color.RGBA{
	"black": {0, 0, 0, 255}, "white": {255, 255, 255, 255}, "gray": {128, 128, 128, 255},
	"grey": {128, 128, 128, 255}, "red": {255, 0, 0, 255}, "green": {0, 128, 0, 255},
	"blue": {0, 0, 255, 255}, "navy": {0, 0, 128, 255}, "teal": {0, 128, 128, 255},
	"purple": {128, 0, 128, 255}, "orange": {255, 165, 0, 255}, "yellow": {255, 255, 0, 255},
}

// parseColour reads "#rgb", "#rrggbb" or a name from namedColours.
func parseColour(s string) (color.RGBA, error) {
	s = strings.TrimSpace(s)
	if c, ok := namedColours[strings.ToLower(s)]; ok {
		return c, nil
	}
	h := strings.TrimPrefix(s, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if strings.HasPrefix(s, "#") && len(h) == 6 {
		if v, err := strconv.ParseUint(h, 16, 32); err == nil {
			return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, nil
		}
	}
	return color.RGBA{}, fmt.Errorf("colour %q: use #rrggbb or a name like black or white", s)
}

// parseBackground reads a colour or a gradient "A..B".
func parseBackground(s string) (from, to color.RGBA, err error) {
	a, b, grad := strings.Cut(s, "..")
	if from, err = parseColour(a); err != nil {
		return
	}
	to = from
	if grad {
		to, err = parseColour(b)
	}
	return
}

// frameLook is the window chrome's palette.
var (
	barColour    = color.RGBA{232, 232, 236, 255}
	barLine      = color.RGBA{210, 210, 216, 255}
	urlFieldFill = color.RGBA{255, 255, 255, 255}
	dotColours   = []color.RGBA{{255, 95, 87, 255}, {254, 188, 46, 255}, {40, 200, 64, 255}}
)

// urlField returns the browser bar's address field rectangle (x, y, w, h).
func (g Geometry) urlField() (x, y, w, h float64) {
	wx, wy, ww, _ := g.window()
	bh := float64(g.BarH)
	x = float64(wx) + bh*2.4
	w = float64(ww) - bh*2.4 - bh*0.5
	h = bh * 0.62
	y = float64(wy) + (bh-h)/2
	return
}

// drawBackground draws the static layer under the page: the background
// colour or gradient, the window's shadow and its browser bar. The part
// the page always covers (Geometry.hidden) is left opaque black: drawing
// it was most of the work (the shadow's whole window), for pixels no
// video shows.
func drawBackground(g Geometry, fr FrameSettings) (*image.RGBA, error) {
	from, to, err := parseBackground(fr.Background)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, g.OutW, g.OutH))
	hid := g.hidden()
	// The gradient runs along x+y: one colour for each sum.
	diag := float64(g.OutW + g.OutH)
	grad := make([][3]uint8, max(0, g.OutW+g.OutH-1))
	for k := range grad {
		u := float64(k) / diag
		grad[k] = [3]uint8{lerp8(from.R, to.R, u), lerp8(from.G, to.G, u), lerp8(from.B, to.B, u)}
	}
	for y := 0; y < g.OutH; y++ {
		for x := 0; x < g.OutW; x++ {
			i := img.PixOffset(x, y)
			img.Pix[i+3] = 255
			if !(image.Point{x, y}).In(hid) {
				c := grad[x+y]
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = c[0], c[1], c[2]
			}
		}
	}
	wx, wy, ww, wh := g.window()
	r := float64(fr.Radius)
	rect := [4]float64{float64(wx), float64(wy), float64(ww), float64(wh)}
	if fr.Shadow {
		blur := math.Max(8, float64(g.OutH)*0.025)
		off := blur * 0.4
		sr := [4]float64{rect[0], rect[1] + off, rect[2], rect[3]}
		paint(img, hid, sr, r, blur, func(cov float64) (color.RGBA, float64) { return color.RGBA{0, 0, 0, 255}, 0.45 * cov })
	}
	if g.BarH > 0 {
		bar := [4]float64{rect[0], rect[1], rect[2], float64(g.BarH) + r + 1}
		paint(img, hid, bar, r, 0.5, func(cov float64) (color.RGBA, float64) { return barColour, cov })
		bh := float64(g.BarH)
		for i, c := range dotColours {
			cx := rect[0] + bh*0.6 + float64(i)*bh*0.5
			cy := rect[1] + bh/2
			d := bh * 0.28
			paint(img, hid, [4]float64{cx - d/2, cy - d/2, d, d}, d/2, 0.5, func(cov float64) (color.RGBA, float64) { return c, cov })
		}
		fx, fy, fw, fh := g.urlField()
		paint(img, hid, [4]float64{fx, fy, fw, fh}, fh/2, 0.5, func(cov float64) (color.RGBA, float64) { return urlFieldFill, cov })
		line := [4]float64{rect[0], rect[1] + bh - 1, rect[2], 1}
		paint(img, hid, line, 0, 0.5, func(cov float64) (color.RGBA, float64) { return barLine, cov })
	}
	return img, nil
}

// hidden is the part of the frame picture the page always covers: its box
// less two pixels each side, so that no pixel the video shows changes. A
// chroma sample of the layer is the mean of a 2x2 block (toYUV420) and the
// box starts on even pixels, so a shown sample reads no hidden pixel; and
// the overlay rounds the page's corners with the colours just outside it.
// Two pixels are not enough for a conversion that reads further (swscale's
// vertical chroma filter): the black would bleed into the row beside the
// page. Empty when the box is too small to leave anything.
func (g Geometry) hidden() image.Rectangle {
	if g.ContentW <= 4 || g.ContentH <= 4 {
		return image.Rectangle{}
	}
	return image.Rect(g.ContentX+2, g.ContentY+2, g.ContentX+g.ContentW-2, g.ContentY+g.ContentH-2)
}

func lerp8(a, b uint8, u float64) uint8 {
	return uint8(math.Round(float64(a) + (float64(b)-float64(a))*u))
}

// roundedSDF is the signed distance from (px,py) to a rounded rectangle.
func roundedSDF(px, py float64, rect [4]float64, r float64) float64 {
	hw, hh := rect[2]/2, rect[3]/2
	cx, cy := rect[0]+hw, rect[1]+hh
	r = math.Min(r, math.Min(hw, hh))
	qx := math.Abs(px-cx) - (hw - r)
	qy := math.Abs(py-cy) - (hh - r)
	out := math.Hypot(math.Max(qx, 0), math.Max(qy, 0))
	return out + math.Min(math.Max(qx, qy), 0) - r
}

// paint blends shade over the pixels near a rounded rectangle, but those
// in hid, with an edge softness of soft pixels (antialiasing at 0.5, a
// shadow's blur above).
func paint(img *image.RGBA, hid image.Rectangle, rect [4]float64, r, soft float64, shade func(cov float64) (color.RGBA, float64)) {
	b := img.Bounds()
	x0, y0 := max(b.Min.X, int(rect[0]-soft*2)-1), max(b.Min.Y, int(rect[1]-soft*2)-1)
	x1, y1 := min(b.Max.X, int(rect[0]+rect[2]+soft*2)+2), min(b.Max.Y, int(rect[1]+rect[3]+soft*2)+2)
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			if y >= hid.Min.Y && y < hid.Max.Y && x >= hid.Min.X && x < hid.Max.X {
				x = hid.Max.X - 1 // not shown: on past the page
				continue
			}
			d := roundedSDF(float64(x)+0.5, float64(y)+0.5, rect, r)
			cov := 1 - smoothstep(-soft, soft, d)
			if cov <= 0 {
				continue
			}
			c, a := shade(cov)
			i := img.PixOffset(x, y)
			for k, v := range [3]uint8{c.R, c.G, c.B} {
				img.Pix[i+k] = uint8(math.Round(float64(img.Pix[i+k])*(1-a) + float64(v)*a))
			}
		}
	}
}

func smoothstep(a, b, x float64) float64 {
	if b <= a {
		if x < a {
			return 0
		}
		return 1
	}
	t := math.Max(0, math.Min(1, (x-a)/(b-a)))
	return t * t * (3 - 2*t)
}

// writeBackground writes the background layer as raw yuv420p in the
// videos' colours (BT.709, limited range: toYUV420) and returns the colours
// just outside the content's four corners (top-left, top-right,
// bottom-right, bottom-left), which the overlay uses to round them. A
// layer drawn before in this process is written again from memory
// (drawnBackgrounds). Raw, converted once here: each ffmpeg run then reads
// it as it is, where a PNG cost each run time to inflate and convert.
func writeBackground(w io.Writer, g Geometry, fr FrameSettings) ([4]color.RGBA, error) {
	b, err := drawnBackgrounds.get(g, fr)
	if err != nil {
		return [4]color.RGBA{}, err
	}
	_, err = w.Write(b.yuv)
	return b.corners, err
}

// encodeBackground draws the background layer and converts it.
func encodeBackground(g Geometry, fr FrameSettings) (drawnBackground, error) {
	var out drawnBackground
	img, err := drawBackground(g, fr)
	if err != nil {
		return out, err
	}
	at := func(x, y int) color.RGBA {
		x, y = max(0, min(g.OutW-1, x)), max(0, min(g.OutH-1, y))
		i := img.PixOffset(x, y)
		return color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], 255}
	}
	cx0, cy0 := g.ContentX, g.ContentY
	cx1, cy1 := g.ContentX+g.ContentW-1, g.ContentY+g.ContentH-1
	if g.BarH > 0 {
		// The top corners belong to the bar, drawn in the background.
		out.corners[0], out.corners[1] = at(cx0, cy0), at(cx1, cy0)
	} else {
		out.corners[0], out.corners[1] = at(cx0-1, cy0-1), at(cx1+1, cy0-1)
	}
	out.corners[2], out.corners[3] = at(cx1+1, cy1+1), at(cx0-1, cy1+1)
	out.yuv = toYUV420(img)
	return out, nil
}

// drawnBackground is a background layer, converted, with its corner
// colours.
type drawnBackground struct {
	yuv     []byte
	corners [4]color.RGBA
}

// toYUV420 converts an opaque picture to raw yuv420p (the Y plane, then Cb
// and Cr at half the width and height, rounded up), in the BT.709 matrix
// and limited range the videos are tagged with; a chroma sample is the
// mean of the up to four pixels it covers. Pure.
func toYUV420(img *image.RGBA) []byte {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	cw, ch := (w+1)/2, (h+1)/2
	out := make([]byte, w*h+2*cw*ch)
	y, cb, cr := out[:w*h], out[w*h:w*h+cw*ch], out[w*h+cw*ch:]
	level := func(v float64) byte { return byte(max(0, min(255, math.Round(v)))) }
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			p := img.PixOffset(b.Min.X+i, b.Min.Y+j)
			r, g, bl := float64(img.Pix[p]), float64(img.Pix[p+1]), float64(img.Pix[p+2])
			y[j*w+i] = level(16 + 219*(0.2126*r+0.7152*g+0.0722*bl)/255)
		}
	}
	for j := 0; j < ch; j++ {
		for i := 0; i < cw; i++ {
			var r, g, bl, n float64
			for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				x, yy := 2*i+d[0], 2*j+d[1]
				if x < w && yy < h {
					p := img.PixOffset(b.Min.X+x, b.Min.Y+yy)
					r, g, bl, n = r+float64(img.Pix[p]), g+float64(img.Pix[p+1]), bl+float64(img.Pix[p+2]), n+1
				}
			}
			r, g, bl = r/n, g/n, bl/n
			cb[j*cw+i] = level(128 + 224*(-0.2126/1.8556*r-0.7152/1.8556*g+0.5*bl)/255)
			cr[j*cw+i] = level(128 + 224*(0.5*r-0.7152/1.5748*g-0.0722/1.5748*bl)/255)
		}
	}
	return out
}

// backgroundMemo keeps the last few background layers drawn: a run that
// renders while capturing prepares the same one for each chunk it starts
// early and again for the final render, and drawing and encoding one
// takes time (BenchmarkWriteBackground measures it) before ffmpeg can
// start.
// Safe for concurrent use.
type backgroundMemo struct {
	mu   sync.Mutex
	kept []keptBackground // oldest first
}

type keptBackground struct {
	key backgroundKey
	bg  drawnBackground
}

type backgroundKey struct {
	g  Geometry
	fr FrameSettings
}

// backgroundsKept is how many layers the memo keeps (a run has two: the
// video's and the GIF's).
const backgroundsKept = 4

var drawnBackgrounds = &backgroundMemo{}

// get returns the layer for g and fr, drawn now or before.
func (m *backgroundMemo) get(g Geometry, fr FrameSettings) (drawnBackground, error) {
	fr.Host = "" // the bar's address is the overlay's, not drawn here
	k := backgroundKey{g, fr}
	has := func(e keptBackground) bool { return e.key == k }
	m.mu.Lock()
	if i := slices.IndexFunc(m.kept, has); i >= 0 {
		b := m.kept[i].bg
		m.mu.Unlock()
		return b, nil
	}
	m.mu.Unlock()
	b, err := encodeBackground(g, fr)
	if err != nil {
		return b, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.ContainsFunc(m.kept, has) {
		if len(m.kept) == backgroundsKept {
			m.kept = slices.Delete(m.kept, 0, 1)
		}
		m.kept = append(m.kept, keptBackground{k, b})
	}
	return b, nil
}
