package benchpage

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math/rand"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// frame makes a viewport-sized frame with motion-like noise around the
// code, paints c, and passes it through JPEG at quality q.
func frame(t *testing.T, c Code, w, h int, scale float64, q int) image.Image {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, int(float64(w)*scale), int(float64(h)*scale)))
	rng := rand.New(rand.NewSource(int64(c.Counter)))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{0x2a, 0x6e, 0xe8, 0xff}}, image.Point{}, draw.Src)
	for i := 0; i < 200; i++ {
		x, y := rng.Intn(img.Bounds().Dx()), rng.Intn(img.Bounds().Dy())
		draw.Draw(img, image.Rect(x, y, x+12, y+7), &image.Uniform{color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), 0, 0xff}}, image.Point{}, draw.Src)
	}
	Draw(img, c, scale)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDecodeSurvivesJPEG(t *testing.T) {
	codes := []Code{
		{},
		{Counter: 1, RAF: 16667 * time.Microsecond, Now: 17001 * time.Microsecond},
		{Counter: 0xFFFFFF, RAF: (1<<40 - 1) * time.Microsecond, Now: (1<<40 - 1) * time.Microsecond},
		{Counter: 123456, RAF: 98765432 * time.Microsecond, Now: 98766001 * time.Microsecond},
	}
	for _, scale := range []float64{1, 1.5, 2} {
		for _, q := range []int{30, 60, 85} {
			for _, c := range codes {
				got, err := Decode(frame(t, c, 1280, 720, scale, q), scale)
				if err != nil {
					t.Fatalf("scale %v quality %d %+v: %v", scale, q, c, err)
				}
				if got != c {
					t.Errorf("scale %v quality %d: decoded %+v, painted %+v", scale, q, got, c)
				}
			}
		}
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	c := Code{Counter: 42, RAF: time.Second, Now: time.Second + time.Millisecond}
	for bit := 0; bit < Cols*Rows; bit++ {
		img := image.NewRGBA(image.Rect(0, 0, 640, 360))
		Draw(img, c, 1)
		// Invert one block.
		r := blockRect(bit, 1).Inset(-Block / 4)
		inv := image.White
		if luma(img, blockRect(bit, 1)) > 128 {
			inv = image.Black
		}
		draw.Draw(img, r, inv, image.Point{}, draw.Src)
		if got, err := Decode(img, 1); !errors.Is(err, ErrNoCode) {
			t.Errorf("bit %d flipped: decoded %+v, %v; want ErrNoCode", bit, got, err)
		}
	}
}

func TestDecodeBlankAndSmall(t *testing.T) {
	white := image.NewGray(image.Rect(0, 0, 1280, 720))
	draw.Draw(white, white.Bounds(), image.White, image.Point{}, draw.Src)
	if _, err := Decode(white, 1); !errors.Is(err, ErrNoCode) {
		t.Errorf("blank frame: %v", err)
	}
	if _, err := Decode(image.NewGray(image.Rect(0, 0, 300, 40)), 1); !errors.Is(err, ErrNoCode) {
		t.Errorf("small frame: %v", err)
	}
	if _, err := Decode(white, 0); err == nil {
		t.Error("scale 0 accepted")
	}
}

// The page must paint the layout the decoder reads.
func TestPageMatchesLayout(t *testing.T) {
	src := string(HTML())
	m := regexp.MustCompile(`const BLOCK = (\d+), COLS = (\d+), ROWS = (\d+);`).FindStringSubmatch(src)
	if m == nil {
		t.Fatal("page.html: layout constants not found")
	}
	for i, want := range []int{Block, Cols, Rows} {
		if got, _ := strconv.Atoi(m[i+1]); got != want {
			t.Errorf("page.html constant %d is %d, decoder uses %d", i, got, want)
		}
	}
	pos := regexp.MustCompile(`#code \{ position: absolute; left: (\d+)px; top: (\d+)px; \}`).FindStringSubmatch(src)
	if pos == nil || pos[1] != strconv.Itoa(Left) || pos[2] != strconv.Itoa(Top) {
		t.Errorf("page.html places the code at %v, decoder reads (%d, %d)", pos, Left, Top)
	}
	if !bytes.Contains(HTML(), []byte("0xb2")) || crc16([]byte("123456789")) != 0x29B1 {
		t.Error("sync byte or CRC differ from page.html")
	}
}
