package compare

import (
	"image"
	"image/draw"
	"sort"

	"github.com/clapper-dev/clapper/timeline"
)

// PictureDiff is how two pictures of one step differ.
type PictureDiff struct {
	// Changed is the share of the pixels compared (those no mask covers)
	// that changed.
	Changed float64
	// Regions are the changed areas, in the pictures' pixels, largest
	// first: changed pixels near each other are one region, and a region
	// of fewer than MinRegion pixels (the scatter of JPEG's encoding) is
	// left out.
	Regions []image.Rectangle
	// Size is true when the pictures are not the same size (then nothing
	// else is compared).
	Size bool
}

// Differs reports whether the pictures differ beyond the noise.
func (d PictureDiff) Differs() bool { return d.Size || len(d.Regions) > 0 }

// cell is the side of the squares changed pixels are gathered in to find
// regions: changed pixels within a cell of each other are one region.
const cell = 8

// DiffPictures compares two pictures pixel by pixel, leaving out the
// masked rectangles (in the pictures' pixels). A pixel changed when one of
// its channels moved by more than tolerance (of 255); changed pixels are
// gathered into regions, and regions of fewer than minRegion changed
// pixels are noise. Pure.
func DiffPictures(a, b image.Image, masks []image.Rectangle, tolerance, minRegion int) PictureDiff {
	if a.Bounds().Size() != b.Bounds().Size() {
		return PictureDiff{Size: true}
	}
	m, compared := changedPixels(a, b, masks, tolerance)
	w, h := m.Rect.Dx(), m.Rect.Dy()
	cw, ch := (w+cell-1)/cell, (h+cell-1)/cell
	counts := make([]int, cw*ch)
	changed := 0
	for y := 0; y < h; y++ {
		row := m.Pix[y*m.Stride : y*m.Stride+w]
		for x, v := range row {
			if v != 0 {
				changed++
				counts[(y/cell)*cw+x/cell]++
			}
		}
	}
	d := PictureDiff{}
	if compared > 0 {
		d.Changed = float64(changed) / float64(compared)
	}
	d.Regions = regions(counts, cw, ch, w, h, minRegion)
	return d
}

// ChangedPixels marks the pixels of b that changed from a as DiffPictures
// counts them: 255 where a channel moved by more than tolerance (of 255),
// 0 elsewhere and under the masks (in the pictures' pixels). It is nil
// when the pictures are not the same size. Pure.
func ChangedPixels(a, b image.Image, masks []image.Rectangle, tolerance int) *image.Alpha {
	if a.Bounds().Size() != b.Bounds().Size() {
		return nil
	}
	m, _ := changedPixels(a, b, masks, tolerance)
	return m
}

// changedPixels is ChangedPixels for pictures of one size, and how many
// pixels it compared (those no mask covers).
func changedPixels(a, b image.Image, masks []image.Rectangle, tolerance int) (*image.Alpha, int) {
	ra, rb := toRGBA(a), toRGBA(b)
	w, h := ra.Rect.Dx(), ra.Rect.Dy()
	masked := func(x, y int) bool {
		p := image.Pt(x, y)
		for _, m := range masks {
			if p.In(m) {
				return true
			}
		}
		return false
	}
	out := image.NewAlpha(image.Rect(0, 0, w, h))
	compared := 0
	t := uint8(max(0, min(255, tolerance)))
	for y := 0; y < h; y++ {
		pa := ra.Pix[y*ra.Stride : y*ra.Stride+w*4]
		pb := rb.Pix[y*rb.Stride : y*rb.Stride+w*4]
		row := out.Pix[y*out.Stride : y*out.Stride+w]
		for x := 0; x < w; x++ {
			if len(masks) > 0 && masked(x, y) {
				continue
			}
			compared++
			i := x * 4
			if far(pa[i], pb[i], t) || far(pa[i+1], pb[i+1], t) || far(pa[i+2], pb[i+2], t) {
				row[x] = 255
			}
		}
	}
	return out, compared
}

// Overlay draws the changed pixels (ChangedPixels' mark) in a strong
// colour over a dimmed, greyed copy of picture b, so a change shows
// however small. Pure.
func Overlay(b image.Image, changed *image.Alpha) *image.RGBA {
	out := toRGBA(b)
	if out == b {
		out = image.NewRGBA(out.Rect)
		draw.Draw(out, out.Rect, b, b.Bounds().Min, draw.Src)
	}
	w, h := out.Rect.Dx(), out.Rect.Dy()
	for y := 0; y < h; y++ {
		p := out.Pix[y*out.Stride : y*out.Stride+w*4]
		for x := 0; x < w; x++ {
			i := x * 4
			if changed != nil && image.Pt(x, y).In(changed.Rect) && changed.Pix[y*changed.Stride+x] != 0 {
				p[i], p[i+1], p[i+2], p[i+3] = 255, 0, 200, 255
				continue
			}
			// Grey, a third as bright, lifted a little: the page stays
			// legible behind the marks.
			g := (uint32(p[i])*3 + uint32(p[i+1])*6 + uint32(p[i+2])) / 10
			v := uint8(g/3 + 40)
			p[i], p[i+1], p[i+2], p[i+3] = v, v, v, 255
		}
	}
	return out
}

// StepMasks are the rectangles, in the new picture's pixels, that Compare
// left out of step st's pictures: what either take's script masked at the
// step.
func StepMasks(old, new *timeline.Take, st Step) []image.Rectangle {
	return pictureMasks(newSide(old), newSide(new), st.Pair)
}

// pictureMasks are the masks of pair p's pictures, in the new picture's
// pixels.
func pictureMasks(old, new *side, p Pair) []image.Rectangle {
	scale := new.scale()
	return append(toPixels(old.masks(p.Old), scale), toPixels(new.masks(p.New), scale)...)
}

func far(a, b, t uint8) bool {
	if a > b {
		return a-b > t
	}
	return b-a > t
}

// regions gathers the cells with changed pixels into regions: cells that
// touch (or are one empty cell apart) are one region. A region keeps its
// bounding box in pixels when it holds at least minRegion changed pixels.
// Pure.
func regions(counts []int, cw, ch, w, h, minRegion int) []image.Rectangle {
	seen := make([]bool, len(counts))
	type reg struct {
		r image.Rectangle
		n int
	}
	var out []reg
	for start := range counts {
		if counts[start] == 0 || seen[start] {
			continue
		}
		seen[start] = true
		stack := []int{start}
		x0, y0, x1, y1, n := cw, ch, -1, -1, 0
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cx, cy := c%cw, c/cw
			x0, y0, x1, y1 = min(x0, cx), min(y0, cy), max(x1, cx), max(y1, cy)
			n += counts[c]
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					nx, ny := cx+dx, cy+dy
					if nx < 0 || ny < 0 || nx >= cw || ny >= ch {
						continue
					}
					k := ny*cw + nx
					if counts[k] > 0 && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		if n >= minRegion {
			out = append(out, reg{image.Rect(x0*cell, y0*cell, min((x1+1)*cell, w), min((y1+1)*cell, h)), n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].n > out[j].n })
	rs := make([]image.Rectangle, len(out))
	for i, r := range out {
		rs[i] = r.r
	}
	return rs
}

// toRGBA returns img as RGBA at the origin, converting it when needed.
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	r := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(r, r.Rect, img, b.Min, draw.Src)
	return r
}

// toPixels turns rectangles of CSS pixels into the picture's pixels at
// scale (device pixels per CSS pixel).
func toPixels(rs []timeline.Rect, scale float64) []image.Rectangle {
	out := make([]image.Rectangle, 0, len(rs))
	for _, r := range rs {
		out = append(out, image.Rect(int(r.X*scale), int(r.Y*scale), int((r.X+r.W)*scale+0.999), int((r.Y+r.H)*scale+0.999)))
	}
	return out
}

// toCSS turns a rectangle of the picture's pixels into CSS pixels.
func toCSS(r image.Rectangle, scale float64) timeline.Rect {
	return timeline.Rect{X: float64(r.Min.X) / scale, Y: float64(r.Min.Y) / scale, W: float64(r.Dx()) / scale, H: float64(r.Dy()) / scale}
}
