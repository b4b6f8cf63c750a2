package viewer

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
)

// ThumbWidth is the width in pixels of a filmstrip picture.
const ThumbWidth = 176

// MaxFrameSide bounds the width and height of a frame the viewer decodes:
// Chromium's screencast frames are the viewport times its scale, far below.
const MaxFrameSide = 8192

// thumbnail decodes a JPEG frame and returns it scaled to width w (box
// filter), re-encoded as a small JPEG.
func thumbnail(b []byte, w int) ([]byte, error) {
	src, err := decodeFrame(b)
	if err != nil {
		return nil, err
	}
	sb := src.Bounds()
	if sb.Dx() <= 0 || sb.Dy() <= 0 {
		return nil, fmt.Errorf("empty frame")
	}
	if w > sb.Dx() {
		w = sb.Dx()
	}
	h := max(1, sb.Dy()*w/sb.Dx())
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	ycc, isYCC := src.(*image.YCbCr)
	for y := 0; y < h; y++ {
		y0, y1 := sb.Min.Y+y*sb.Dy()/h, sb.Min.Y+(y+1)*sb.Dy()/h
		for x := 0; x < w; x++ {
			x0, x1 := sb.Min.X+x*sb.Dx()/w, sb.Min.X+(x+1)*sb.Dx()/w
			var r, g, bl, n uint32
			// A few samples per box are enough for a filmstrip.
			stepY, stepX := max(1, (y1-y0)/3), max(1, (x1-x0)/3)
			for sy := y0; sy < y1; sy += stepY {
				for sx := x0; sx < x1; sx += stepX {
					var cr, cg, cb uint32
					if isYCC {
						yi, ci := ycc.YOffset(sx, sy), ycc.COffset(sx, sy)
						rr, gg, bb := color.YCbCrToRGB(ycc.Y[yi], ycc.Cb[ci], ycc.Cr[ci])
						cr, cg, cb = uint32(rr), uint32(gg), uint32(bb)
					} else {
						rr, gg, bb, _ := src.At(sx, sy).RGBA()
						cr, cg, cb = rr>>8, gg>>8, bb>>8
					}
					r, g, bl, n = r+cr, g+cg, bl+cb, n+1
				}
			}
			i := dst.PixOffset(x, y)
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = uint8(r/n), uint8(g/n), uint8(bl/n), 255
		}
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: 72}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// decodeFrame decodes a JPEG frame, refusing one whose header claims more
// than MaxFrameSide pixels a side.
func decodeFrame(b []byte) (image.Image, error) {
	// The header first: a frame of a few hundred bytes can claim
	// 65535×65535 pixels, and decoding it would allocate gigabytes.
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decode frame: %w", err)
	}
	if cfg.Width > MaxFrameSide || cfg.Height > MaxFrameSide {
		return nil, fmt.Errorf("the frame claims %d×%d pixels, more than any screencast frame (at most %d a side): the take is damaged or was crafted", cfg.Width, cfg.Height, MaxFrameSide)
	}
	src, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decode frame: %w", err)
	}
	return src, nil
}
