package compositor

import (
	"fmt"
	"slices"
)

// Still ticks: a zoomed chunk zooms only the ticks that can differ.
//
// zoompan makes a new picture every tick, from the capture frame the fps
// filter repeats for it: it crops and scales a 2560x1440 capture, and the
// colours are converted after it, even where the frame and the camera are
// the ones of the tick before. A chunk knows its runs of frames before
// ffmpeg starts, so its graph zooms only the ticks where something can
// change (keptTicks: a new capture frame, the camera's moves, the first
// tick and the closing one), gives each picture back its tick (zoompan
// numbers its frames afresh), and the fps filter repeats it over the
// ticks after it, which are the same picture to the bit. A zoomed
// picture is made with the same expressions of its tick as before, so the
// video is the same, byte for byte (TestStillTicksSameVideo). A run over
// the whole take (a GIF, a WebM, PNG frames) zooms every tick.

// keptTicks returns the ticks of a run of n ticks that a zoomed graph
// zooms: tick 0, each tick in starts (a new capture frame), each tick the
// camera can change at (zt.changes), and the closing tick n (the feed's
// frame one tick past the end). Sorted, without repeats. Pure.
func keptTicks(starts []int, zt *ZoomTrack, n int) []int {
	kept := []int{0, n}
	for _, k := range starts {
		if k >= 0 && k <= n {
			kept = append(kept, k)
		}
	}
	kept = append(kept, zt.changes(n)...)
	slices.Sort(kept)
	return slices.Compact(kept)
}

// tickSpan is a stretch of consecutive kept ticks [First, Last], the
// Before kept ticks ahead of it.
type tickSpan struct{ First, Last, Before int }

// spans groups sorted kept ticks into stretches.
func spans(kept []int) []tickSpan {
	var out []tickSpan
	for i, k := range kept {
		if n := len(out); n > 0 && out[n-1].Last == k-1 {
			out[n-1].Last = k
			continue
		}
		out = append(out, tickSpan{First: k, Last: k, Before: i})
	}
	return out
}

// spanTree writes a balanced tree of if(lt(v,K),...) over the stretches
// of kept ticks, K the first value of v in the stretch on its right (at),
// with leaf for each stretch.
func spanTree(kept []int, v string, at func(tickSpan) int, leaf func(tickSpan) string) string {
	sp := spans(kept)
	var build func(lo, hi int) string
	build = func(lo, hi int) string {
		if hi-lo == 1 {
			return leaf(sp[lo])
		}
		mid := (lo + hi) / 2
		return fmt.Sprintf("if(lt(%s,%d),%s,%s)", v, at(sp[mid]), build(lo, mid), build(mid, hi))
	}
	return build(0, len(sp))
}

// selectExpr is the select filter's expression that keeps the frames
// numbered (n) by the kept ticks.
func selectExpr(kept []int) string {
	return spanTree(kept, "n", func(s tickSpan) int { return s.First }, func(s tickSpan) string {
		if s.First == s.Last {
			return fmt.Sprintf("eq(n,%d)", s.First)
		}
		return fmt.Sprintf("between(n,%d,%d)", s.First, s.Last)
	})
}

// tickPTSExpr is the setpts expression that gives the N-th kept frame the
// time of its tick at fps.
func tickPTSExpr(kept []int, fps int) string {
	tick := spanTree(kept, "N", func(s tickSpan) int { return s.Before }, func(s tickSpan) string {
		if d := s.First - s.Before; d != 0 {
			return fmt.Sprintf("(N+%d)", d)
		}
		return "N"
	})
	return fmt.Sprintf("%s/(%d*TB)", tick, fps)
}
