package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// A target can live in an iframe (its frame: part names the iframes from
// the outermost in). Each document is reached through a doc: its page
// helpers, the CDP session it is on (the tab's own, or the session of an
// iframe Chromium runs in another process), and where its viewport sits
// in the tab's. Input always goes to the tab, at the tab's coordinates
// (Chromium routes it to the frame under the pointer, or with the focus);
// everything else about an element is asked of its own document.

// doc is one document of a tab.
type doc struct {
	tab     *Tab
	helpers *helpers
	// session is the chromedp context of an out-of-process frame's own
	// session; nil for a document on the tab's session.
	session context.Context
	// origin is where the document's viewport's top-left corner is in the
	// tab's viewport; quadOrigin is what DOM.getContentQuads answers on
	// its session are offset by (zero on the tab's session, whose boxes
	// are in the tab's viewport already; an out-of-process frame's are in
	// its own).
	origin, quadOrigin point
	// parent and frameToken are the document the iframe is in and the
	// iframe element there (nil for the tab's own document): the pointer
	// must reach the iframe in its parent to reach anything inside.
	parent     *doc
	frameToken int
}

// on returns a context for commands to the document's session, ending
// with ctx.
func (d *doc) on(ctx context.Context) (context.Context, context.CancelFunc) {
	if d.session == nil {
		return ctx, func() {}
	}
	return onTab(ctx, d.session)
}

// docCall calls a page helper in the document.
func docCall[T any](ctx context.Context, d *doc, name string, args ...any) (T, error) {
	c, stop := d.on(ctx)
	defer stop()
	return callHelper[T](c, d.helpers, name, args...)
}

// toTab moves a box of the document's viewport into the tab's.
func (d *doc) toTab(r timeline.Rect) timeline.Rect {
	r.X, r.Y = r.X+d.origin.X, r.Y+d.origin.Y
	return r
}

func (d *doc) pointToTab(p point) point {
	return point{p.X + d.origin.X, p.Y + d.origin.Y}
}

func (d *doc) pointFromTab(p point) point {
	return point{p.X - d.origin.X, p.Y - d.origin.Y}
}

// frameDoc is what a tab keeps of one iframe's document between steps.
type frameDoc struct {
	helpers *helpers
	session context.Context // nil: on the tab's session
	cancel  context.CancelFunc
	events  *tabEvents // an out-of-process frame's own listener
}

// frames are a tab's iframe documents by frame id.
type frames struct {
	mu   sync.Mutex
	byID map[cdp.FrameID]*frameDoc
}

// mainDoc is the tab's own document.
func (t *Tab) mainDoc() *doc { return &doc{tab: t, helpers: t.helpers} }

// docOf resolves the document a target lives in: the tab's own, or the
// iframe its frames name, looked for afresh (an iframe that reloads or is
// replaced is followed). An error that waiting can mend (no such iframe
// yet) is plain; one it cannot (several match, not an iframe) is final.
func (t *Tab) docOf(ctx context.Context, tg scripts.Target) (*doc, error) {
	d := t.mainDoc()
	for _, f := range tg.Frames {
		child, err := d.child(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("frame %s: %w", f, err)
		}
		d = child
	}
	return d, nil
}

// frameInfo is clapper.frameOf's answer.
type frameInfo struct {
	Count   int    `json:"count"`
	IsFrame bool   `json:"isFrame"`
	What    string `json:"what"`
	Token   int    `json:"token"`
	Origin  point  `json:"origin"`
}

// errNotFrame is wrapped by errors for a frame: part that names something
// other than an iframe.
var errNotFrame = errors.New("not an iframe")

// child finds the iframe f names in d and returns its document.
func (d *doc) child(ctx context.Context, f scripts.Target) (*doc, error) {
	fi, err := docCall[frameInfo](ctx, d, "frameOf", specOf(f), nthArg(f))
	if err != nil {
		return nil, err
	}
	switch {
	case fi.Count > 1 && f.Nth == nil:
		return nil, &finalError{fmt.Errorf("%w: %s matches %d iframes; make it specific or add nth", ErrAmbiguous, f, fi.Count)}
	case fi.Count == 0:
		return nil, errors.New("no iframe matches")
	case !fi.IsFrame:
		return nil, &finalError{fmt.Errorf("%w: it is %s, an <iframe> was expected", errNotFrame, fi.What)}
	}
	id, err := d.frameIDOf(ctx, fi.Token)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, errors.New("the iframe has no document yet")
	}
	fd, err := d.tab.frameDoc(ctx, id)
	if err != nil {
		return nil, err
	}
	origin := d.pointToTab(fi.Origin)
	c := &doc{tab: d.tab, helpers: fd.helpers, session: d.session, origin: origin, quadOrigin: d.quadOrigin, parent: d, frameToken: fi.Token}
	if fd.session != nil {
		c.session, c.quadOrigin = fd.session, origin
	}
	return c, nil
}

// finalError marks an error no waiting mends.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// isFinal reports whether err is one no waiting mends: a helper's
// exception, or a finalError.
func isFinal(err error) bool {
	var f *finalError
	return isException(err) || errors.As(err, &f)
}

// frameIDOf reads the id of the frame the iframe element token names
// holds ("" before it has one).
func (d *doc) frameIDOf(ctx context.Context, token int) (cdp.FrameID, error) {
	c, stop := d.on(ctx)
	defer stop()
	obj, err := callHelper[*runtime.RemoteObject](c, d.helpers, "elementOf", token)
	if err != nil || obj == nil || obj.ObjectID == "" {
		return "", err
	}
	defer release(c, obj.ObjectID)
	n, err := chromedp.Call(c, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj.ObjectID})
	if err != nil {
		return "", err
	}
	return n.Node.FrameID, nil
}

// frameDoc returns the tab's record of frame id, attaching to it when
// Chromium runs it in a process of its own (a cross-site iframe: a target
// of its own, whose id is the frame's).
func (t *Tab) frameDoc(ctx context.Context, id cdp.FrameID) (*frameDoc, error) {
	t.frames.mu.Lock()
	fd := t.frames.byID[id]
	t.frames.mu.Unlock()
	if fd != nil && (fd.events == nil || !fd.events.isClosed()) {
		return fd, nil
	}
	oop, err := t.outOfProcess(ctx, id)
	if err != nil {
		return nil, err
	}
	if !oop {
		fd = &frameDoc{helpers: t.worlds.add(id)}
	} else {
		fctx, cancel := chromedp.NewContext(t.ctx, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
		h := &helpers{}
		w := newWorldIndex()
		h.index = w
		w.docs = []*helpers{h}
		ev := &tabEvents{worlds: w, net: newNetActivity()}
		if err := chromedp.Listen(fctx, ev.listen); err != nil {
			cancel()
			return nil, err
		}
		c, stop := onTab(ctx, fctx)
		_, err := chromedp.Call(c, runtime.RunIfWaitingForDebugger, cdp.Empty{})
		stop()
		if err != nil {
			cancel()
			return nil, fmt.Errorf("attach to the iframe's process: %w", err)
		}
		fd = &frameDoc{helpers: h, session: fctx, cancel: cancel, events: ev}
	}
	t.frames.mu.Lock()
	if t.frames.byID == nil {
		t.frames.byID = map[cdp.FrameID]*frameDoc{}
	}
	if old := t.frames.byID[id]; old != nil && old.cancel != nil {
		old.cancel()
	}
	t.frames.byID[id] = fd
	t.frames.mu.Unlock()
	return fd, nil
}

// outOfProcess reports whether frame id is a target of its own.
func (t *Tab) outOfProcess(ctx context.Context, id cdp.FrameID) (bool, error) {
	c, stop := onTab(ctx, t.ctx)
	defer stop()
	infos, err := chromedp.Targets(c)
	if err != nil {
		return false, fmt.Errorf("list the iframes' processes: %w", err)
	}
	for _, in := range infos {
		if string(in.TargetID) == string(id) && in.Type == "iframe" {
			return true, nil
		}
	}
	return false, nil
}

// reachesThrough says why the pointer at pt does not reach the iframes
// d lies in ("" when each is what the pointer hits in its parent).
func (d *doc) reachesThrough(ctx context.Context, pt point) (string, error) {
	for c := d; c.parent != nil; c = c.parent {
		if why, err := c.parent.reaches(ctx, c.frameToken, pt); err != nil || why != "" {
			return why, err
		}
	}
	return "", nil
}

// viewport is the size of the tab's viewport in CSS pixels.
func (t *Tab) viewport(ctx context.Context) (w, h float64, err error) {
	v, err := docCall[struct {
		W float64 `json:"w"`
		H float64 `json:"h"`
	}](ctx, t.mainDoc(), "viewport")
	return v.W, v.H, err
}
