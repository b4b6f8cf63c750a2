package compositor

import (
	"math/rand"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// reference computes, without the Schedule, which frame index each output tick
// of a cut-free take shows: the latest with source at or before start + k/fps
// (compared exactly, in integers), else the first.
func reference(fps int, start timeline.Time, ticks int, src []timeline.Time) []int {
	out := make([]int, ticks)
	for k := range out {
		show := 0
		for i, s := range src {
			if int64(s-TickSlack-start)*int64(fps) <= int64(k)*second {
				show = i
			}
		}
		out[k] = show
	}
	return out
}

// resample runs the Resampler and returns the frame index shown at each tick,
// failing on gaps, overlaps or ticks left unassigned.
func resample(t *testing.T, s *Schedule, src []timeline.Time) []int {
	t.Helper()
	got := make([]int, s.Ticks())
	for i := range got {
		got[i] = -1
	}
	next := 0
	take := func(run Run) {
		if run.First != next || run.Count <= 0 {
			t.Fatalf("run %+v does not continue at tick %d", run, next)
		}
		for k := run.First; k < run.First+run.Count; k++ {
			got[k] = int(run.Frame.Seq)
		}
		next += run.Count
	}
	r := NewResampler(s)
	for i, at := range src {
		if run, ok := r.Push(timeline.Frame{Seq: int64(i), Source: at}); ok {
			take(run)
		}
	}
	if run, ok := r.Flush(); ok {
		take(run)
	}
	if next != s.Ticks() {
		t.Fatalf("runs cover %d ticks, want %d", next, s.Ticks())
	}
	return got
}

func TestResamplerCases(t *testing.T) {
	msT := func(n int64) timeline.Time { return timeline.Time(n * 1e6) }
	cases := []struct {
		name       string
		fps        int
		start, end timeline.Time
		src        []timeline.Time
		want       []int
	}{
		{"first frame late shows first", 10, 0, msT(500), []timeline.Time{msT(250)}, []int{0, 0, 0, 0, 0}},
		{"exact tick boundary shows the frame", 10, 0, msT(300), []timeline.Time{0, msT(100), msT(200)}, []int{0, 1, 2}},
		{"a microsecond late counts at the tick", 10, 0, msT(300), []timeline.Time{0, msT(100) + TickSlack, msT(200)}, []int{0, 1, 2}},
		{"more than a microsecond late waits a tick", 10, 0, msT(300), []timeline.Time{0, msT(100) + TickSlack + 1, msT(200)}, []int{0, 0, 2}},
		// A studio take's frames at k/60 s rounded, from frame 2 on: every
		// tick shows its own frame (ticks and frames round apart).
		{"studio frames from frame 2", 60, 33333333, 33333333 + msT(100), []timeline.Time{33333333, 50000000, 66666667, 83333333, 100000000, 116666667, 133333333}, []int{0, 1, 2, 3, 4, 5}},
		{"burst between ticks keeps the latest", 10, 0, msT(300), []timeline.Time{0, msT(120), msT(150), msT(199)}, []int{0, 0, 3}},
		{"frames before start", 10, msT(1000), msT(1300), []timeline.Time{msT(100), msT(900), msT(1150)}, []int{1, 1, 2}},
		{"frames after end ignored", 10, 0, msT(200), []timeline.Time{0, msT(150), msT(250), msT(900)}, []int{0, 0}},
		{"hold repeats last", 10, 0, msT(600), []timeline.Time{msT(10)}, []int{0, 0, 0, 0, 0, 0}},
		{"negative source times", 10, msT(-50), msT(150), []timeline.Time{msT(-80), msT(-40), msT(60)}, []int{0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := newSchedule(c.fps, c.start, c.end, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := resample(t, s, c.src)
			if len(got) != len(c.want) {
				t.Fatalf("ticks = %d, want %d", len(got), len(c.want))
			}
			for k := range got {
				if got[k] != c.want[k] {
					t.Fatalf("tick %d shows frame %d, want %d (all %v, want %v)", k, got[k], c.want[k], got, c.want)
				}
			}
		})
	}
}

// TestResamplerMatchesReference compares the streaming resampler with the
// brute-force definition on many random irregular takes.
func TestResamplerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 3000; iter++ {
		fps := []int{24, 25, 30, 50, 60, 7}[rng.Intn(6)]
		start := timeline.Time(rng.Int63n(2e9) - 1e9)
		dur := timeline.Time(1 + rng.Int63n(3e9))
		n := 1 + rng.Intn(40)
		src := make([]timeline.Time, 0, n)
		at := start - timeline.Time(rng.Int63n(3e8))
		for i := 0; i < n; i++ {
			switch rng.Intn(4) {
			case 0: // exactly on a tick
				k := (int64(at-start)*int64(fps))/second + 1
				at = start + timeline.Time(k*second/int64(fps))
				if k*second%int64(fps) != 0 {
					at++
				}
			case 1: // tiny step
				at += 1
			default:
				at += timeline.Time(1 + rng.Int63n(2e8))
			}
			if len(src) > 0 && at <= src[len(src)-1] {
				at = src[len(src)-1] + 1
			}
			src = append(src, at)
		}
		s, err := newSchedule(fps, start, start+dur, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := reference(fps, start, s.Ticks(), src)
		got := resample(t, s, src)
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("iter %d fps %d start %d: tick %d shows %d, want %d (src %v)", iter, fps, start, k, got[k], want[k], src)
			}
		}
	}
}

func TestScheduleDuration(t *testing.T) {
	for _, fps := range []int{24, 25, 30, 50, 60} {
		for _, d := range []int64{1, 16_666_667, 999_999_999, 2e9, 2_017_000_000, 61e9 + 7} {
			s, err := newSchedule(fps, 5, timeline.Time(5+d), nil)
			if err != nil {
				t.Fatal(err)
			}
			frame := second / int64(fps)
			if diff := int64(s.Duration()) - d; s.Ticks() > 1 && (diff > frame || diff < -frame) {
				t.Errorf("fps %d take %dns: video %v differs by more than a frame", fps, d, s.Duration())
			}
			if s.Ticks() < 1 {
				t.Errorf("fps %d take %dns: no ticks", fps, d)
			}
		}
	}
	if _, err := newSchedule(30, 10, 10, nil); err == nil {
		t.Error("empty take: want an error")
	}
}

func TestScheduleCuts(t *testing.T) {
	msT := func(n int64) timeline.Time { return timeline.Time(n * 1e6) }
	// 0-1000 ms with 200-500 and 450-600 cut (overlapping): kept 0-200, 600-1000.
	s, err := newSchedule(10, 0, msT(1000), []Segment{{Start: msT(450), End: msT(600)}, {Start: msT(200), End: msT(500)}, {Start: msT(2000), End: msT(3000)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.segments; len(got) != 2 || got[0] != (Segment{Start: 0, End: msT(200)}) || got[1] != (Segment{Start: msT(600), End: msT(1000)}) {
		t.Fatalf("segments = %v", got)
	}
	if s.Ticks() != 6 {
		t.Fatalf("ticks = %d, want 6", s.Ticks())
	}
	wantT := []timeline.Time{0, msT(100), msT(600), msT(700), msT(800), msT(900)}
	for k, w := range wantT {
		if got := s.TakeTime(k); got != w {
			t.Errorf("TakeTime(%d) = %v, want %v", k, got, w)
		}
	}
	if !s.Cut(msT(300)) || s.Cut(msT(650)) {
		t.Error("Cut is wrong")
	}
	if got := s.OutputTime(msT(300)); got != 200e6 {
		t.Errorf("OutputTime in a cut = %v, want 200ms", got)
	}
	// A frame inside the cut shows from the first tick after it.
	got := resample(t, s, []timeline.Time{0, msT(300), msT(750)})
	want := []int{0, 0, 1, 1, 2, 2}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("with cuts: got %v, want %v", got, want)
		}
	}
	if _, err := newSchedule(10, 0, msT(100), []Segment{{Start: -5, End: msT(200)}}); err == nil {
		t.Error("cutting everything: want an error")
	}
}
