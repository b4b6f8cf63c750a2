package session

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// pressHold is how long a click holds the button down: a press a person
// could see.
const pressHold = 40 * time.Millisecond

// afterwards is a context for a command that must be sent although the
// step's time is up (releasing a pressed button): a short bound of its own.
func afterwards(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
}

// click moves the pointer to the target (or a point of the viewport) and
// clicks it, count times, with the modifier keys held (pressed as keys
// first, as a person holds them, and released after).
func (r *run) click(ctx context.Context, tab *Tab, a scripts.Click, rec *timeline.Step) error {
	if a.Point != nil {
		if err := tab.pointer.MoveTo(ctx, a.Point.X, a.Point.Y); err != nil {
			return err
		}
	} else {
		rec.Target = a.Target.String()
		if err := r.pointAt(ctx, tab, a.Target, forPointer, a.At, rec); err != nil {
			return err
		}
	}
	return withKeysHeld(ctx, tab.keyboard, a.Modifiers, func() error {
		return tab.pointer.Click(ctx, a.Button, a.Count)
	})
}

// withKeysHeld presses the keys not held yet, runs fn, and releases what
// it pressed, on every path. A failure once fn began counts as dispatched.
func withKeysHeld(ctx context.Context, k *Keyboard, keys []string, fn func() error) error {
	var pressed []string
	defer func() {
		c, cancel := afterwards(ctx)
		defer cancel()
		for i := len(pressed) - 1; i >= 0; i-- {
			_ = k.Up(c, pressed[i])
		}
	}()
	for _, m := range keys {
		if k.isHeld(m) {
			continue
		}
		if err := k.Down(ctx, m); err != nil {
			if len(pressed) > 0 {
				return dispatched(err)
			}
			return err
		}
		pressed = append(pressed, m)
	}
	err := fn()
	if err != nil && len(pressed) > 0 {
		return dispatched(err)
	}
	return err
}

// drag presses at from, moves to to with the button held and releases
// there (drag.go).

// pointAt waits for the target to pass the checks n and moves the pointer
// to the point it aims at (at, relative to the element's top-left corner,
// or a point Playwright would click), recording the target's box in the
// step. An element observed before a hold of its tab is revalidated
// before the press that follows (revalidate.go).
func (r *run) pointAt(ctx context.Context, tab *Tab, t scripts.Target, n needs, at *scripts.Point, rec *timeline.Step) error {
	epoch := r.epoch(tab)
	act, err := r.actionable(ctx, tab, t, n.at(at), rec)
	if err != nil {
		return err
	}
	tab.pace.focus(act.doc)
	if err := tab.pointer.MoveOnto(ctx, act.Point.X, act.Point.Y, act.Cursor, act.Box); err != nil {
		return err
	}
	if r.o.afterResolve != nil {
		r.o.afterResolve(r)
	}
	return r.revalidate(ctx, tab, epoch, act, t)
}

// focus brings a field into focus the way a person does: by clicking it.
func (r *run) focus(ctx context.Context, tab *Tab, t scripts.Target, rec *timeline.Step) error {
	if err := r.pointAt(ctx, tab, t, forPointer, nil, rec); err != nil {
		return err
	}
	return tab.pointer.Click(ctx, "left", 1)
}

// moveTo moves the pointer to an element or a point.
func (r *run) moveTo(ctx context.Context, tab *Tab, p scripts.Place, rec *timeline.Step) error {
	if p.Target != nil {
		rec.Target = p.Target.String()
		return r.pointAt(ctx, tab, *p.Target, forHover, nil, rec)
	}
	if p.Point == nil {
		return undispatched(errors.New("move: no place"))
	}
	return tab.pointer.MoveTo(ctx, p.Point.X, p.Point.Y)
}

// Pointer drives one tab's mouse with real CDP input events, remembering
// where the pointer is and which buttons are down, so each movement
// starts where the last ended and a move with a button down is a drag.
// Its methods run on the run's goroutine.
type Pointer struct {
	j      *Journal
	tab    string
	x, y   float64
	speed  float64
	cursor string
	// buttons are the buttons down (CDP's bits: left 1, right 2, middle 4).
	buttons int64
	// keys are the keyboard whose held modifiers apply to every event.
	keys *Keyboard
	// pace spaces input between steps (pace.go); nil sends at once.
	pace *pace
	// moved, when set, is called after each move with the button state
	// (the drag's watch for a drag the page started: drag.go).
	moved func(ctx context.Context) error
	// drag is the data of an HTML5 drag under way (drag.go): moves and
	// the release are then drag events.
	drag *input.DragData
	// placed says a pointer event was sent (the video draws the pointer
	// from then on); shapeNavs is the tab's count of navigations when the
	// cursor under it was last known (rereadShape).
	placed bool
	// over is the box of the element the pointer last arrived at (nil:
	// not known, or no longer where it was), for the shape along the
	// next path (shapeAlong).
	over       *timeline.Rect
	shapeNavs  int64
	shapeFails int          // reads that failed since the last navigation
	navs       func() int64 // the tab's navigations so far (nil: none counted)
}

// MoveTo travels to (x, y) along a natural path, one mouseMoved per tick,
// paced in real time so the movement is seen as a person's; the cursor
// keeps its shape. The path is paced by the clock: a point whose time has
// passed while an earlier one was on its way is skipped for the latest
// one due, so a slow page does not stretch the movement.
func (p *Pointer) MoveTo(ctx context.Context, x, y float64) error {
	return p.moveOnto(ctx, x, y, p.cursor, nil)
}

// MoveOnto is MoveTo onto an element whose box is to, where the page's
// cursor is arrive: the cursor keeps its shape while still over the
// element it leaves, takes the arrow between the two, and takes arrive
// once over to (shapeAlong), as a person's cursor does going from a text
// field to a button.
func (p *Pointer) MoveOnto(ctx context.Context, x, y float64, arrive string, to timeline.Rect) error {
	return p.moveOnto(ctx, x, y, arrive, &to)
}

func (p *Pointer) moveOnto(ctx context.Context, x, y float64, arrive string, to *timeline.Rect) error {
	path := PointerPath(p.x, p.y, x, y, p.speed, paceSlot)
	if err := p.j.ready(ctx, p.pace); err != nil {
		return err
	}
	return timed(ctx, path[len(path)-1].At, func() error { return p.follow(ctx, path, arrive, to) })
}

// follow sends path's moves, each at its time on ctx's clock, each with
// the shape the cursor has there.
func (p *Pointer) follow(ctx context.Context, path []PathPoint, arrive string, to *timeline.Rect) error {
	start := clockNow(ctx)
	sent := 0
	from, leaving := p.over, p.cursor
	if to == nil {
		from = nil // no box to arrive in: the shape is kept to the end
	}
	for i := 0; i < len(path); i++ {
		if err := sleep(ctx, start+path[i].At-clockNow(ctx)); err != nil {
			if sent > 0 {
				return dispatched(err)
			}
			return undispatched(err)
		}
		i = latestDue(path, i, clockNow(ctx)-start)
		p.cursor = shapeAlong(path[i].X, path[i].Y, i == len(path)-1, from, to, leaving, arrive)
		if i == len(path)-1 {
			p.over = to
		}
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, path[i].X, path[i].Y, "", 0); err != nil {
			if sent > 0 {
				return dispatched(err)
			}
			return err
		}
		sent++
	}
	return nil
}

// shapeAlong is the cursor's shape at (x, y) on a path from the element
// whose box is from (nil: not known) to the one whose box is to (nil: a
// bare point, or a move that keeps its shape): arrive at the end and over
// to, leaving while still over from, the arrow ("auto") between them.
// Without a box to arrive in, the shape is leaving until the end. Pure.
func shapeAlong(x, y float64, last bool, from, to *timeline.Rect, leaving, arrive string) string {
	inside := func(r *timeline.Rect) bool {
		return r != nil && x >= r.X && x <= r.X+r.W && y >= r.Y && y <= r.Y+r.H
	}
	switch {
	case last:
		return arrive
	case to == nil:
		return leaving
	case inside(to):
		return arrive
	case inside(from):
		return leaving
	}
	return "auto"
}

// latestDue is the last point from i on whose time has come at elapsed
// (i itself when none later is due). Pure.
func latestDue(path []PathPoint, i int, elapsed time.Duration) int {
	for i+1 < len(path) && path[i+1].At <= elapsed {
		i++
	}
	return i
}

// Click presses and releases button count times at the current position
// (count 2 is a double click, 3 a triple click: each press carries its
// click count, as a person's do).
func (p *Pointer) Click(ctx context.Context, button string, count int) error {
	if button == "" {
		button = "left"
	}
	if count < 1 {
		count = 1
	}
	for i := 1; i <= count; i++ {
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMousePressed, p.x, p.y, button, i); err != nil {
			if i == count {
				err = lastInput(err) // a page that closes as its button goes down
			}
			if i > 1 {
				return dispatched(err)
			}
			return err
		}
		// Released even when the step's time is up: a button is never
		// left down.
		_ = sleep(ctx, pressHold)
		c, cancel := afterwards(ctx)
		err := p.mouse(c, input.DispatchMouseEventTypeMouseReleased, p.x, p.y, button, i)
		cancel()
		if err != nil {
			if i == count {
				err = lastInput(err) // a sign-in window's Continue button
			}
			return dispatched(err)
		}
		if err := ctx.Err(); err != nil {
			return dispatchErr(context.Cause(ctx))
		}
	}
	return nil
}

// Down and Up press and release a button without moving.
func (p *Pointer) Down(ctx context.Context, button string) error {
	return p.mouse(ctx, input.DispatchMouseEventTypeMousePressed, p.x, p.y, button, 1)
}

func (p *Pointer) Up(ctx context.Context, button string) error {
	return p.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, p.x, p.y, button, 1)
}

// ReleaseAll releases every button still down, even when ctx has ended.
func (p *Pointer) ReleaseAll(ctx context.Context) {
	c, cancel := afterwards(ctx)
	defer cancel()
	for _, b := range []string{"left", "right", "middle"} {
		if p.buttons&buttonBit(b) != 0 {
			if p.Up(c, b) != nil {
				p.buttons &^= buttonBit(b)
			}
		}
	}
}

// Wheel sends one wheel event at the current position.
func (p *Pointer) Wheel(ctx context.Context, dx, dy float64) error {
	r := timeline.Receipt{Kind: timeline.InputWheel, Tab: p.tab, X: p.x, Y: p.y, DeltaX: dx, DeltaY: dy, Cursor: p.cursor}
	err := p.j.send(ctx, p.pace, r, func() error {
		_, err := chromedp.Call(ctx, dispatchWheel, wheelParams{
			Type: input.DispatchMouseEventTypeMouseWheel, X: p.x, Y: p.y, DeltaX: dx, DeltaY: dy,
			Modifiers: p.modifiers(), Buttons: p.buttons,
		})
		return err
	})
	if err == nil {
		p.placedNow()
		p.pageMoved()
	}
	return err
}

// pageMoved forgets the element the pointer was over: the page moved
// under it (a scroll, a new page), so the next move does not keep that
// element's shape while it leaves (shapeAlong).
func (p *Pointer) pageMoved() { p.over = nil }

// rereadShape reads again the CSS cursor under the pointer when its tab
// showed a new document since it was last known, and notes a change
// (timeline.PointerShape), so the video's cursor takes the shape of what
// the new page has under it instead of keeping the old page's (an I-beam
// over empty space). A pointer never placed, pressed or dragging is left
// alone; a read that fails is tried once more, after the next step. A
// navigation within the document counts too: a new route of a
// single-page app is a new page to the person watching.
func (p *Pointer) rereadShape(ctx context.Context, d *doc) {
	if !p.placed || p.buttons != 0 || p.drag != nil || p.navs == nil {
		return
	}
	n := p.navs()
	if n == p.shapeNavs {
		return
	}
	p.pageMoved() // another page is under the pointer
	css, err := docCall[string](ctx, d, "cursorAt", p.x, p.y)
	if err != nil {
		// Asked again after the next step, once: a page that cannot
		// answer twice is left with the shape it had.
		if p.shapeFails++; p.shapeFails >= 2 {
			p.shapeNavs, p.shapeFails = n, 0
		}
		return
	}
	p.shapeNavs, p.shapeFails = n, 0
	if css != p.cursor {
		p.cursor = css
		p.j.note(timeline.Receipt{Kind: timeline.PointerShape, Tab: p.tab, X: p.x, Y: p.y, Cursor: css})
	}
}

// wheelParams is Input.dispatchMouseEvent for wheels: Chromium requires
// both deltas, and cdproto's params omit a zero delta.
type wheelParams struct {
	Type      input.DispatchMouseEventType `json:"type"`
	X         float64                      `json:"x"`
	Y         float64                      `json:"y"`
	DeltaX    float64                      `json:"deltaX"`
	DeltaY    float64                      `json:"deltaY"`
	Modifiers int64                        `json:"modifiers,omitempty"`
	Buttons   int64                        `json:"buttons,omitempty"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

// modifiers is the bits of the modifier keys held on the tab's keyboard.
func (p *Pointer) modifiers() int64 {
	if p.keys == nil {
		return 0
	}
	return p.keys.Modifiers()
}

// mouse sends one mouse event. Every event carries the buttons down after
// it (a move with the left button down is a drag to the page: buttons 1)
// and the modifiers held.
func (p *Pointer) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, button string, clicks int) error {
	if p.drag != nil {
		switch {
		case typ == input.DispatchMouseEventTypeMouseMoved:
			p.x, p.y = x, y
			return p.dragEvent(ctx, input.DispatchDragEventTypeDragOver, timeline.InputMove)
		case typ == input.DispatchMouseEventTypeMouseReleased && button == "left":
			p.x, p.y = x, y
			err := p.dragEvent(ctx, input.DispatchDragEventTypeDrop, timeline.InputUp)
			p.drag, p.buttons = nil, p.buttons&^1
			return err
		}
	}
	kind := timeline.InputMove
	buttons := p.buttons
	switch typ {
	case input.DispatchMouseEventTypeMousePressed:
		kind = timeline.InputDown
		buttons |= buttonBit(button)
	case input.DispatchMouseEventTypeMouseReleased:
		kind = timeline.InputUp
		buttons &^= buttonBit(button)
	}
	r := timeline.Receipt{Kind: kind, Tab: p.tab, X: x, Y: y, Button: button, Clicks: clicks, Cursor: p.cursor}
	err := p.j.send(ctx, p.pace, r, func() error {
		params := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: p.modifiers(), Buttons: buttons}
		if button != "" {
			params.Button = input.MouseButton(button)
			params.ClickCount = int64(clicks)
		} else if buttons != 0 {
			params.Button = input.MouseButton(firstButton(buttons))
		}
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, params)
		return err
	})
	if err == nil {
		p.x, p.y, p.buttons = x, y, buttons
		p.placedNow()
		if typ == input.DispatchMouseEventTypeMouseMoved && p.moved != nil {
			t0 := clockNow(ctx)
			err := p.moved(ctx) // asks the page (a drag's start), counted as its time
			meter(ctx).pageTime(clockNow(ctx)-t0, true)
			return err
		}
	}
	return err
}

// placedNow notes that a pointer event was sent: its cursor is known for
// the document the tab shows now.
func (p *Pointer) placedNow() {
	p.placed = true
	if p.navs != nil {
		p.shapeNavs = p.navs()
	}
}

// buttonBit is a button's bit in the buttons field.
func buttonBit(b string) int64 {
	switch b {
	case "right":
		return 2
	case "middle":
		return 4
	case "":
		return 0
	}
	return 1
}

// firstButton names the button a move with buttons down reports.
func firstButton(buttons int64) string {
	switch {
	case buttons&1 != 0:
		return "left"
	case buttons&2 != 0:
		return "right"
	}
	return "middle"
}
