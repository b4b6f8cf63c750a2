package recorder

import (
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// pushAll pushes srcs (arriving 1 ms apart) through a window of size and
// returns what came out, with the window flushed at the end.
func pushAll(size int, srcs ...timeline.Time) []timeline.Time {
	w := reorder[timeline.Time]{size: size}
	var out []timeline.Time
	for i, s := range srcs {
		out = append(out, w.push(s, timeline.Time(i)*timeline.Time(time.Millisecond), s)...)
	}
	return append(out, w.flush()...)
}

func TestReorderStreams(t *testing.T) {
	cases := []struct {
		name string
		size int
		in   []timeline.Time
		want []timeline.Time
	}{
		{"in order", 2, []timeline.Time{1, 2, 3, 4}, []timeline.Time{1, 2, 3, 4}},
		{"behind by one", 2, []timeline.Time{1, 3, 2, 4}, []timeline.Time{1, 2, 3, 4}},
		{"behind by two", 2, []timeline.Time{1, 3, 4, 2, 5}, []timeline.Time{1, 2, 3, 4, 5}},
		{"one ahead of two", 2, []timeline.Time{1, 4, 2, 3, 5}, []timeline.Time{1, 2, 3, 4, 5}},
		{"two pairs swapped", 2, []timeline.Time{2, 1, 4, 3, 6, 5}, []timeline.Time{1, 2, 3, 4, 5, 6}},
		// Behind by three, more than the window: it comes out where it
		// arrived among what is left, and the ledger calls it late.
		{"behind by three stays late", 2, []timeline.Time{1, 3, 4, 5, 2, 6}, []timeline.Time{1, 3, 2, 4, 5, 6}},
		{"size zero passes through", 0, []timeline.Time{3, 1, 2}, []timeline.Time{3, 1, 2}},
		{"size one fixes one", 1, []timeline.Time{2, 1, 4, 3}, []timeline.Time{1, 2, 3, 4}},
		{"size one holds the one ahead", 1, []timeline.Time{3, 1, 2}, []timeline.Time{1, 2, 3}},
		{"equal sources keep arrival order", 2, []timeline.Time{5, 5, 4, 5}, []timeline.Time{4, 5, 5, 5}},
		// A frame far ahead (a clock jumping) waits; the others pass it
		// (TestReorderAge: it waits reorderAge at most).
		{"a frame far ahead waits", 1, []timeline.Time{100, 50, 60, 70, 80}, []timeline.Time{50, 60, 70, 80, 100}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pushAll(c.size, c.in...); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// A frame waits reorderAge at most: due releases it, with the held frames
// before it, and leaves the newer ones.
func TestReorderAge(t *testing.T) {
	ms := func(v float64) timeline.Time { return timeline.Time(v * float64(time.Millisecond)) }
	w := reorder[int]{size: 2}
	if out := w.push(30, ms(0), 30); out != nil {
		t.Fatalf("released %v at once", out)
	}
	if _, ok := (&reorder[int]{}).deadline(reorderAge); ok {
		t.Error("an empty window has a deadline")
	}
	if out := w.push(10, ms(20), 10); out != nil {
		t.Fatalf("released %v", out)
	}
	if d, ok := w.deadline(reorderAge); !ok || d != ms(0)+timeline.FromDuration(reorderAge) {
		t.Errorf("deadline %v %v, want the first arrival's plus %v", d, ok, reorderAge)
	}
	if out := w.due(ms(49), reorderAge); out != nil {
		t.Errorf("released %v before the age", out)
	}
	// The frame of source 30 is due: 10 goes with it, being older.
	if out := w.due(ms(50), reorderAge); !slices.Equal(out, []int{10, 30}) || w.len() != 0 {
		t.Errorf("released %v, %d held", out, w.len())
	}
	w.push(40, ms(60), 40)
	w.push(50, ms(100), 50)
	// 40 is due by age; 50, newer and younger, stays.
	if out := w.due(ms(110), reorderAge); !slices.Equal(out, []int{40}) || w.len() != 1 {
		t.Errorf("released %v, %d held", out, w.len())
	}
	if out := w.flush(); !slices.Equal(out, []int{50}) || w.len() != 0 {
		t.Errorf("flush %v, %d held", out, w.len())
	}
}

// TestReorderProperty pushes random streams through windows of every size
// used and checks the contract: every frame comes out exactly once, the
// window holds at most size frames between calls, and a stream where no
// frame arrives more than size places from its place in source order
// comes out in source order.
func TestReorderProperty(t *testing.T) {
	for seed := int64(1); seed <= 500; seed++ {
		rng := rand.New(rand.NewSource(seed))
		size := rng.Intn(5)
		n := 1 + rng.Intn(200)
		// Frame i arrives in the order of i+r, r in [0, spread]: about
		// spread places from its own at most.
		spread := rng.Intn(size + 3)
		type arrival struct {
			src       timeline.Time
			orig, key int
		}
		in := make([]arrival, n)
		for i := range in {
			in[i] = arrival{timeline.Time(i), i, i + rng.Intn(spread+1)}
			if i > 0 && rng.Intn(8) == 0 {
				in[i].src = in[i-1].src // a repeated source time
			}
		}
		slices.SortStableFunc(in, func(a, b arrival) int { return a.key - b.key })
		displaced := 0
		for pos, a := range in {
			displaced = max(displaced, a.orig-pos, pos-a.orig)
		}
		w := reorder[timeline.Time]{size: size}
		var out []timeline.Time
		var at timeline.Time
		for _, a := range in {
			at += timeline.Time(rng.Intn(30)) * timeline.Time(time.Millisecond)
			out = append(out, w.push(a.src, at, a.src)...)
			if rng.Intn(10) == 0 {
				out = append(out, w.due(at, reorderAge)...)
			}
			if w.len() > size {
				t.Fatalf("seed %d: %d held, size %d", seed, w.len(), size)
			}
		}
		out = append(out, w.flush()...)
		got := slices.Clone(out)
		var want []timeline.Time
		for _, a := range in {
			want = append(want, a.src)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: out %v is not the frames in %v", seed, out, in)
		}
		// Releases by age come early, so order is checked without them.
		if displaced <= size {
			w := reorder[timeline.Time]{size: size}
			var out []timeline.Time
			for i, a := range in {
				out = append(out, w.push(a.src, timeline.Time(i), a.src)...)
			}
			out = append(out, w.flush()...)
			if !slices.IsSorted(out) {
				t.Fatalf("seed %d: %v (displaced by %d, size %d) came out %v", seed, in, displaced, size, out)
			}
		}
	}
}
