package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// The actionability checks before input are Playwright's (its
// "actionability" rules): an element is acted on when it is attached and
// unique (or picked by nth), visible, stable over two animation frames,
// enabled, editable where the action edits, and the pointer at the point
// aimed at reaches it. Each look that fails is tried again (retryWaits)
// until the step's deadline, scrolling in turn to another alignment (a
// target the first scroll left under a sticky header is found by the
// next). docs/ARCHITECTURE.md says where clapper differs.

// spec is the JSON form of a target for the page helpers (js/find.js).
type spec struct {
	CSS         string `json:"css,omitempty"`
	XPath       string `json:"xpath,omitempty"`
	Text        string `json:"text,omitempty"`
	Role        string `json:"role,omitempty"`
	Name        string `json:"name,omitempty"`
	Label       string `json:"label,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
	Alt         string `json:"alt,omitempty"`
	Title       string `json:"title,omitempty"`
	TestID      string `json:"testid,omitempty"`
	Exact       bool   `json:"exact,omitempty"`
	Visible     bool   `json:"visible,omitempty"`
}

func specOf(t scripts.Target) spec {
	return spec{CSS: t.CSS, XPath: t.XPath, Text: t.Text, Role: t.Role, Name: t.Name, Label: t.Label,
		Placeholder: t.Placeholder, Alt: t.Alt, Title: t.Title, TestID: t.TestID, Exact: t.Exact, Visible: t.Visible}
}

// nthArg is a target's nth for the helpers: null when not given.
func nthArg(t scripts.Target) *int { return t.Nth }

// point is a position in CSS pixels.
type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// probe is clapper.probe's report (js/actionable.js).
type probe struct {
	Count    int            `json:"count"`
	Box      *timeline.Rect `json:"box"`
	Stable   bool           `json:"stable"`
	Visible  bool           `json:"visible"`
	Shows    bool           `json:"shows"`
	Enabled  bool           `json:"enabled"`
	Field    bool           `json:"field"`
	Editable bool           `json:"editable"`
	Cursor   string         `json:"cursor"`
	Border   point          `json:"border"`
	Viewport struct {
		W float64 `json:"w"`
		H float64 `json:"h"`
	} `json:"viewport"`
	// Token names the element in clapper's world (js/remember.js): its
	// boxes are read and its hit tested by it, and it is revalidated by
	// it after a hold.
	Token int `json:"token"`
	// Near says what the page has near a target that matches nothing
	// (js/near.js): "" when nothing is close, nil when not looked for.
	Near *string `json:"near"`
	// Scrolled says the probe scrolled the element into view: the page
	// moved under the pointer (its document, or, read in Go, the
	// documents its frames are in).
	Scrolled bool `json:"scrolled"`
}

// needs are the actionability checks a step makes before it acts on an
// element. A target must always be attached and unique (or picked by nth).
type needs struct {
	Visible  bool // clapper.visible, and stable across two frames
	Shows    bool // clapper.showsSomething: not see-through (what the video looks at)
	Enabled  bool // not disabled
	Editable bool // a form field must be editable (not read-only)
	Hit      bool // a point of it in the viewport, which the pointer there reaches
	Scroll   bool // scroll it into view first
	// aimAt aims at this point of the element (relative to its padding
	// box's top-left corner) instead of a point Playwright would choose.
	aimAt *scripts.Point
}

// at returns n aiming at p (nil: the default point).
func (n needs) at(p *scripts.Point) needs { n.aimAt = p; return n }

var (
	// forPointer: click, and the click that focuses a field to type in.
	forPointer = needs{Visible: true, Enabled: true, Hit: true, Scroll: true}
	// forTyping: the click that focuses a field to type in: a form field
	// must also be editable.
	forTyping = needs{Visible: true, Enabled: true, Editable: true, Hit: true, Scroll: true}
	// forHover: the pointer goes there, nothing is pressed.
	forHover = needs{Visible: true, Hit: true, Scroll: true}
	// forField: fill sets the value without the pointer.
	forField = needs{Visible: true, Enabled: true, Editable: true, Scroll: true}
	// forSelect: select picks options without the pointer.
	forSelect = needs{Visible: true, Enabled: true, Scroll: true}
	// forLook: zoom, screenshots and scroll containers only look at it,
	// so it must show something (see-through is not enough for a video).
	forLook = needs{Visible: true, Shows: true, Scroll: true}
	// forUpload: a file input is usually hidden behind a styled label:
	// attached and enabled is enough.
	forUpload = needs{Enabled: true}
)

// ErrAmbiguous is wrapped by errors for targets matching several elements.
var ErrAmbiguous = errors.New("ambiguous target")

// nearLook says whether look n (0 the first) looks for what the page has
// near a target that matches nothing, as clapper.nearLook does: the
// 3rd, 13th, 63rd and 313th looks, about 0.1, 0.6, 3.1 and 15.6 s into a
// wait. Pure.
func nearLook(n int) bool {
	for k, step := 2, 10; k <= n; k, step = k+step, step*5 {
		if k == n {
			return true
		}
	}
	return false
}

// verdict decides from a probe whether the target is in the states n
// asks for (the point and the hit are judged after); near is what the
// page has near a target that matches nothing (js/near.js). It returns final
// with an error for a failure no waiting mends (ambiguity), and otherwise
// what failed, as "failed check NAME: why". Pure.
func verdict(p probe, n needs, t scripts.Target, near string) (ok bool, failed string, final error) {
	switch {
	case p.Count > 1 && t.Nth == nil:
		return false, "", fmt.Errorf("%w: %s matches %d elements; make it specific (exact: true, a role and name...) or add nth", ErrAmbiguous, t, p.Count)
	case p.Count == 0 && near != "":
		return false, "failed check attached: no element matches; " + near, nil
	case p.Count == 0 || p.Box == nil:
		return false, "failed check attached: no element matches", nil
	case n.Visible && !p.Visible:
		return false, "failed check visible: the element is not visible", nil
	case n.Shows && !p.Shows:
		return false, "failed check shows something: the element is see-through (opacity: 0)", nil
	case n.Visible && !p.Stable:
		return false, "failed check stable: the element is still moving", nil
	case n.Enabled && !p.Enabled:
		return false, "failed check enabled: the element is disabled", nil
	case n.Editable && p.Field && !p.Editable:
		return false, "failed check editable: the field is read-only", nil
	}
	return true, "", nil
}

// Actionable is a target resolved and checked for input.
type Actionable struct {
	Box timeline.Rect
	// Point is where the pointer aims, in the tab's viewport.
	Point  point
	Cursor string
	// Token names the element observed, for revalidate, in doc.
	Token int
	doc   *doc
}

// clickablePoint is where Playwright aims at an element: the middle of the
// first of its boxes (one per line of a wrapped link, each a quad, turned
// with the element) that keeps more than a pixel of area once its corners
// are clamped to the viewport w by h. ok is false when none is in view.
// Pure.
func clickablePoint(quads []dom.Quad, w, h float64) (x, y float64, ok bool) {
	for _, q := range quads {
		if len(q) != 8 {
			continue
		}
		var c [8]float64
		for i := 0; i < 8; i += 2 {
			c[i] = math.Max(0, math.Min(q[i], w))
			c[i+1] = math.Max(0, math.Min(q[i+1], h))
		}
		area := 0.0
		for i := 0; i < 8; i += 2 {
			j := (i + 2) % 8
			area += c[i]*c[j+1] - c[j]*c[i+1]
		}
		if math.Abs(area)/2 <= 0.99 {
			continue
		}
		return floor2((c[0] + c[2] + c[4] + c[6]) / 4), floor2((c[1] + c[3] + c[5] + c[7]) / 4), true
	}
	return 0, 0, false
}

// floor2 rounds down to two decimals, as Playwright sends a point.
func floor2(v float64) float64 { return math.Floor(v*100) / 100 }

// offsetPoint is the point at offset from the top-left corner of an
// element's padding box: its box's corner plus its borders. Pure.
func offsetPoint(box timeline.Rect, border point, at scripts.Point) (x, y float64) {
	return floor2(box.X + border.X + at.X), floor2(box.Y + border.Y + at.Y)
}

// hit is clapper.hitTarget's answer.
type hit struct {
	OK   bool   `json:"ok"`
	Gone bool   `json:"gone"`
	Hit  string `json:"hit"`
}

// retryWaits are the waits before each look after the first: 0, then 20
// ms, then every pollEvery. Playwright backs off to 500 ms between its
// attempts; a video cannot wait that long after the animation it waited
// for has ended (a form sliding in would be followed by half a second of
// stillness), and a look costs two animation frames, so clapper keeps
// looking every 50 ms.
func retryWaits(i int) time.Duration {
	switch i {
	case 0:
		return 0
	case 1:
		return 20 * time.Millisecond
	}
	return pollEvery
}

// waitActionable waits until the target passes the checks n, or the step's
// deadline; the error names the check that failed last. Nothing is
// dispatched by this.
func waitActionable(ctx context.Context, tab *Tab, t scripts.Target, n needs) (Actionable, error) {
	var act Actionable
	attempt := 0
	near := "" // what the page had near the target when last looked for
	err := pollWith(ctx, t.String()+" not actionable", retryWaits, func(ctx context.Context) (bool, string, error) {
		d, err := tab.docOf(ctx, t)
		if err != nil {
			return isFinal(err), "", err
		}
		p, err := docCall[probe](ctx, d, "probe", specOf(t), nthArg(t), n.Scroll, attempt)
		attempt++
		if err != nil {
			return isException(err), "", err // an exception (an invalid selector) is final
		}
		if len(t.Frames) > 0 && n.Scroll {
			// Scrolling moved the iframes: where they are is read again.
			was := d.origin
			if d, err = tab.docOf(ctx, t); err != nil {
				return isFinal(err), "", err
			}
			p.Scrolled = p.Scrolled || d.origin != was
		}
		if p.Scrolled && tab.pointer != nil {
			tab.pointer.pageMoved() // whichever step acts next
		}
		if p.Near != nil {
			near = *p.Near // the latest answer stands until the next
		}
		ok, failed, final := verdict(p, n, t, near)
		if final != nil || !ok {
			return final != nil, failed, final
		}
		a := Actionable{Box: d.toTab(*p.Box), Cursor: p.Cursor, Token: p.Token, doc: d}
		a.Point = point{X: a.Box.X + a.Box.W/2, Y: a.Box.Y + a.Box.H/2}
		if !n.Hit {
			act = a
			return true, "", nil
		}
		pt, why, err := aim(ctx, d, p, n.aimAt)
		if err != nil || why != "" {
			return false, why, err
		}
		a.Point = pt
		if why, err := d.reachesThrough(ctx, pt); err != nil || why != "" {
			return false, why, err
		}
		if why, err := d.reaches(ctx, p.Token, pt); err != nil || why != "" {
			return false, why, err
		}
		act = a
		return true, "", nil
	})
	if attempt > 2 {
		freshNear(ctx, tab, t, err, "failed check attached: no element matches")
	}
	return act, err
}

// freshNear says, in the timeout err of a wait for target t that last
// saw "<nothing> [; near]", what the page has near t now: the looks for it
// thin out (nearLook), so the last answer can be seconds old when the
// wait ends. A short look of its own, past the step's deadline; on a
// failure the last answer stands. A target that matches at that look
// came late, and the error says so (cameLate).
func freshNear(ctx context.Context, tab *Tab, t scripts.Target, err error, nothing string) {
	var wt *WaitTimeout
	if !errors.As(err, &wt) || (wt.Seen != nothing && !strings.HasPrefix(wt.Seen, nothing+"; ")) {
		return
	}
	actx, cancel := afterwards(ctx)
	defer cancel()
	d, derr := tab.docOf(actx, t)
	if derr != nil {
		return
	}
	// The target may have come at the very end of the wait: then that
	// is what the error says, not what else the page has.
	if there, err := docCall[bool](actx, d, "state", specOf(t), nthArg(t), "attached"); err == nil && there {
		wt.Seen = nothing + cameLate
		return
	}
	near, nerr := docCall[string](actx, d, "nearMisses", specOf(t))
	switch {
	case nerr != nil:
	case near == "":
		wt.Seen = nothing
	default:
		wt.Seen = nothing + "; " + near
	}
}

// cameLate ends what a wait for a target saw when the target matched
// only at the last look, once its time had run out.
const cameLate = "; the target matched just after the time ran out (the page made it late: a longer timeout, or a wait for what comes before it)"

// aim chooses the point of the element to aim at, in the tab's viewport:
// the at point given, or Playwright's clickable point. why says what
// failed when there is none.
func aim(ctx context.Context, d *doc, p probe, at *scripts.Point) (point, string, error) {
	if at != nil {
		x, y := offsetPoint(*p.Box, p.Border, *at)
		return d.pointToTab(point{x, y}), "", nil
	}
	quads, err := d.contentQuads(ctx, p.Token)
	if err != nil {
		return point{}, "", err
	}
	if len(quads) == 0 {
		return point{}, "failed check visible: the element has no box", nil
	}
	vw, vh := p.Viewport.W, p.Viewport.H
	if d.parent != nil { // the frame's is not the tab's
		if vw, vh, err = d.tab.viewport(ctx); err != nil {
			return point{}, "", err
		}
	}
	x, y, ok := clickablePoint(quads, vw, vh)
	if !ok {
		return point{}, "failed check in viewport: no part of the element is in the viewport", nil
	}
	return point{x, y}, "", nil
}

// reaches says why the pointer at pt (in the tab's viewport) does not
// reach the element token names ("" when it does).
func (d *doc) reaches(ctx context.Context, token int, pt point) (string, error) {
	local := d.pointFromTab(pt)
	h, err := docCall[hit](ctx, d, "hitTarget", token, local.X, local.Y)
	if err != nil {
		return "", err
	}
	if h.OK {
		return "", nil
	}
	if h.Gone {
		return "failed check attached: the element was removed", nil
	}
	return fmt.Sprintf("failed check receives pointer: %s intercepts pointer events at (%.0f, %.0f)", h.Hit, pt.X, pt.Y), nil
}

// contentQuads reads the boxes of the element token names, in the tab's
// viewport (DOM.getContentQuads; an out-of-process frame's are moved by
// its place in the page).
func (d *doc) contentQuads(ctx context.Context, token int) ([]dom.Quad, error) {
	c, stop := d.on(ctx)
	defer stop()
	obj, err := callHelper[*runtime.RemoteObject](c, d.helpers, "elementOf", token)
	if err != nil {
		return nil, err
	}
	if obj == nil || obj.ObjectID == "" {
		return nil, nil
	}
	defer release(c, obj.ObjectID)
	quads, err := chromedp.Call(c, dom.GetContentQuads, dom.GetContentQuadsParams{ObjectID: obj.ObjectID})
	if err != nil {
		return nil, nil // no layout: judged not visible, and looked at again
	}
	out := make([]dom.Quad, 0, len(quads.Quads))
	for _, q := range quads.Quads {
		m := make(dom.Quad, len(q))
		for i := range q {
			m[i] = q[i]
			if i%2 == 0 {
				m[i] += d.quadOrigin.X
			} else {
				m[i] += d.quadOrigin.Y
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// actionable waits for a target and records its box in the step.
func (r *run) actionable(ctx context.Context, tab *Tab, t scripts.Target, n needs, rec *timeline.Step) (Actionable, error) {
	act, err := waitActionable(ctx, tab, t, n)
	if err != nil {
		return act, undispatched(err)
	}
	box := act.Box
	rec.Region = &box
	r.journalStepSoFar(*rec)
	return act, nil
}
