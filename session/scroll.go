package session

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// scrollState is clapper.scrollState's answer: the scroll offsets, their
// limits, and how far to scroll to centre a target.
type scrollState struct {
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	MaxX float64 `json:"maxX"`
	MaxY float64 `json:"maxY"`
	DX   float64 `json:"dx"`
	DY   float64 `json:"dy"`
}

// scroll scrolls with real wheel events, spread over the duration so the
// video shows a smooth scroll.
func (r *run) scroll(ctx context.Context, tab *Tab, a scripts.Scroll, rec *timeline.Step) error {
	dur := a.Length()
	rec.Duration = dur
	var in any // null: the page
	var inNth *int
	if a.In != nil {
		rec.Target = a.In.String()
		if err := r.pointAt(ctx, tab, *a.In, forHover, nil, rec); err != nil {
			return err
		}
		in, inNth = specOf(*a.In), nthArg(*a.In)
	}
	var to any
	var toNth *int
	if a.ToTarget != nil {
		rec.Target = a.ToTarget.String()
		to, toNth = specOf(*a.ToTarget), nthArg(*a.ToTarget)
	}
	d := tab.mainDoc()
	if t := cmp.Or(a.In, a.ToTarget); t != nil {
		var err error
		if d, err = tab.docOf(ctx, *t); err != nil {
			return undispatched(err)
		}
	}
	st, err := docCall[*scrollState](ctx, d, "scrollState", in, inNth, to, toNth)
	if err != nil {
		return undispatched(err)
	}
	if st == nil {
		return undispatched(fmt.Errorf("scroll: %s is gone", a.In))
	}
	dx, dy := scrollBy(a, *st)
	if math.Abs(dx) < 1 && math.Abs(dy) < 1 {
		return nil
	}
	if err := tab.pointer.j.ready(ctx, tab.pointer.pace); err != nil {
		return err
	}
	if err := timed(ctx, dur, func() error { return wheelFor(ctx, tab, dx, dy, dur) }); err != nil {
		return err
	}
	// Let the scroll settle before the step ends.
	if _, err := docCall[bool](ctx, d, "scrollSettled", in, inNth); err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	return nil
}

// wheelFor scrolls by (dx, dy) with wheel events over dur, eased.
func wheelFor(ctx context.Context, tab *Tab, dx, dy float64, dur time.Duration) error {
	n := max(1, int(dur/paceSlot))
	start := clockNow(ctx)
	var sentX, sentY float64
	for i := 1; i <= n; i++ {
		// Paced by the clock: the slots whose time passed while a wheel
		// event was on its way (a page that paints slowly answers slowly)
		// go out as one, so the scroll lasts as long as it says.
		i = wheelSlot(i, n, clockNow(ctx)-start, dur)
		e := easeInOut(float64(i) / float64(n))
		wx, wy := math.Round(dx*e-sentX), math.Round(dy*e-sentY)
		if i == n {
			wx, wy = dx-sentX, dy-sentY
		}
		if wx != 0 || wy != 0 {
			if err := tab.pointer.Wheel(ctx, wx, wy); err != nil {
				return err
			}
			sentX, sentY = sentX+wx, sentY+wy
		}
		if err := sleep(ctx, start+time.Duration(i)*dur/time.Duration(n)-clockNow(ctx)); err != nil {
			return dispatchErr(err)
		}
	}
	return nil
}

// wheelSlot is the slot to send at: i, or the last of the n slots of a
// scroll lasting dur whose time has come at elapsed, when that is later.
// Pure.
func wheelSlot(i, n int, elapsed, dur time.Duration) int {
	for i < n && time.Duration(i+1)*dur/time.Duration(n) <= elapsed {
		i++
	}
	return i
}

// scrollBy is how far a scroll step moves from st, clamped to what can
// scroll so the wheel does not push past an edge. Pure.
func scrollBy(a scripts.Scroll, st scrollState) (dx, dy float64) {
	switch {
	case a.By != nil:
		dx, dy = a.By.X, a.By.Y
	case a.ToTarget != nil:
		dx, dy = st.DX, st.DY
	case a.ToPoint != nil:
		dx, dy = a.ToPoint.X-st.X, a.ToPoint.Y-st.Y
	case a.ToEdge == "top":
		dy = -st.Y
	case a.ToEdge == "bottom":
		dy = st.MaxY - st.Y
	}
	dx = math.Max(-st.X, math.Min(dx, st.MaxX-st.X))
	dy = math.Max(-st.Y, math.Min(dy, st.MaxY-st.Y))
	return dx, dy
}
