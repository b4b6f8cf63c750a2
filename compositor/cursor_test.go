package compositor

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

func TestGeometry(t *testing.T) {
	cases := []struct {
		name               string
		capW, capH         int
		vp                 timeline.Viewport
		outW, outH         int
		wantOut            [2]int
		wantContent        [4]int
		cssX, cssY, px, py float64
	}{
		{"capture size hidpi", 2560, 1440, timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, 0, 0,
			[2]int{2560, 1440}, [4]int{0, 0, 2560, 1440}, 100, 50, 200, 100},
		{"downscale same aspect", 2560, 1440, timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, 1280, 720,
			[2]int{1280, 720}, [4]int{0, 0, 1280, 720}, 100, 50, 100, 50},
		{"pillarbox into square", 1280, 720, timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 1080, 1080,
			[2]int{1080, 1080}, [4]int{0, 236, 1080, 608}, 640, 360, 540, 236 + 304},
		{"letterbox tall", 800, 600, timeline.Viewport{Width: 800, Height: 600, Scale: 1}, 1920, 1080,
			[2]int{1920, 1080}, [4]int{240, 0, 1440, 1080}, 0, 0, 240, 0},
		{"odd capture rounds to even", 641, 361, timeline.Viewport{Width: 641, Height: 361, Scale: 1}, 0, 0,
			[2]int{640, 360}, [4]int{0, 0, 640, 360}, 641, 361, 640, 360},
		{"no viewport recorded", 640, 360, timeline.Viewport{}, 0, 0,
			[2]int{640, 360}, [4]int{0, 0, 640, 360}, 10, 20, 10, 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := newGeometry(c.capW, c.capH, c.vp, c.outW, c.outH)
			if err != nil {
				t.Fatal(err)
			}
			if [2]int{g.OutW, g.OutH} != c.wantOut {
				t.Errorf("out = %dx%d, want %v", g.OutW, g.OutH, c.wantOut)
			}
			if got := [4]int{g.ContentX, g.ContentY, g.ContentW, g.ContentH}; got != c.wantContent {
				t.Errorf("content = %v, want %v", got, c.wantContent)
			}
			x, y := g.Point(c.cssX, c.cssY)
			if math.Abs(x-c.px) > 0.01 || math.Abs(y-c.py) > 0.01 {
				t.Errorf("Point(%g,%g) = %g,%g, want %g,%g", c.cssX, c.cssY, x, y, c.px, c.py)
			}
		})
	}
	if _, err := newGeometry(0, 10, timeline.Viewport{}, 0, 0); err == nil {
		t.Error("empty capture: want an error")
	}
}

func TestCursorTrack(t *testing.T) {
	rs := []timeline.Receipt{
		{Kind: timeline.InputMove, X: 10, Y: 20, Sent: 100, Tab: "A"},
		{Kind: timeline.InputKey, Key: "a", Sent: 150, Tab: "A"},
		{Kind: timeline.InputMove, X: 500, Y: 500, Sent: 160, Tab: "B"}, // scout tab
		{Kind: timeline.InputDown, X: 30, Y: 40, Sent: 200, Tab: "A"},
		{Kind: timeline.InputUp, X: 30, Y: 40, Sent: 250},
		{Kind: timeline.InputMove, X: 99, Y: 99, Sent: 260, Error: "rejected"},
		{Kind: timeline.InputMove, X: 60, Y: 70, Sent: 300, Tab: "A"},
	}
	ct := NewCursorTrack(rs, "A")
	want := []struct {
		at timeline.Time
		st CursorState
	}{
		{0, CursorState{}},
		{99, CursorState{}},
		{100, CursorState{true, 10, 20, "arrow"}},
		{170, CursorState{true, 10, 20, "arrow"}},
		{200, CursorState{true, 30, 40, "arrow"}},
		{299, CursorState{true, 30, 40, "arrow"}},
		{300, CursorState{true, 60, 70, "arrow"}},
		{1e9, CursorState{true, 60, 70, "arrow"}},
	}
	for _, w := range want {
		if got := ct.At(w.at); got != w.st {
			t.Errorf("At(%d) = %+v, want %+v", w.at, got, w.st)
		}
	}
	if c := ct.Clicks(); len(c) != 1 || c[0] != (Click{200, 30, 40}) {
		t.Errorf("clicks = %+v", c)
	}
}

func TestASSTime(t *testing.T) {
	for d, want := range map[int64]string{0: "0:00:00.00", 4_999_999: "0:00:00.00", 5_000_000: "0:00:00.01", 61_234_000_000: "0:01:01.23", 3_600_000_000_000: "1:00:00.00", -5: "0:00:00.00"} {
		if got := assTime(timeDur(d)); got != want {
			t.Errorf("assTime(%d) = %s, want %s", d, got, want)
		}
	}
}

// TestTickBoundaries checks that every rounded event boundary falls strictly
// between the two ticks it separates, as libass sees them (frame times in
// whole milliseconds), at every supported rate.
func TestTickBoundaries(t *testing.T) {
	for _, fps := range []int{24, 25, 30, 50, 60} {
		s, _ := newSchedule(fps, 0, timeline.Time(120*second), nil)
		for k := 1; k < s.Ticks(); k++ {
			b := parseASSTime(t, assTime(tickBoundary(s, k)))
			prev := (int64(k-1)*1000 + int64(fps)/2) / int64(fps)
			cur := (int64(k)*1000 + int64(fps)/2) / int64(fps)
			if !(prev < b && b <= cur) {
				t.Fatalf("fps %d tick %d: boundary %dms not in (%d, %d]", fps, k, b, prev, cur)
			}
		}
	}
}

func parseASSTime(t *testing.T, s string) int64 {
	var h, m, sec, cs int64
	if _, err := fmtSscanf(s, "%d:%d:%d.%d", &h, &m, &sec, &cs); err != nil {
		t.Fatal(err)
	}
	return ((h*60+m)*60+sec)*1000 + cs*10
}

func TestOverlayScript(t *testing.T) {
	g, _ := newGeometry(640, 360, timeline.Viewport{Width: 320, Height: 180, Scale: 2}, 0, 0)
	s, _ := newSchedule(10, 0, timeline.Time(second), nil)
	rs := []timeline.Receipt{
		{Kind: timeline.InputMove, X: 10, Y: 20, Sent: timeline.Time(250e6)},
		{Kind: timeline.InputDown, X: 10, Y: 20, Sent: timeline.Time(500e6)},
		{Kind: timeline.InputMove, X: 100, Y: 50, Sent: timeline.Time(700e6)},
	}
	var b bytes.Buffer
	cs := DefaultSettings().Cursor
	cs.Smoothing = "raw"
	if err := writeOverlay(&b, overlayInput{Schedule: s, Geometry: g, Cursor: cs, Track: NewCursorTrack(rs, "")}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"PlayResX: 640", "PlayResY: 360",
		// hidden until 250ms: first shown at tick 3 (300ms), boundary 250ms.
		`Dialogue: 5,0:00:00.25,0:00:00.65,Cursor,,0,0,0,,{\pos(20,40)\p1}`,
		`Dialogue: 5,0:00:00.65,0:00:00.95,Cursor,,0,0,0,,{\pos(200,100)\p1}`,
		`Dialogue: 4,0:00:00.50,0:00:00.95,Ripple,,0,0,0,,{\pos(20,40)`,
		"Style: Cursor,DejaVu Sans,20,&H00202020,&H00202020,&H00FFFFFF,&H00000000,0,0,0,0,200,200,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("overlay lacks %q:\n%s", want, out)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^Dialogue: 5,`).FindAllString(out, -1)); n != 2 {
		t.Errorf("%d cursor events, want 2 (runs merged):\n%s", n, out)
	}

	cs.Click = false
	b.Reset()
	_ = writeOverlay(&b, overlayInput{Schedule: s, Geometry: g, Cursor: cs, Track: NewCursorTrack(rs, "")})
	if strings.Contains(b.String(), "Ripple,,") {
		t.Error("ripple drawn with clicks off")
	}
}

func TestLayoutFrameAndCover(t *testing.T) {
	vp := timeline.Viewport{Width: 1280, Height: 720, Scale: 1}
	// Cover: a 16:9 capture filling a square, the overflow cropped.
	g, err := layout(1280, 720, vp, 1080, 1080, "cover", FrameSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if g.ScaledW != 1920 || g.ScaledH != 1080 || g.ContentW != 1080 || g.ContentH != 1080 || g.CropX != 420 || g.ContentX != 0 {
		t.Errorf("cover = %+v", g)
	}
	if x, y := g.Point(640, 360); math.Abs(x-540) > 0.01 || math.Abs(y-540) > 0.01 {
		t.Errorf("cover centre -> %v,%v, want 540,540", x, y)
	}
	// Frame at capture size: padding and bar grow the picture.
	fr := FrameSettings{Enabled: true, Padding: 40, Bar: true}
	g, _ = layout(1280, 720, vp, 0, 0, "contain", fr)
	if g.OutW != 1360 || g.OutH != 720+80+g.BarH || g.BarH != 32 || g.ContentX != 40 || g.ContentY != 40+32 || g.ContentW != 1280 {
		t.Errorf("framed capture size = %+v", g)
	}
	wx, wy, ww, wh := g.window()
	if wx != 40 || wy != 40 || ww != 1280 || wh != 720+32 {
		t.Errorf("window = %d,%d %dx%d", wx, wy, ww, wh)
	}
	// Frame in a fixed size: the page shrinks to fit inside padding and bar.
	g, _ = layout(1280, 720, vp, 1920, 1080, "contain", fr)
	if g.ContentY < 40+g.BarH || g.ContentY+g.ContentH > 1080-40 || g.ContentX < 40 || g.ContentX%2 != 0 || g.ContentY%2 != 0 {
		t.Errorf("framed 1080p = %+v", g)
	}
	if _, err := layout(1280, 720, vp, 60, 60, "contain", fr); err == nil {
		t.Error("padding larger than the picture: want an error")
	}
}
