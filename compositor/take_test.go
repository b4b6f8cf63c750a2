package compositor

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os/exec"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// This file builds synthetic takes for the tests: solid-colour JPEG frames at
// chosen source times, written with the timeline package's own writers.

type synthFrame struct {
	at time.Duration
	c  color.RGBA
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// solidJPEG encodes a w x h JPEG of one colour.
func solidJPEG(t testing.TB, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeTake writes a take into dir: frames of w x h device pixels, and tl
// (whose accounting is filled in here), and opens it.
func writeTake(t testing.TB, dir string, w, h int, frames []synthFrame, tl timeline.Timeline) *timeline.Take {
	t.Helper()
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache := map[color.RGBA][]byte{}
	for i, f := range frames {
		b, ok := cache[f.c]
		if !ok {
			b = solidJPEG(t, w, h, f.c)
			cache[f.c] = b
		}
		fr := timeline.Frame{
			Seq: int64(i + 1), Source: timeline.FromDuration(f.at), Received: timeline.FromDuration(f.at + ms(3)),
			Width: w, Height: h, Bytes: len(b), File: timeline.FramePath(int64(i + 1)),
			PageScaleFactor: 1, DeviceWidth: float64(tl.Viewport.Width), DeviceHeight: float64(tl.Viewport.Height),
		}
		addFrame(t, dir, log, fr, b)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if tl.Tool == "" {
		tl.Tool = "compositor-test"
	}
	if tl.Outcome == "" {
		tl.Outcome = timeline.RunOK
	}
	tk := finishTake(t, dir, &tl, int64(len(frames)))
	if err := tk.Validate(); err != nil {
		t.Fatal(err)
	}
	return tk
}

// requireTool returns the path of a binary the integration tests need, or
// skips as testenv.Need does (CLAPPER_REQUIRE_INTEGRATION=1 makes a
// missing binary a failure).
func requireTool(t testing.TB, name string) string {
	t.Helper()
	testenv.Need(t, name)
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func execOutput(t testing.TB, name string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(requireTool(t, name), args...).CombinedOutput()
	return string(out), err
}
