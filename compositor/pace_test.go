package compositor

import (
	"math/rand"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func TestPacedScheduleSpeedsUpOnlyTheFastPart(t *testing.T) {
	// 10 s take, a 4x fast part from 2 s to 6 s: 4 s play in 1 s, so the
	// video lasts 7 s.
	s, err := NewPacedSchedule(30, 0, msT(10000), nil, []Segment{{Start: msT(2000), End: msT(6000), Speed: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Duration(); d != 7*time.Second {
		t.Errorf("duration %v, want 7s", d)
	}
	for _, c := range []struct {
		take timeline.Time
		out  time.Duration
	}{{0, 0}, {msT(2000), 2 * time.Second}, {msT(4000), 2500 * time.Millisecond}, {msT(6000), 3 * time.Second}, {msT(8000), 5 * time.Second}} {
		if got := s.OutputTime(c.take); got != c.out {
			t.Errorf("OutputTime(%v) = %v, want %v", c.take, got, c.out)
		}
	}
	if got := s.TakeTime(75); got != msT(4000) { // output 2.5 s
		t.Errorf("TakeTime(75) = %v, want 4s", got)
	}
}

func TestPacedScheduleProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 500; i++ {
		end := msT(1000 + rng.Intn(20000))
		var cuts, fast []Segment
		for j := rng.Intn(3); j > 0; j-- {
			a := timeline.Time(rng.Int63n(int64(end)))
			cuts = append(cuts, Segment{Start: a, End: a + msT(rng.Intn(2000))})
		}
		for j := rng.Intn(4); j > 0; j-- {
			a := timeline.Time(rng.Int63n(int64(end)))
			fast = append(fast, Segment{Start: a, End: a + msT(rng.Intn(5000)), Speed: 1 + rng.Float64()*7})
		}
		s, err := NewPacedSchedule(30, 0, end, cuts, fast)
		if err != nil {
			continue // the cuts removed everything
		}
		plain, _ := newSchedule(30, 0, end, cuts)
		if s.Ticks() > plain.Ticks() {
			t.Fatalf("case %d: speeding up made the video longer (%d > %d ticks)", i, s.Ticks(), plain.Ticks())
		}
		prev := timeline.Time(-1)
		for k := 0; k < s.Ticks(); k++ {
			tt := s.TakeTime(k)
			if tt < prev {
				t.Fatalf("case %d: tick %d goes back (%v < %v)", i, k, tt, prev)
			}
			prev = tt
			if s.Cut(tt) && tt != end {
				t.Fatalf("case %d: tick %d shows cut time %v", i, k, tt)
			}
			// OutputTime inverts TakeTime to within a nanosecond per unit of speed.
			if o := s.OutputTime(tt); absDur(o-time.Duration(s.tickOutput(k))) > 10 {
				t.Fatalf("case %d: tick %d: OutputTime(TakeTime) = %v, want %v", i, k, o, s.tickOutput(k))
			}
		}
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func TestLongWaits(t *testing.T) {
	tl := &timeline.Timeline{Steps: []timeline.Step{
		{Kind: "wait", Traits: timeline.Traits{Waits: true}, Start: msT(0), End: msT(5000)},
		{Kind: "pause", Start: msT(5000), End: msT(10000)},                                                            // a dwell asked for: never sped
		{Kind: "expect", Traits: timeline.Traits{Waits: true, Expectation: true}, Start: msT(10000), End: msT(11000)}, // short
		{Kind: "goto", Traits: timeline.Traits{ChangesPage: true, Waits: true}, Start: msT(11000), End: msT(14000)},
	}}
	if got := longWaits(tl, SpeedUpSettings{}); got != nil {
		t.Errorf("off by default, got %v", got)
	}
	got := longWaits(tl, SpeedUpSettings{Waits: true})
	want := []Segment{{Start: msT(500), End: msT(4500), Speed: 4}, {Start: msT(11500), End: msT(13500), Speed: 4}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
	var s Settings
	if err := withOptions(&s, map[string]any{"speedup": map[string]any{"over": "1s", "speed": 8}}); err != nil || !s.SpeedUp.Waits || s.SpeedUp.Speed != 8 || s.SpeedUp.Over != time.Second {
		t.Errorf("apply: %+v, %v", s.SpeedUp, err)
	}
	if err := withOptions(&s, map[string]any{"speedup": map[string]any{"speed": 0.5}}); err == nil {
		t.Error("slow-down accepted")
	}
}
