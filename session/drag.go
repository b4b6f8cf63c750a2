package session

import (
	"context"
	"math"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// A drag is a person's: the button goes down on the source, the pointer
// travels to the target with the button held (every move says so, so the
// page sees a drag: a text selection, a slider, a sortable list), and the
// button comes up there. A page that drags with HTML5 drag and drop
// (draggable elements, dragstart and drop) gets its drag through
// Chromium's drag interception, as Playwright does it: once the page has
// started a drag, the moves and the release are sent as drag events with
// the data the page put in the drag.

// dragFollow is how many times a drag moves on to a target that moved
// while the pointer travelled to it (a list making room, a board
// reflowing), and how far it must have moved to be followed.
const (
	dragFollow     = 3
	dragFollowMove = 2.0 // CSS pixels
)

// drag presses at from, moves to to with the button held and releases
// there.
func (r *run) drag(ctx context.Context, tab *Tab, a scripts.Drag, rec *timeline.Step) error {
	if err := r.moveTo(ctx, tab, a.From, rec); err != nil {
		return err
	}
	src := tab.mainDoc()
	if a.From.Target != nil {
		if d, err := tab.docOf(ctx, *a.From.Target); err == nil {
			src = d
		}
	}
	w := &dragWatch{tab: tab, src: src}
	if err := w.start(ctx); err != nil {
		return undispatched(err)
	}
	defer w.stop(ctx)
	tab.pointer.moved = w.moved
	defer func() { tab.pointer.moved = nil }()
	if err := tab.pointer.Down(ctx, "left"); err != nil {
		return err
	}
	to := a.To
	if a.By != nil {
		to = scripts.Place{Point: &scripts.Point{X: tab.pointer.x + a.By.X, Y: tab.pointer.y + a.By.Y}}
	}
	err := r.dragTo(ctx, tab, to, rec)
	if err != nil {
		c, cancel := afterwards(ctx)
		_ = tab.pointer.Up(c, "left") // never leave the button down
		cancel()
		return dispatched(err)
	}
	return lastInput(tab.pointer.Up(ctx, "left")) // a drop that closes the page
}

// dragTo moves the held pointer to the place, following a target that
// moves meanwhile. The target is found once the button is down: a page
// may make room for the drop when the drag starts.
func (r *run) dragTo(ctx context.Context, tab *Tab, to scripts.Place, rec *timeline.Step) error {
	if to.Target == nil {
		return tab.pointer.MoveTo(ctx, to.Point.X, to.Point.Y)
	}
	t := *to.Target
	// The dragged element follows the pointer in many pages and may lie
	// over the target: the target is aimed at, not hit-tested.
	n := forHover
	n.Hit = false
	for i := 0; ; i++ {
		act, err := waitActionable(ctx, tab, t, n)
		if err != nil {
			return err
		}
		if i == 0 {
			box := act.Box
			rec.Region = &box
		}
		// With the button held the cursor keeps the shape it had (a grab)
		// all the way, and takes the target's only at the end.
		if err := tab.pointer.moveOnto(ctx, act.Point.X, act.Point.Y, act.Cursor, nil); err != nil {
			return err
		}
		if i == dragFollow {
			return nil
		}
		again, err := waitActionable(ctx, tab, t, n)
		if err != nil {
			return err
		}
		if math.Hypot(again.Point.X-act.Point.X, again.Point.Y-act.Point.Y) < dragFollowMove {
			return nil
		}
	}
}

// dragWatch carries an HTML5 drag through Chromium's interception: while
// it is on, a drag the page starts is not run by the browser but handed
// to clapper (Input.dragIntercepted), which then sends the drag's events.
type dragWatch struct {
	tab *Tab
	src *doc // the document the drag starts in, where dragstart is watched
	on  bool
}

// dragWaitLimit bounds the wait for Chromium's word of a drag the page
// started.
const dragWaitLimit = 2 * time.Second

// start turns interception on and watches the source document for a
// dragstart.
func (w *dragWatch) start(ctx context.Context) error {
	w.tab.events.takeDrag()
	if _, err := docCall[bool](ctx, w.src, "watchDrag"); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
		return err
	}
	w.on = true
	return nil
}

// stop turns interception off, even when ctx has ended.
func (w *dragWatch) stop(ctx context.Context) {
	if !w.on {
		return
	}
	c, cancel := afterwards(ctx)
	defer cancel()
	_, _ = chromedp.Call(c, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: false})
	w.tab.pointer.drag = nil
	w.on = false
}

// moved is called after each move of the pointer (Pointer.moved): once
// the page has started a drag, it takes the drag's data from Chromium and
// enters the drag where the pointer is.
func (w *dragWatch) moved(ctx context.Context) error {
	p := w.tab.pointer
	if p.drag != nil || p.buttons&1 == 0 {
		return nil
	}
	started, err := docCall[bool](ctx, w.src, "dragStarted")
	if err != nil || !started {
		return nil // a page that drags with mouse events alone
	}
	data, err := w.tab.events.waitDrag(ctx, dragWaitLimit)
	if err != nil || data == nil {
		return nil
	}
	p.drag = data
	return p.dragEvent(ctx, input.DispatchDragEventTypeDragEnter, timeline.InputMove)
}

// dragEvent sends one drag event at the pointer's place.
func (p *Pointer) dragEvent(ctx context.Context, typ input.DispatchDragEventType, kind string) error {
	r := timeline.Receipt{Kind: kind, Tab: p.tab, X: p.x, Y: p.y, Type: string(typ), Cursor: p.cursor}
	return p.j.send(ctx, p.pace, r, func() error {
		_, err := chromedp.Call(ctx, input.DispatchDragEvent, input.DispatchDragEventParams{
			Type: typ, X: p.x, Y: p.y, Data: p.drag, Modifiers: p.modifiers(),
		})
		return err
	})
}

// takeDrag forgets a drag Chromium intercepted earlier.
func (e *tabEvents) takeDrag() {
	e.mu.Lock()
	e.dragData = nil
	e.mu.Unlock()
}

// waitDrag waits, bounded by limit, for Chromium's word of an intercepted
// drag, and takes its data.
func (e *tabEvents) waitDrag(ctx context.Context, limit time.Duration) (*input.DragData, error) {
	var data *input.DragData
	c, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := poll(c, "the page's drag", 10*time.Millisecond, func(context.Context) (bool, string, error) {
		e.mu.Lock()
		data, e.dragData = e.dragData, nil
		e.mu.Unlock()
		return data != nil, "", nil
	})
	return data, err
}
