package benchpage

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"time"
)

// The code's layout, in CSS pixels; page.html paints the same.
const (
	Block    = 16 // side of one block
	Cols     = 32
	Rows     = 4
	Left     = 16 // position of the first block
	Top      = 16
	codeLen  = Cols * Rows / 8 // bytes
	syncByte = 0xB2

	// MinWidth and MinHeight are the smallest viewport, in CSS pixels,
	// that shows the whole code.
	MinWidth  = Left + Cols*Block
	MinHeight = Top + Rows*Block
)

// Code is what one painted page frame says about itself. Times are on the
// page's clock (performance.now(): since performance.timeOrigin), to the
// microsecond.
type Code struct {
	// Counter is the page's animation-frame counter, modulo 2^24.
	Counter uint32
	// RAF is the time requestAnimationFrame passed to the callback that
	// painted this frame (the frame's begin time).
	RAF time.Duration
	// Now is performance.now() read inside that callback.
	Now time.Duration
}

// ErrNoCode is returned when a frame holds no readable code: the sync byte
// or the CRC does not match (another page, a torn or damaged frame).
var ErrNoCode = errors.New("no bench code in frame")

// bytes lays c out as the page does.
func (c Code) bytes() [codeLen]byte {
	var b [codeLen]byte
	b[0] = syncByte
	putBE(b[1:4], uint64(c.Counter&0xFFFFFF))
	putBE(b[4:9], uint64(c.RAF/time.Microsecond))
	putBE(b[9:14], uint64(c.Now/time.Microsecond))
	putBE(b[14:16], uint64(crc16(b[1:14])))
	return b
}

func putBE(dst []byte, v uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte(v)
		v >>= 8
	}
}

func getBE(src []byte) uint64 {
	var v uint64
	for _, b := range src {
		v = v<<8 | uint64(b)
	}
	return v
}

// crc16 is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as page.html.
func crc16(b []byte) uint16 {
	c := uint16(0xFFFF)
	for _, x := range b {
		c ^= uint16(x) << 8
		for i := 0; i < 8; i++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
	}
	return c
}

func parse(b [codeLen]byte) (Code, error) {
	if b[0] != syncByte {
		return Code{}, fmt.Errorf("%w: sync byte %#02x", ErrNoCode, b[0])
	}
	if got, want := crc16(b[1:14]), uint16(getBE(b[14:16])); got != want {
		return Code{}, fmt.Errorf("%w: crc %#04x, painted %#04x", ErrNoCode, got, want)
	}
	return Code{
		Counter: uint32(getBE(b[1:4])),
		RAF:     time.Duration(getBE(b[4:9])) * time.Microsecond,
		Now:     time.Duration(getBE(b[9:14])) * time.Microsecond,
	}, nil
}

// blockRect returns bit i's block in image pixels at the given scale
// (device pixels per CSS pixel), inset by a quarter block on each side so
// that JPEG ringing at the edges does not count.
func blockRect(i int, scale float64) image.Rectangle {
	x := float64(Left + (i%Cols)*Block)
	y := float64(Top + (i/Cols)*Block)
	in := float64(Block) / 4
	return image.Rect(int((x+in)*scale+0.5), int((y+in)*scale+0.5), int((x+Block-in)*scale+0.5), int((y+Block-in)*scale+0.5))
}

// Decode reads the code from a frame of the page. scale is the frame's
// device pixels per CSS pixel (the frame width over the viewport width).
func Decode(img image.Image, scale float64) (Code, error) {
	if scale <= 0 {
		return Code{}, fmt.Errorf("decode: scale %v", scale)
	}
	last := blockRect(Cols*Rows-1, scale)
	if !last.In(img.Bounds().Sub(img.Bounds().Min)) {
		return Code{}, fmt.Errorf("%w: frame %v too small for the code", ErrNoCode, img.Bounds().Size())
	}
	var b [codeLen]byte
	for i := 0; i < Cols*Rows; i++ {
		if luma(img, blockRect(i, scale).Add(img.Bounds().Min)) < 128 {
			b[i>>3] |= 0x80 >> (i & 7)
		}
	}
	return parse(b)
}

// luma is the mean luma of r.
func luma(img image.Image, r image.Rectangle) int {
	var sum, n int
	switch m := img.(type) {
	case *image.YCbCr:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := m.Y[m.YOffset(r.Min.X, y) : m.YOffset(r.Max.X-1, y)+1]
			for _, v := range row {
				sum += int(v)
			}
			n += len(row)
		}
	case *image.Gray:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := m.Pix[m.PixOffset(r.Min.X, y) : m.PixOffset(r.Max.X-1, y)+1]
			for _, v := range row {
				sum += int(v)
			}
			n += len(row)
		}
	default:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				sum += int(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y)
				n++
			}
		}
	}
	if n == 0 {
		return 255
	}
	return sum / n
}

// Draw paints c into img as the page does (white ground, black ones), at
// the given scale. Tests use it to make frames without a browser.
func Draw(img draw.Image, c Code, scale float64) {
	b := c.bytes()
	x0, y0 := float64(Left)*scale, float64(Top)*scale
	ground := image.Rect(int(x0+0.5), int(y0+0.5), int(x0+Cols*Block*scale+0.5), int(y0+Rows*Block*scale+0.5))
	draw.Draw(img, ground.Add(img.Bounds().Min), image.White, image.Point{}, draw.Src)
	for i := 0; i < Cols*Rows; i++ {
		if b[i>>3]&(0x80>>(i&7)) == 0 {
			continue
		}
		x := float64(Left+(i%Cols)*Block) * scale
		y := float64(Top+(i/Cols)*Block) * scale
		r := image.Rect(int(x+0.5), int(y+0.5), int(x+Block*scale+0.5), int(y+Block*scale+0.5))
		draw.Draw(img, r.Add(img.Bounds().Min), image.Black, image.Point{}, draw.Src)
	}
}
