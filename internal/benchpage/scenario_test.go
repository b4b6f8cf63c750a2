package benchpage

import (
	"image"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func TestSummarizeScenario(t *testing.T) {
	frame := time.Second / 60
	// sample is page frame n of document doc, produced at source time
	// origin + n frames (+ jitter).
	sample := func(doc int, origin time.Duration, n uint32, jitter time.Duration) Sample {
		raf := time.Duration(n) * frame
		return Sample{Document: doc, Source: timeline.Time(origin + raf + jitter), Decoded: true, Code: Code{Counter: n, RAF: raf}}
	}
	var s []Sample
	s = append(s, Sample{Document: 0, Source: 0}) // the blank tab: no code
	for n := uint32(0); n < 30; n++ {
		if n == 10 || n == 11 {
			continue // two page frames missed
		}
		s = append(s, sample(1, time.Second, n, 0))
	}
	// A screenshot (seeded) in document 1 does not split a freeze.
	s = append(s, Sample{Document: 1, Source: timeline.Time(time.Second + 29*frame + 50*time.Millisecond), Seeded: true, Decoded: true, Code: Code{Counter: 29, RAF: 29 * frame}})
	// Document 2 begins with two frames of the previous page that arrived
	// after the commit (its counter, its clock), 300 ms before the new
	// page's first: left out of every figure.
	for _, n := range []uint32{30, 31} {
		s = append(s, Sample{Document: 2, Source: timeline.Time(3*time.Second - 300*time.Millisecond + time.Duration(n-30)*frame), Decoded: true, Code: Code{Counter: n, RAF: time.Duration(n) * frame}})
	}
	// Then the counter starts again; a 200 ms stall between 5 and 17.
	for _, n := range []uint32{0, 1, 2, 3, 4, 5, 17, 18, 19} {
		j := time.Duration(0)
		if n == 18 {
			j = 3 * time.Millisecond
		}
		s = append(s, sample(2, 3*time.Second, n, j))
	}
	f := SummarizeScenario(s)
	if f.Documents != 2 || f.Painted != 30+20 || f.Distinct != 28+9 || f.Seeded != 1 || f.Undecodable != 1 {
		t.Errorf("figures %+v", f)
	}
	if want := float64(37) / 50; math.Abs(f.Coverage-want) > 1e-9 {
		t.Errorf("coverage %v, want %v", f.Coverage, want)
	}
	if want := float64(12*frame) / 1e6; math.Abs(f.LongestFreezeMs-want) > 1e-6 {
		t.Errorf("longest freeze %.3f ms, want %.3f (the stall in document 2, not the navigation)", f.LongestFreezeMs, want)
	}
	if want := timeline.Time(3*time.Second + 5*frame); f.LongestFreezeAt != want {
		t.Errorf("longest freeze at %v, want %v (page frame 5 of document 2)", f.LongestFreezeAt, want)
	}
	if math.Abs(f.Drift.Max-3) > 1e-6 || f.Drift.P50 != 0 {
		t.Errorf("drift %+v, want 0 ms but for the one 3 ms late frame", f.Drift)
	}
}

func TestSummarizeVideo(t *testing.T) {
	tick := func(n uint32) VideoTick { return VideoTick{Code: Code{Counter: n}, Decoded: true} }
	none := VideoTick{}
	for _, c := range []struct {
		name             string
		ticks            []VideoTick
		decoded, repeats int
		stillMs          float64
	}{
		{"every frame new", []VideoTick{tick(1), tick(2), tick(3)}, 3, 0, 0},
		{"one repeat", []VideoTick{tick(1), tick(2), tick(2), tick(3)}, 4, 1, 2000.0 / 60},
		{"a freeze of 5 ticks", []VideoTick{tick(1), tick(2), tick(2), tick(2), tick(2), tick(2), tick(3)}, 7, 4, 5000.0 / 60},
		{"a navigation's wait is left out", []VideoTick{tick(40), tick(41), tick(41), tick(41), tick(0), tick(1), tick(1), tick(2)}, 8, 3, 2000.0 / 60},
		{"an unreadable tick ends a run", []VideoTick{tick(1), tick(1), none, tick(1), tick(2)}, 4, 1, 2000.0 / 60},
		{"a freeze at the end", []VideoTick{tick(1), tick(2), tick(2), tick(2)}, 4, 2, 3000.0 / 60},
	} {
		r := SummarizeVideo(c.ticks, 60)
		if r.Decoded != c.decoded || r.Repeated != c.repeats || math.Abs(r.LongestStillMs-c.stillMs) > 1e-9 || r.Ticks != len(c.ticks) {
			t.Errorf("%s: %+v, want decoded %d, repeated %d, longest still %.2f ms", c.name, r, c.decoded, c.repeats, c.stillMs)
		}
	}
}

// SameFrames compares two videos tick by tick, of the longer one.
func TestSameFrames(t *testing.T) {
	v := func(hs ...uint64) []VideoTick {
		out := make([]VideoTick, len(hs))
		for i, h := range hs {
			out[i].Hash = h
		}
		return out
	}
	for _, c := range []struct {
		a, b     []VideoTick
		same, of int
	}{
		{v(1, 2, 3), v(1, 2, 3), 3, 3},
		{v(1, 2, 3), v(1, 9, 3), 2, 3},
		{v(1, 2, 3), v(1, 2), 2, 3}, // a tick missing counts against
		{v(1, 2), v(2, 1), 0, 2},    // the same pictures, a tick apart
		{nil, v(1), 0, 1},
		{nil, nil, 0, 0},
	} {
		if same, of := SameFrames(c.a, c.b); same != c.same || of != c.of {
			t.Errorf("SameFrames(%v, %v) = %d of %d, want %d of %d", c.a, c.b, same, of, c.same, c.of)
		}
		if same, of := SameFrames(c.b, c.a); same != c.same || of != c.of {
			t.Errorf("SameFrames is not symmetric for %v, %v", c.a, c.b)
		}
	}
}

// SamePictures compares two takes' frames in order: the same bytes, or
// the same but for the page's performance.now() reading.
func TestSamePictures(t *testing.T) {
	// pic is a decoded frame at source time src in document 1, of page
	// frame n at rAF time raf, whose bytes hash to h, h2 outside the code.
	pic := func(src timeline.Time, h, h2 uint64, n uint32, raf time.Duration) Sample {
		return Sample{Source: src, Document: 1, Hash: h, Rest: h2, Decoded: true, Code: Code{Counter: n, RAF: raf, Now: time.Duration(h)}}
	}
	one := func(s ...Sample) []Sample { return s }
	for _, c := range []struct {
		name             string
		a, b             []Sample
		same, butNow, of int
	}{
		{"the same", one(pic(0, 1, 7, 5, 80), pic(1, 2, 8, 6, 96)), one(pic(0, 1, 7, 5, 80), pic(1, 2, 8, 6, 96)), 2, 2, 2},
		{"only now differs", one(pic(0, 1, 7, 5, 80)), one(pic(0, 2, 7, 5, 80)), 0, 1, 1},
		{"another page frame", one(pic(0, 1, 7, 5, 80)), one(pic(0, 2, 7, 6, 80)), 0, 0, 1},
		{"another rAF time", one(pic(0, 1, 7, 5, 80)), one(pic(0, 2, 7, 5, 81)), 0, 0, 1},
		{"outside the code", one(pic(0, 1, 7, 5, 80)), one(pic(0, 2, 8, 5, 80)), 0, 0, 1},
		{"another time", one(pic(0, 1, 7, 5, 80)), one(pic(1, 1, 7, 5, 80)), 0, 0, 2},
		{"a frame more between", one(pic(0, 1, 7, 5, 80), pic(2, 3, 9, 7, 112)), one(pic(0, 1, 7, 5, 80), pic(1, 2, 8, 6, 96), pic(2, 3, 9, 7, 112)), 2, 2, 3},
		{"another document", one(pic(0, 1, 7, 5, 80)), one(Sample{Source: 0, Document: 2, Hash: 1, Rest: 7, Decoded: true, Code: Code{Counter: 5, RAF: 80}}), 0, 0, 1},
		{"undecoded", one(Sample{Hash: 1, Rest: 7}), one(Sample{Hash: 2, Rest: 7}), 0, 0, 1},
		{"one more", one(pic(0, 1, 7, 5, 80)), one(pic(0, 1, 7, 5, 80), pic(1, 2, 8, 6, 96)), 1, 1, 2},
	} {
		if same, butNow, of := SamePictures(c.a, c.b); same != c.same || butNow != c.butNow || of != c.of {
			t.Errorf("%s: %d, %d of %d, want %d, %d of %d", c.name, same, butNow, of, c.same, c.butNow, c.of)
		}
		if same, butNow, of := SamePictures(c.b, c.a); same != c.same || butNow != c.butNow || of != c.of {
			t.Errorf("%s: not symmetric", c.name)
		}
	}
}

// The hash outside the code leaves out exactly the code's strip, widened
// to whole 16-pixel blocks: a change in it keeps the hash, one beside it
// or under it does not.
func TestRestHashLeavesOutTheCode(t *testing.T) {
	for _, scale := range []float64{1, 2} {
		img := image.NewYCbCr(image.Rect(0, 0, int(800*scale), int(200*scale)), image.YCbCrSubsampleRatio420)
		rest := restHash(img, scale)
		in := int((Left + 100) * scale)
		img.Y[img.YOffset(in, int(Top*scale)+3)] = 255 // inside the code
		img.Cb[img.COffset(in, int(Top*scale)+3)] = 9
		if restHash(img, scale) != rest {
			t.Errorf("scale %v: a pixel in the code changed the hash", scale)
		}
		out := roundUp(float64(Left+Cols*Block)*scale, 16)
		img.Cr[img.COffset(out, int(Top*scale)+3)] = 255 // beside it
		rest2 := restHash(img, scale)
		if rest2 == rest {
			t.Errorf("scale %v: a pixel beside the code left the hash alone", scale)
		}
		below := roundUp(float64(Top+Rows*Block)*scale, 16)
		img.Y[img.YOffset(in, below)] = 255 // under it
		if restHash(img, scale) == rest2 {
			t.Errorf("scale %v: a pixel under the code left the hash alone", scale)
		}
	}
}

// TestDriftAgainstNeighbours: frames that all reach the screen a vsync
// later from some point on are on time against their neighbours (drift 0
// but near the change), though a vsync off the document's median; a
// frame late on its own is off against both.
func TestDriftAgainstNeighbours(t *testing.T) {
	const frame = time.Second / 60
	var s []Sample
	for n := uint32(0); n < 240; n++ { // 4 s of frames
		late := time.Duration(0)
		if n >= 140 {
			late = frame // the pipeline a frame deeper from 2.33 s on
		}
		if n == 60 {
			late = 2 * frame // one frame late on its own
		}
		raf := time.Duration(n) * frame
		s = append(s, Sample{Document: 1, Source: timeline.FromDuration(raf + frame + late), Decoded: true, Code: Code{Counter: n, RAF: raf}})
	}
	f := SummarizeScenario(s)
	if f.DocumentDrift.P95 < 16 {
		t.Errorf("drift against the document's median: p95 %.1f ms, want a vsync (100 of 240 frames a vsync off)", f.DocumentDrift.P95)
	}
	if f.Drift.P95 > 0.5 || f.Drift.P50 != 0 {
		t.Errorf("drift against the neighbours: %+v, want 0 but for the lone late frame and a few frames at the change", f.Drift)
	}
	if math.Abs(f.Drift.Max-2000.0/60) > 1e-3 {
		t.Errorf("drift max %.3f ms, want the lone frame's two vsyncs", f.Drift.Max)
	}
	at := []timeline.Time{0, timeline.FromDuration(time.Second), timeline.FromDuration(2 * time.Second)}
	if got := localDrift(at, []float64{5, 9, 1}); !slices.Equal(got, []float64{0, 0, 0}) {
		t.Errorf("frames a second apart are their own neighbours: %v", got)
	}
}

// SummarizeFootage reads coverage, freezes and drift from a video's ticks
// alone, a document ending where the counter goes back.
func TestSummarizeFootage(t *testing.T) {
	// tick returns a page frame n painted at rAF time raf ms.
	tick := func(n uint32, raf float64) VideoTick {
		return VideoTick{Code: Code{Counter: n, RAF: time.Duration(raf * float64(time.Millisecond))}, Decoded: true}
	}
	const f = 1000.0 / 60
	for _, c := range []struct {
		name               string
		ticks              []VideoTick
		docs               int
		painted, distinct  int64
		freezeMs, driftMax float64
		undecodable        int
	}{
		{"every frame, on time", []VideoTick{tick(1, 0), tick(2, f), tick(3, 2*f), tick(4, 3*f)}, 1, 4, 4, f, 0, 0},
		{"a frame missed", []VideoTick{tick(1, 0), tick(3, f), tick(4, 2*f)}, 1, 4, 3, f, 0, 0},
		{"one frame held three ticks", []VideoTick{tick(1, 0), tick(2, f), tick(2, f), tick(2, f), tick(3, 4*f)}, 1, 3, 3, 3 * f, 0, 0},
		{"a navigation's wait is no freeze", []VideoTick{tick(7, 0), tick(8, f), tick(8, f), tick(8, f), tick(8, f), tick(0, 0), tick(1, f)}, 2, 4, 4, f, 0, 0},
		// Frame 3 was painted at the time of tick 1 and first shown at tick 2.
		{"a frame shown a tick after it was painted", []VideoTick{tick(1, 0), tick(2, f), tick(3, f), tick(4, 3*f), tick(5, 4*f)}, 1, 5, 5, f, f, 0},
		{"a last frame held to the end is no freeze", []VideoTick{tick(1, 0), tick(2, f), tick(2, f), tick(2, f), tick(2, f)}, 1, 2, 2, f, 0, 0},
		{"an unreadable tick is left out", []VideoTick{tick(1, 0), {}, tick(2, 2*f)}, 1, 2, 2, 2 * f, 0, 1},
	} {
		r := SummarizeFootage(c.ticks, 60)
		if r.Documents != c.docs || r.Painted != c.painted || r.Distinct != c.distinct || math.Abs(r.LongestFreezeMs-c.freezeMs) > 1e-6 || r.Undecodable != c.undecodable {
			t.Errorf("%s: %+v, want %d documents, %d of %d painted, freeze %.2f ms, %d undecodable", c.name, r, c.docs, c.distinct, c.painted, c.freezeMs, c.undecodable)
		}
		if want := float64(c.distinct) / float64(c.painted); math.Abs(r.Coverage-want) > 1e-9 {
			t.Errorf("%s: coverage %.3f, want %.3f", c.name, r.Coverage, want)
		}
		if math.Abs(r.DocumentDrift.Max-c.driftMax) > 1e-6 {
			t.Errorf("%s: document drift max %.3f ms, want %.3f", c.name, r.DocumentDrift.Max, c.driftMax)
		}
	}
	// The span runs from the first tick that shows the page to the last
	// new frame's: a blank lead-in and a held end are left out.
	r := SummarizeFootage([]VideoTick{{}, {}, tick(1, 2*f), tick(2, 3*f), tick(3, 4*f), tick(3, 4*f), tick(3, 4*f)}, 60)
	if math.Abs(r.SpanMs-3*f) > 1e-6 {
		t.Errorf("span %.3f ms, want %.3f (three ticks)", r.SpanMs, 3*f)
	}
	// Drift against the neighbours: a run of frames a tick later than the
	// ones before (a deeper pipeline) is off against the whole document
	// but not against the frames around it, farther than DriftWindow.
	var late []VideoTick
	for k := range 120 {
		shift := 0.0
		if k >= 59 { // the most of them: the document's median is theirs
			shift = f
		}
		late = append(late, tick(uint32(k+1), float64(k)*f-shift))
	}
	r = SummarizeFootage(late, 60)
	if math.Abs(r.DocumentDrift.Max-f) > 1e-6 || r.Drift.P50 > 1e-6 {
		t.Errorf("a step of one tick: document drift max %.2f ms (want %.2f), neighbour drift p50 %.2f (want 0)", r.DocumentDrift.Max, f, r.Drift.P50)
	}
	if r := SummarizeFootage([]VideoTick{tick(1, 0)}, 0); r.Documents != 0 {
		t.Errorf("no frame rate: %+v, want nothing", r)
	}
}
