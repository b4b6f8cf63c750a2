package compositor

import (
	"math"
	"sort"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// CursorState is what the cursor overlay shows at one instant, in CSS
// pixels of the viewport.
type CursorState struct {
	Visible bool
	X, Y    float64
	// Shape is "arrow", "pointer" (a hand) or "text" (an I-beam).
	Shape string
}

// Click is a positioned pointer receipt: a press to draw a ripple for, or a
// point the pointer was commanded to, in CSS pixels.
type Click struct {
	At   timeline.Time
	X, Y float64
}

// cursorPoint is a pointer receipt with the page's cursor shape there.
type cursorPoint struct {
	Click
	shape string
	down  bool
	// still: no input, only the page's cursor read again under a pointer
	// that did not move (timeline.PointerShape): it changes the shape,
	// never the idle time.
	still bool
}

// CursorTrack answers where the pointer was commanded at any instant, from the
// input receipts of the captured tab. Query it with non-decreasing times.
type CursorTrack struct {
	points []cursorPoint // positioned receipts (move, down, up, wheel) by Sent
	clicks []Click
	i      int // points[:i] are at or before the last query
}

// pointerKind reports whether a receipt kind positions the pointer.
func pointerKind(k string) bool {
	switch k {
	case timeline.InputMove, timeline.InputDown, timeline.InputUp, timeline.InputWheel, timeline.PointerShape:
		return true
	}
	return false
}

// shapeOf maps a CSS cursor name to the shapes drawn.
func shapeOf(css string) string {
	switch css {
	case "pointer":
		return "pointer"
	case "text", "vertical-text":
		return "text"
	}
	return "arrow"
}

// NewCursorTrack keeps the pointer receipts sent to tab (all receipts when tab
// is empty or a receipt names no tab), ordered by the time they were sent.
func NewCursorTrack(receipts []timeline.Receipt, tab string) *CursorTrack {
	ct := &CursorTrack{}
	for _, r := range receipts {
		if !pointerKind(r.Kind) || r.Error != "" {
			continue
		}
		if tab != "" && r.Tab != "" && r.Tab != tab {
			continue
		}
		p := cursorPoint{Click: Click{At: r.Sent, X: r.X, Y: r.Y}, shape: shapeOf(r.Cursor), down: r.Kind == timeline.InputDown, still: r.Kind == timeline.PointerShape}
		ct.points = append(ct.points, p)
		if p.down {
			ct.clicks = append(ct.clicks, p.Click)
		}
	}
	sort.SliceStable(ct.points, func(i, j int) bool { return ct.points[i].At < ct.points[j].At })
	sort.SliceStable(ct.clicks, func(i, j int) bool { return ct.clicks[i].At < ct.clicks[j].At })
	return ct
}

// At returns the commanded pointer at t: the position of the latest pointer
// receipt sent at or before t, hidden before the first one. Times must not
// decrease between calls.
func (ct *CursorTrack) At(t timeline.Time) CursorState {
	for ct.i < len(ct.points) && ct.points[ct.i].At <= t {
		ct.i++
	}
	if ct.i == 0 {
		return CursorState{}
	}
	p := ct.points[ct.i-1]
	return CursorState{Visible: true, X: p.X, Y: p.Y, Shape: p.shape}
}

// Clicks returns the button presses, in time order.
func (ct *CursorTrack) Clicks() []Click { return ct.clicks }

// easeMax is the longest glide of the "ease" smoothing; a glide always ends
// by the next receipt, so the cursor is where the next command starts from.
const easeMax = 120 * time.Millisecond

// springOmega is the "spring" smoothing's natural frequency (critically
// damped: settles in about 0.2 s).
const springOmega = 2 * math.Pi / 0.25

// CursorPath turns the commanded points into the cursor shown at each
// instant: smoothed, shaped, hidden when idle or asked to. Sample it at
// non-decreasing times. It keeps O(1) state besides the track.
type CursorPath struct {
	pts       []cursorPoint
	smoothing string
	shapes    bool
	hideIdle  timeline.Time
	hides     []Segment

	i       int // pts[:i] are at or before the last sample
	started bool
	input   timeline.Time // the last input's time, for hideIdle
	// ease: a glide from (fx,fy) to (tx,ty) over [t0, t0+dur).
	fx, fy, tx, ty float64
	t0, dur        timeline.Time
	// spring state.
	x, y, vx, vy float64
	last         timeline.Time
}

// NewCursorPath follows ct with the given settings; hides are intervals in
// which the cursor is hidden ("cursor: hide" steps).
func NewCursorPath(ct *CursorTrack, cs CursorSettings, hides []Segment) *CursorPath {
	return &CursorPath{pts: ct.points, smoothing: cs.Smoothing, shapes: cs.Shapes,
		hideIdle: timeline.FromDuration(cs.HideIdle), hides: hides}
}

func easeInOut(u float64) float64 {
	if u <= 0 {
		return 0
	}
	if u >= 1 {
		return 1
	}
	return u * u * (3 - 2*u)
}

// At returns the cursor shown at t.
func (cp *CursorPath) At(t timeline.Time) CursorState {
	for cp.i < len(cp.pts) && cp.pts[cp.i].At <= t {
		p := cp.pts[cp.i]
		if !p.still || !cp.started {
			cp.input = p.At
		}
		if !cp.started {
			cp.started = true
			cp.fx, cp.fy, cp.tx, cp.ty, cp.t0, cp.dur = p.X, p.Y, p.X, p.Y, p.At, 0
			cp.x, cp.y, cp.vx, cp.vy, cp.last = p.X, p.Y, 0, 0, p.At
		} else {
			if cp.smoothing == "spring" {
				cp.stepSpring(p.At)
				if p.down {
					// A press lands where it was commanded.
					cp.x, cp.y, cp.vx, cp.vy = p.X, p.Y, 0, 0
				}
			}
			x, y := cp.easeAt(p.At)
			dur := timeline.FromDuration(easeMax)
			if cp.i+1 < len(cp.pts) {
				if gap := cp.pts[cp.i+1].At - p.At; gap < dur {
					dur = gap
				}
			}
			cp.fx, cp.fy, cp.tx, cp.ty, cp.t0, cp.dur = x, y, p.X, p.Y, p.At, dur
		}
		cp.i++
	}
	if !cp.started {
		return CursorState{}
	}
	cur := cp.pts[cp.i-1]
	st := CursorState{Visible: true, Shape: "arrow"}
	if cp.shapes {
		st.Shape = cur.shape
	}
	switch cp.smoothing {
	case "raw":
		st.X, st.Y = cur.X, cur.Y
	case "spring":
		cp.stepSpring(t)
		st.X, st.Y = cp.x, cp.y
	default:
		st.X, st.Y = cp.easeAt(t)
	}
	if cp.hideIdle > 0 && t-cp.input > cp.hideIdle {
		st.Visible = false
	}
	for _, h := range cp.hides {
		if t >= h.Start && t < h.End {
			st.Visible = false
		}
	}
	return st
}

func (cp *CursorPath) easeAt(t timeline.Time) (float64, float64) {
	if cp.dur <= 0 || t >= cp.t0+cp.dur {
		return cp.tx, cp.ty
	}
	u := easeInOut(float64(t-cp.t0) / float64(cp.dur))
	return cp.fx + (cp.tx-cp.fx)*u, cp.fy + (cp.ty-cp.fy)*u
}

// stepSpring advances the critically damped spring toward the latest target
// to time t, with the exact solution (stable for any step).
func (cp *CursorPath) stepSpring(t timeline.Time) {
	if t <= cp.last {
		return
	}
	dt := float64(t-cp.last) / 1e9
	cp.last = t
	w := springOmega
	e := math.Exp(-w * dt)
	step := func(x, v, target float64) (float64, float64) {
		d := x - target
		c := v + w*d
		nx := target + (d+c*dt)*e
		nv := (v - w*c*dt) * e
		return nx, nv
	}
	cp.x, cp.vx = step(cp.x, cp.vx, cp.tx)
	cp.y, cp.vy = step(cp.y, cp.vy, cp.ty)
}
