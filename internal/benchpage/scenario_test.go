package benchpage

import (
	"math"
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
