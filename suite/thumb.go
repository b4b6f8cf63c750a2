package suite

import (
	"bytes"
	"image"
	"image/jpeg"
	_ "image/png" // frames stored as PNG decode too
	"os"

	"github.com/clapper-dev/clapper/timeline"
)

// thumbWidth is the width of a script's picture in the index.
const thumbWidth = 320

// writeThumb writes a small JPEG of the take's last frame to path. It
// reports false when the take has no frame.
func writeThumb(takeDir, path string) (bool, error) {
	tk, err := timeline.Open(takeDir)
	if err != nil {
		return false, err
	}
	var last *timeline.Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			return false, err
		}
		last = &fr
	}
	if last == nil {
		return false, nil
	}
	b, err := tk.ReadFrame(*last)
	if err != nil {
		return false, err
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return false, err
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, shrink(img, thumbWidth), &jpeg.Options{Quality: 75}); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, out.Bytes(), 0o644)
}

// shrink scales img down to width w (never up), each pixel the mean of
// the source pixels it covers. Pure.
func shrink(img image.Image, w int) image.Image {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw <= w || sw == 0 || sh == 0 {
		return img
	}
	h := max(1, sh*w/sw)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := range w {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, bl, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := img.At(b.Min.X+sx, b.Min.Y+sy).RGBA()
					r, g, bl, a, n = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), n+1
				}
			}
			i := dst.PixOffset(x, y)
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = uint8(r/n>>8), uint8(g/n>>8), uint8(bl/n>>8), uint8(a/n>>8)
		}
	}
	return dst
}
