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

// click moves the pointer to the target and clicks it.
func (r *run) click(ctx context.Context, tab *Tab, a scripts.Click, rec *timeline.Step) error {
	rec.Target = a.Target.String()
	mods, err := modifierMask(a.Modifiers)
	if err != nil {
		return undispatched(err)
	}
	if err := r.pointAt(ctx, tab, a.Target, forPointer, rec); err != nil {
		return err
	}
	return tab.pointer.Click(ctx, a.Button, a.Count, mods)
}

// drag presses at from, moves to to and releases there.
func (r *run) drag(ctx context.Context, tab *Tab, a scripts.Drag, rec *timeline.Step) error {
	if err := r.moveTo(ctx, tab, a.From, rec); err != nil {
		return err
	}
	if err := tab.pointer.Down(ctx); err != nil {
		return err
	}
	if err := r.moveTo(ctx, tab, a.To, rec); err != nil {
		c, cancel := afterwards(ctx)
		_ = tab.pointer.Up(c) // never leave the button down
		cancel()
		return dispatched(err)
	}
	return tab.pointer.Up(ctx)
}

// pointAt waits for the target to pass the checks n and moves the pointer
// to its centre, recording the target's box in the step.
// An element observed before a hold of its tab is revalidated before
// the press that follows (revalidate.go).
func (r *run) pointAt(ctx context.Context, tab *Tab, t scripts.Target, n needs, rec *timeline.Step) error {
	epoch := r.epoch(tab)
	act, err := r.actionable(ctx, tab, t, n, rec)
	if err != nil {
		return err
	}
	x, y := act.Center()
	if err := tab.pointer.MoveToAs(ctx, x, y, act.Cursor); err != nil {
		return err
	}
	if r.o.afterResolve != nil {
		r.o.afterResolve(r)
	}
	return r.revalidate(ctx, tab, epoch, act, t)
}

// focus brings a field into focus the way a person does: by clicking it.
func (r *run) focus(ctx context.Context, tab *Tab, t scripts.Target, rec *timeline.Step) error {
	if err := r.pointAt(ctx, tab, t, forPointer, rec); err != nil {
		return err
	}
	return tab.pointer.Click(ctx, "left", 1, 0)
}

// moveTo moves the pointer to an element or a point.
func (r *run) moveTo(ctx context.Context, tab *Tab, p scripts.Place, rec *timeline.Step) error {
	if p.Target != nil {
		rec.Target = p.Target.String()
		return r.pointAt(ctx, tab, *p.Target, forHover, rec)
	}
	if p.Point == nil {
		return undispatched(errors.New("move: no place"))
	}
	return tab.pointer.MoveTo(ctx, p.Point.X, p.Point.Y)
}

// Pointer drives one tab's mouse with real CDP input events, remembering
// where the pointer is so each movement starts where the last ended.
type Pointer struct {
	j      *Journal
	tab    string
	x, y   float64
	speed  float64
	cursor string
}

// MoveTo travels to (x, y) along a natural path, one mouseMoved per tick,
// paced in real time so the movement is seen as a person's.
func (p *Pointer) MoveTo(ctx context.Context, x, y float64) error {
	return p.MoveToAs(ctx, x, y, p.cursor)
}

// MoveToAs is MoveTo where the page's cursor at the destination is
// arrive: receipts along the way keep the cursor the pointer had, and the
// last one carries arrive.
func (p *Pointer) MoveToAs(ctx context.Context, x, y float64, arrive string) error {
	start := clockNow(ctx)
	path := PointerPath(p.x, p.y, x, y, p.speed, time.Second/60)
	for i, pt := range path {
		if i == len(path)-1 {
			p.cursor = arrive
		}
		if err := sleep(ctx, start+pt.At-clockNow(ctx)); err != nil {
			if i > 0 {
				return dispatched(err)
			}
			return undispatched(err)
		}
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, pt.X, pt.Y, "", 0, 0); err != nil {
			return err
		}
	}
	return nil
}

// Click presses and releases button count times at the current position.
func (p *Pointer) Click(ctx context.Context, button string, count int, mods int64) error {
	if button == "" {
		button = "left"
	}
	if count < 1 {
		count = 1
	}
	for i := 1; i <= count; i++ {
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMousePressed, p.x, p.y, button, i, mods); err != nil {
			return err
		}
		// Released even when the step's time is up: a button is never
		// left down.
		_ = sleep(ctx, pressHold)
		c, cancel := afterwards(ctx)
		err := p.mouse(c, input.DispatchMouseEventTypeMouseReleased, p.x, p.y, button, i, mods)
		cancel()
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return dispatchErr(context.Cause(ctx))
		}
	}
	return nil
}

// Down and Up press and release without moving (drag).
func (p *Pointer) Down(ctx context.Context) error {
	return p.mouse(ctx, input.DispatchMouseEventTypeMousePressed, p.x, p.y, "left", 1, 0)
}

func (p *Pointer) Up(ctx context.Context) error {
	return p.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, p.x, p.y, "left", 1, 0)
}

// Wheel sends one wheel event at the current position.
func (p *Pointer) Wheel(ctx context.Context, dx, dy float64) error {
	r := timeline.Receipt{Kind: timeline.InputWheel, Tab: p.tab, X: p.x, Y: p.y, DeltaX: dx, DeltaY: dy}
	return p.j.send(r, func() error {
		_, err := chromedp.Call(ctx, dispatchWheel, wheelParams{
			Type: input.DispatchMouseEventTypeMouseWheel, X: p.x, Y: p.y, DeltaX: dx, DeltaY: dy,
		})
		return err
	})
}

// wheelParams is Input.dispatchMouseEvent for wheels: Chromium requires
// both deltas, and cdproto's params omit a zero delta.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

func (p *Pointer) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, button string, clicks int, mods int64) error {
	kind := timeline.InputMove
	switch typ {
	case input.DispatchMouseEventTypeMousePressed:
		kind = timeline.InputDown
	case input.DispatchMouseEventTypeMouseReleased:
		kind = timeline.InputUp
	}
	r := timeline.Receipt{Kind: kind, Tab: p.tab, X: x, Y: y, Button: button, Clicks: clicks, Cursor: p.cursor}
	err := p.j.send(r, func() error {
		params := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: mods}
		if button != "" {
			params.Button = input.MouseButton(button)
			params.ClickCount = int64(clicks)
			if typ == input.DispatchMouseEventTypeMousePressed {
				params.Buttons = buttonsMask(button)
			}
		}
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, params)
		return err
	})
	if err == nil {
		p.x, p.y = x, y
	}
	return err
}

func buttonsMask(b string) int64 {
	switch b {
	case "right":
		return 2
	case "middle":
		return 4
	}
	return 1
}
