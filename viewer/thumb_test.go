package viewer

import (
	"bytes"
	"image"
	"image/jpeg"
	"strings"
	"testing"
)

// claiming returns a real 16×16 JPEG whose SOF header is patched to claim
// w×h pixels: a few hundred bytes.
func claiming(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	j := b.Bytes()
	i := bytes.Index(j, []byte{0xff, 0xc0})
	if i < 0 {
		t.Fatal("no SOF0 in the encoded JPEG")
	}
	// FF C0, length (2), precision (1), height (2), width (2).
	j[i+5], j[i+6] = byte(h>>8), byte(h)
	j[i+7], j[i+8] = byte(w>>8), byte(w)
	return j
}

// A frame whose header claims more pixels than any screencast frame is
// refused before it is decoded; a real one is scaled.
func TestThumbnailRefusesHugeFrames(t *testing.T) {
	for _, c := range []struct{ w, h int }{{65535, 65535}, {MaxFrameSide + 1, 16}, {16, MaxFrameSide + 1}} {
		_, err := thumbnail(claiming(t, c.w, c.h), ThumbWidth)
		if err == nil || !strings.Contains(err.Error(), "at most 8192 a side") {
			t.Errorf("%d×%d: %v", c.w, c.h, err)
		}
	}
	th, err := thumbnail(claiming(t, 16, 16), ThumbWidth)
	if err != nil || len(th) == 0 {
		t.Errorf("16×16: %v", err)
	}
}
