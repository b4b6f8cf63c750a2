package recorder

import (
	"cmp"
	"slices"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// reorderAge is how long a screencast frame waits in the reorder window at
// most, by the host clock: about three frame intervals at 60 Hz. A frame
// that two or more intervals of encoding overtook arrives well within it,
// on two loaded cores too (docs/internals.md), and a page that stops
// changing has its last frame stored this long after it arrived.
const reorderAge = 50 * time.Millisecond

// reorder is the window that puts screencast frames back in source order
// before the ledger judges them. Chromium encodes up to maxFramesInFlight
// frames side by side and sends each when its encoding ends, so a frame
// arrives at most maxFramesInFlight-1 places away from its place in source
// order. A window that holds that many frames and releases the oldest (by
// source time) when one more arrives puts any such stream back in order. A
// frame is held reorderAge at most, so a page that stops changing still
// has its last frames stored at once, and a frame far ahead (a clock
// jumping) cannot hold the others back. A frame further out than the
// window is still late for the ledger, so a clock going backwards still
// shows. It holds at most size frames between calls. Pure: the caller gives
// it the times.
type reorder[T any] struct {
	size    int   // frames held at most: maxFramesInFlight-1
	arrived int64 // frames pushed so far
	held    []held[T]
}

type held[T any] struct {
	src timeline.Time // source time: the release order
	n   int64         // arrival number: ties keep arrival order
	at  timeline.Time // when it arrived, on the clock the caller uses
	v   T
}

// push adds a frame that arrived at at with source time src and returns
// the oldest held frame when the window is over its size (ties go in
// arrival order).
func (w *reorder[T]) push(src, at timeline.Time, v T) []T {
	w.held = append(w.held, held[T]{src: src, n: w.arrived, at: at, v: v})
	w.arrived++
	if len(w.held) <= w.size {
		return nil
	}
	i := 0
	for j, h := range w.held {
		if before(h, w.held[i]) {
			i = j
		}
	}
	v = w.held[i].v
	w.held = slices.Delete(w.held, i, i+1)
	return []T{v}
}

// before orders held frames: by source time, ties by arrival.
func before[T any](a, b held[T]) bool { return a.src < b.src || a.src == b.src && a.n < b.n }

// due returns the frames made due by age at now: each held frame that
// arrived at or before now-age, with every held frame of an earlier or the
// same source time, in source order.
func (w *reorder[T]) due(now timeline.Time, age time.Duration) []T {
	limit := now - timeline.FromDuration(age)
	return w.releaseUpTo(func(h held[T]) bool { return h.at <= limit })
}

// deadline returns when the oldest held frame is due by age (ok false when
// the window is empty).
func (w *reorder[T]) deadline(age time.Duration) (timeline.Time, bool) {
	if len(w.held) == 0 {
		return 0, false
	}
	first := w.held[0].at
	for _, h := range w.held[1:] {
		first = min(first, h.at)
	}
	return first + timeline.FromDuration(age), true
}

// flush returns every held frame, in source order.
func (w *reorder[T]) flush() []T { return w.releaseUpTo(func(held[T]) bool { return true }) }

// len returns how many frames are held.
func (w *reorder[T]) len() int { return len(w.held) }

// releaseUpTo releases the frames whose source time is at most that of the
// latest (by source time) frame for which isDue holds.
func (w *reorder[T]) releaseUpTo(isDue func(held[T]) bool) []T {
	var cut timeline.Time
	any := false
	for _, h := range w.held {
		if isDue(h) && (!any || h.src > cut) {
			cut, any = h.src, true
		}
	}
	if !any {
		return nil
	}
	var out []held[T]
	keep := w.held[:0]
	for _, h := range w.held {
		if h.src <= cut {
			out = append(out, h)
		} else {
			keep = append(keep, h)
		}
	}
	clear(w.held[len(keep):])
	w.held = keep
	slices.SortFunc(out, func(a, b held[T]) int { return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.n, b.n)) })
	vs := make([]T, len(out))
	for i, h := range out {
		vs[i] = h.v
	}
	return vs
}
