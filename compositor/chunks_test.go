package compositor

import (
	"reflect"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

func TestPlanChunks(t *testing.T) {
	cases := []struct {
		ticks, fps int
		want       []chunk
	}{
		{0, 60, nil},
		{10, 0, nil},
		{1, 60, []chunk{{0, 1}}},
		{29, 60, []chunk{{0, 29}}},
		{30, 60, []chunk{{0, 15}, {15, 15}}},
		{60, 60, []chunk{{0, 30}, {30, 30}}},
		{61, 60, []chunk{{0, 60}, {60, 1}}},
		{222, 60, []chunk{{0, 60}, {60, 60}, {120, 60}, {180, 21}, {201, 21}}},
		{240, 60, []chunk{{0, 60}, {60, 60}, {120, 60}, {180, 30}, {210, 30}}},
		{241, 60, []chunk{{0, 60}, {60, 60}, {120, 60}, {180, 60}, {240, 1}}},
		{600, 60, []chunk{{0, 60}, {60, 60}, {120, 60}, {180, 60}, {240, 120}, {360, 120}, {480, 60}, {540, 60}}},
		{90, 30, []chunk{{0, 30}, {30, 30}, {60, 15}, {75, 15}}},
		{3, 1, []chunk{{0, 1}, {1, 1}, {2, 1}}},
		{6, 1, []chunk{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}}},
	}
	for _, c := range cases {
		if got := planChunks(c.ticks, c.fps); !reflect.DeepEqual(got, c.want) {
			t.Errorf("planChunks(%d, %d) = %v, want %v", c.ticks, c.fps, got, c.want)
		}
	}
	for _, c := range []struct{ ticks, fps, want int }{
		{0, 60, 0}, {59, 60, 0}, {60, 60, 0}, {61, 60, 1}, {239, 60, 3}, {240, 60, 3}, {241, 60, 4}, {359, 60, 4}, {360, 60, 4}, {361, 60, 5}, {30, 0, 0},
	} {
		if got := wholeChunks(c.ticks, c.fps); got != c.want {
			t.Errorf("wholeChunks(%d, %d) = %d, want %d", c.ticks, c.fps, got, c.want)
		}
	}
	// A take known up to some tick has its whole chunks where the finished
	// take will have them: those are the ones made while capturing. The
	// chunks tile the ticks, in order.
	for _, fps := range []int{1, 15, 25, 30, 60} {
		total := 40*fps + 7
		long := planChunks(total, fps)
		for ticks := 1; ticks <= total; ticks++ {
			short := planChunks(ticks, fps)
			k := 0
			for _, ch := range short {
				if ch.First != k || ch.Count <= 0 {
					t.Fatalf("fps %d: planChunks(%d) = %v does not tile the ticks", fps, ticks, short)
				}
				k += ch.Count
			}
			if k != ticks {
				t.Fatalf("fps %d: planChunks(%d) covers %d ticks", fps, ticks, k)
			}
			for i := range wholeChunks(ticks, fps) {
				if short[i] != long[i] {
					t.Fatalf("fps %d: whole chunk %d of planChunks(%d) is %v, the finished take's is %v", fps, ticks, i, short[i], long[i])
				}
			}
		}
	}
}

func TestCutASS(t *testing.T) {
	head := "[Script Info]\nPlayResX: 10\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
	script := head +
		"Dialogue: 5,0:00:00.00,0:00:01.00,Cursor,,0,0,0,,before\n" +
		"Dialogue: 5,0:00:01.00,0:00:02.50,Cursor,,0,0,0,,over the start, kept whole\n" +
		"Dialogue: 4,0:00:02.20,0:00:02.80,Ripple,,0,0,0,,{\\t(0,600,x)}inside\n" +
		"Dialogue: 1,0:00:00.00,1:00:00.00,URL,,0,0,0,,past the end\n" +
		"Dialogue: 5,0:00:03.00,0:00:04.00,Cursor,,0,0,0,,after\n"
	want := head +
		"Dialogue: 5,0:00:01.00,0:00:02.50,Cursor,,0,0,0,,over the start, kept whole\n" +
		"Dialogue: 4,0:00:02.20,0:00:02.80,Ripple,,0,0,0,,{\\t(0,600,x)}inside\n" +
		"Dialogue: 1,0:00:00.00,0:00:03.00,URL,,0,0,0,,past the end\n"
	var b strings.Builder
	if err := cutASS(strings.NewReader(script), &b, ms(2000), ms(3000)); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("cut:\n%s\nwant:\n%s", b.String(), want)
	}
	// What follows the interval never changes the cut.
	var c strings.Builder
	later := strings.Replace(script, "1:00:00.00", "0:00:05.00", 1) + "Dialogue: 5,0:00:09.00,0:00:10.00,Cursor,,0,0,0,,later\n"
	if err := cutASS(strings.NewReader(later), &c, ms(2000), ms(3000)); err != nil {
		t.Fatal(err)
	}
	if c.String() != want {
		t.Errorf("a script that differs only after the interval cut to:\n%s", c.String())
	}
	if err := cutASS(strings.NewReader("Dialogue: 5,x,y,z\n"), &c, 0, ms(1)); err == nil {
		t.Error("a bad event time was accepted")
	}
}

func TestZoomCut(t *testing.T) {
	base := zoomState{1, 160, 90}
	in := zoomState{2, 100, 50}
	zt := &ZoomTrack{base: base, segs: []zoomSeg{
		{K0: 100, K1: 120, From: base, To: in},
		{K0: 300, K1: 320, From: in, To: base},
	}}
	cases := []struct {
		name string
		c    chunk
	}{
		{"before the first motion", chunk{0, 90}},
		{"across the first motion", chunk{90, 90}},
		{"holding", chunk{180, 90}},
		{"across the second", chunk{270, 90}},
		{"after the last", chunk{360, 90}},
	}
	for _, c := range cases {
		ct := zt.cut(c.c)
		if !ct.Active() {
			t.Errorf("%s: the cut is not active", c.name)
		}
		for k := 0; k < c.c.Count; k++ {
			if got, want := ct.At(k), zt.At(c.c.First+k); got != want {
				t.Fatalf("%s: tick %d: %v, want %v", c.name, c.c.First+k, got, want)
			}
		}
	}
	if (&ZoomTrack{base: base}).cut(chunk{0, 10}).Active() {
		t.Error("a still camera's cut moves")
	}
}

// A take's MP4s are rendered in chunks unless it was filmed live or
// another format shares their run; GIFs stand apart, and Chunked says the
// same for output names.
func TestChunkedTake(t *testing.T) {
	mp4, webm, png := outputSpec{Format: formatMP4}, outputSpec{Format: formatWebM}, outputSpec{Format: formatPNG}
	for _, c := range []struct {
		mode   string
		videos []outputSpec
		outs   []string
		want   bool
	}{
		{timeline.CaptureStudio, []outputSpec{mp4}, []string{"a.mp4"}, true},
		{timeline.CaptureStudio, []outputSpec{mp4, mp4}, []string{"a.mp4", "b.mp4", "c.gif"}, true},
		{"", []outputSpec{mp4}, []string{"a.mp4", "a.gif"}, true}, // a take from before modes were recorded
		{timeline.CaptureLive, []outputSpec{mp4}, []string{"a.mp4"}, false},
		{timeline.CaptureLive, []outputSpec{mp4, mp4}, []string{"a.mp4", "b.mp4", "c.gif"}, false},
		{timeline.CaptureStudio, []outputSpec{mp4, webm}, []string{"a.mp4", "a.webm"}, false},
		{timeline.CaptureStudio, []outputSpec{png}, []string{"frames.png"}, false},
		{timeline.CaptureStudio, nil, []string{"a.gif"}, false},
	} {
		if got := chunkedTake(c.mode, c.videos); got != c.want {
			t.Errorf("chunkedTake(%q, %v) = %v, want %v", c.mode, c.videos, got, c.want)
		}
		if got := Chunked(c.mode, c.outs); got != c.want {
			t.Errorf("Chunked(%q, %q) = %v, want %v", c.mode, c.outs, got, c.want)
		}
	}
}
