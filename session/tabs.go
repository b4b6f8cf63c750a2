package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// Tab is a tab the run drives.
type Tab struct {
	Name     string
	ctx      context.Context
	cancel   context.CancelFunc
	pointer  *Pointer
	keyboard *Keyboard
	// pace gives the page its turn between inputs (pace.go).
	pace    *pace
	helpers *helpers
	// worlds records clapper's worlds of the tab's session (its own
	// document's and its iframes'); frames are the iframe documents its
	// targets reached (docs.go).
	worlds *worldIndex
	frames frames
	// events is what the tab's listener has seen.
	events *tabEvents
	// hold is the tab's hold while it is held, nil otherwise; fenced says
	// why its state is unknown ("" when known). Both change under
	// run.holdMu (hold.go).
	hold   *holdState
	fenced string
	// epoch counts the holds and resumes of the tab: what was observed on
	// it in an earlier epoch is revalidated before use (revalidate.go).
	epoch int
	// frozen is set from the start of a hold until it ends (or for good
	// when it is fenced): its capture does not start its screencast anew
	// meanwhile (recorder.Options.RestartPaused), read from any goroutine.
	frozen atomic.Bool
}

// tabEvents is what a tab's CDP listener records: requests in flight,
// navigations of the main frame, whether the debugger has paused. The
// listener runs on the tab's read loop and only records; steps read.
type tabEvents struct {
	mu        sync.Mutex
	mainFrame cdp.FrameID
	url       string // the main frame's address now
	net       netActivity
	navs      int64 // main-frame navigations, new documents and within one
	paused    bool  // the debugger has paused the page (a hold reached it)
	closed    bool  // the target was closed or detached
	crashed   bool  // the renderer crashed
	worlds    *worldIndex
	// dragData is the data of a drag Chromium intercepted, until the
	// drag takes it (drag.go).
	dragData *input.DragData
}

// address is the main frame's address now.
func (e *tabEvents) address() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.url
}

// listen is the tab's CDP listener. It is called on the tab's read loop,
// must not block, and sends no command.
func (e *tabEvents) listen(ev any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		e.net.start(string(ev.RequestID), time.Now())
	case *network.EventLoadingFinished:
		e.net.finish(string(ev.RequestID), time.Now())
	case *network.EventLoadingFailed:
		e.net.finish(string(ev.RequestID), time.Now())
	case *page.EventFrameNavigated:
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			e.mainFrame = ev.Frame.ID
			e.url = ev.Frame.URL + ev.Frame.URLFragment
			e.navs++
			e.paused = false // a pause belonged to the old document
		}
		if ev.Frame != nil {
			// A new document: the world went with the old one.
			e.worlds.navigated(ev.Frame.ID, ev.Frame.ParentID == "")
		}
	case *page.EventFrameDetached:
		e.worlds.remove(ev.FrameID)
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == e.mainFrame {
			e.url = ev.URL
			e.navs++
		}
	case *runtime.EventExecutionContextCreated:
		e.worlds.contextCreated(ev.Context)
	case *runtime.EventExecutionContextDestroyed:
		e.worlds.contextDestroyed(ev.ExecutionContextUniqueID)
	case *runtime.EventExecutionContextsCleared:
		e.worlds.contextsCleared()
	case *input.EventDragIntercepted:
		e.dragData = ev.Data
	case *debugger.EventPaused:
		e.paused = true
	case *debugger.EventResumed:
		e.paused = false
	case *inspector.EventTargetCrashed:
		e.crashed = true
	case *inspector.EventDetached:
		e.closed = true
	}
}

// closed says whether the tab's page closed: the browser said so, or
// detached its target.
func (t *Tab) closed() bool {
	return t.events.isClosed() || (t.ctx != nil && pageGone(t.ctx))
}

// gone says whether the tab's page closed (closed) or its renderer
// crashed.
func (t *Tab) gone() (closed, crashed bool) {
	_, crashed = t.events.gone()
	return t.closed(), crashed
}

// isClosed says whether the target was closed or detached.
func (e *tabEvents) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// gone says whether the tab's target was closed or its renderer crashed.
func (e *tabEvents) gone() (closed, crashed bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed, e.crashed
}

func (e *tabEvents) navigations() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.navs
}

func (e *tabEvents) isPaused() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.paused
}

func (e *tabEvents) network() netQuiet {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.net.quiet()
}

// openTab opens a tab at the script's viewport, bounded by ctx.
func (r *run) openTab(ctx context.Context, name string) (*Tab, error) {
	tctx, cancel, err := r.newTab(ctx, name)
	if err != nil {
		return nil, r.gone(err)
	}
	return r.setUpTab(ctx, name, tctx, cancel)
}

// setUpTab makes the tab of tctx (just opened or attached; cancel lets it
// go) one of the run's, named name: its listeners, the script's viewport,
// its pointer and keyboard.
func (r *run) setUpTab(ctx context.Context, name string, tctx context.Context, cancel context.CancelFunc) (*Tab, error) {
	w := newWorldIndex()
	h := w.add("")
	ev := &tabEvents{worlds: w, net: newNetActivity()}
	err := chromedp.Listen(tctx, ev.listen)
	if err == nil {
		err = chromedp.Listen(tctx, r.pages.listener(name))
	}
	if err == nil {
		err = chromedp.Listen(tctx, r.dialogListener(name, tctx))
	}
	if err != nil {
		cancel()
		return nil, r.gone(fmt.Errorf("open tab %q: %w", name, err))
	}
	c, stop := onTab(ctx, tctx)
	defer stop()
	tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		cancel()
		return nil, r.gone(fmt.Errorf("open tab %q: %w", name, err))
	}
	ev.mu.Lock()
	ev.mainFrame = tree.FrameTree.Frame.ID
	if ev.url == "" { // a page that opened before the listener (a popup)
		ev.url = tree.FrameTree.Frame.URL + tree.FrameTree.Frame.URLFragment
	}
	ev.mu.Unlock()
	b := r.s.Browser
	if err := SetViewport(c, b.Width, b.Height, b.Scale); err != nil {
		cancel()
		return nil, r.gone(fmt.Errorf("set viewport: %w", err))
	}
	t := &Tab{Name: name, ctx: tctx, cancel: cancel, helpers: h, worlds: w, events: ev}
	r.popups.add(tctx, name)
	t.pace = newPace(func(ctx context.Context, d *doc, helper string) {
		if d == nil {
			d = t.mainDoc()
		}
		_, _ = docCall[bool](ctx, d, helper)
	}, r.s.Defaults.Beat)
	t.keyboard = &Keyboard{j: r.journal, tab: name, pace: t.pace, mac: r.browser.mac}
	t.pointer = &Pointer{j: r.journal, tab: name, speed: r.s.Defaults.PointerSpeed, x: float64(b.Width) / 2, y: float64(b.Height) / 2,
		keys: t.keyboard, pace: t.pace, navs: t.events.navigations}
	r.tabs[name] = t
	return t, nil
}

// onTab returns a context for commands to the tab of tabCtx that also ends
// when ctx does (a step's deadline, the run's cancellation), with ctx's
// cause. Steps use it to act on a tab other than the one they run in.
func onTab(ctx, tabCtx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancelCause(tabCtx)
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	return c, func() { stop(); cancel(nil) }
}

// filmTarget is the tab the video shows: the one a film step chose, or
// else the tab the steps act on.
func (r *run) filmTarget() *Tab {
	if r.filmPinned != nil {
		return r.filmPinned
	}
	return r.current
}

// filmStep chooses the tab the video shows from now on, whichever tab the
// steps act on. The change is a boundary in the take (it names the tab)
// and a cut in the video.
func (r *run) filmStep(ctx context.Context, a scripts.Film, rec *timeline.Step) error {
	rec.Target = a.Tab
	t, ok := r.tabs[a.Tab]
	if !ok {
		return undispatched(fmt.Errorf("no tab %q is open", a.Tab))
	}
	r.filmPinned = t
	return undispatched(r.film(t, r.urlOf(ctx, t)))
}

// film points the capture at tab (filmTarget). Switching stops the capture
// of the previous tab (its final state is its last frame) and starts one
// of tab in the same take, numbering on: its first boundary names the
// tab, so the compositor cuts there.
func (r *run) film(tab *Tab, url string) error {
	if r.filmed == tab {
		return nil
	}
	co := r.o.Capture
	b := r.s.Browser
	co.Dir, co.Log, co.Clock, co.Tab, co.InitialURL = r.o.TakeDir, r.log, r.clock, tab.Name, url
	co.Mask = r.s.Mask // addresses are masked where the boundaries are recorded
	co.Journal = r.jr
	// Held or fenced, or behind another page: no screenshot (one would
	// wait for the resume, or for a page that paints nothing).
	co.Held = func() bool { return r.refusal(tab, false) != nil || r.behind(tab) }
	co.RestartPaused = tab.frozen.Load
	// The frames are at most the viewport's device pixels, or less when
	// the caller bounds them (a run about input, not footage).
	co.MaxWidth = bound(co.MaxWidth, int(float64(b.Width)*b.Scale))
	co.MaxHeight = bound(co.MaxHeight, int(float64(b.Height)*b.Scale))
	if err := r.endFilm(); err != nil {
		return err
	}
	if n := len(r.filmedResults); n > 0 {
		// Numbering on from the last capture kept.
		co.FirstSeq, co.FirstDocument = r.filmedResults[n-1].NextSeq, r.filmedResults[n-1].NextDocument
	}
	if r.behind(tab) {
		// A page behind another paints nothing, and its film would start
		// without a picture: it comes to the front for its first one, then
		// the tab the steps act on goes back in front.
		back := r.inFront
		if back == nil {
			back = r.current
		}
		if err := r.toFront(context.Background(), tab); err != nil {
			r.logf("%v", err)
		}
		defer func() {
			if err := r.toFront(context.Background(), back); err != nil {
				r.logf("%v", err)
			}
		}()
	}
	c, err := r.startCapture(tab.ctx, co)
	if err != nil {
		var se *recorder.StartError
		if errors.As(err, &se) {
			r.keepFilmed(se.Result) // what it wrote before it failed
		}
		return r.gone(err)
	}
	r.capture, r.filmed = c, tab
	return nil
}

// behind says whether tab is filmed from behind another page of its
// window (a film pinned to the opener of the page the steps act in): it
// paints nothing, so its last frame stands. Asked only once a step named
// a page a tab opened (before, every tab is in front of its window).
func (r *run) behind(tab *Tab) bool {
	if !r.adopted || r.inFront == tab || tab.closed() || r.refusal(tab, false) != nil {
		return false // a held page is not asked: it answers after its resume
	}
	ctx, cancel := context.WithTimeout(tab.ctx, 2*time.Second)
	defer cancel()
	d, err := callHelper[docState](ctx, tab.helpers, "doc")
	return err == nil && d.Hidden
}

// endFilm stops the film under way, if any: the next film starts one,
// whichever tab (a start that fails leaves none). A capture that ended
// early says so.
func (r *run) endFilm() error {
	if r.capture == nil {
		return nil
	}
	was := r.filmed
	res := r.stopCapture()
	r.capture, r.filmed = nil, nil
	if res.Err != nil {
		return fmt.Errorf("capture of tab %q ended early: %w", was.Name, res.Err)
	}
	return nil
}

// filmNewTab films after a tab step opened tab t or named it (a page a
// tab opened), once its page loaded: the tab the next step pins the film
// to, else the tab to film (t, unless the film is pinned). A page that
// did not load is filmed all the same, for the evidence, and its address
// read.
func (r *run) filmNewTab(ctx context.Context, t *Tab, loaded bool, step int) error {
	target := r.filmTarget()
	if loaded {
		target = r.filmAfterTabStep(step)
	}
	uctx, done := afterwards(ctx)
	url := r.urlOf(uctx, target)
	done()
	return r.frontAndFilm(ctx, t, target, url)
}

// stopCapture stops the capture of the filmed tab and keeps its result.
// A tab whose page closed itself (a sign-in window that answered its
// opener) ends its film with its last frame: that is no early end.
func (r *run) stopCapture() recorder.Result {
	res := r.capture.Stop(context.Background())
	if res.Err != nil && r.filmed != nil && r.pageClosed(r.filmed) {
		r.logf("tab %s: its page was closed; its film ends with its last frame", r.filmed.Name)
		res.Err = nil
	}
	r.keepFilmed(res)
	return res
}

// pageClosed says whether tab t's page was closed, while the browser
// goes on (bounded).
func (r *run) pageClosed(t *Tab) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if t.closed() {
		// A browser that closes detaches every tab before its
		// connection drops: a tab detached is closed only if the
		// browser still answers.
		return r.browser.Answers(ctx)
	}
	return r.browser.pageClosed(ctx, targetOf(t.ctx))
}

// keepFilmed keeps the result of a capture that ended (stopped, or failed
// to start after it began its part of the take): the next capture numbers
// its frames and documents on from the last one kept, one numbering per
// take whatever failed between two captures.
func (r *run) keepFilmed(res recorder.Result) {
	r.filmedResults = append(r.filmedResults, res)
}

// tabStep opens, switches to or closes a named tab.
func (r *run) tabStep(ctx context.Context, a scripts.Tab, rec *timeline.Step) error {
	rec.Target = a.Name
	switch a.Op {
	case scripts.TabOpen:
		if _, ok := r.tabs[a.Name]; ok {
			return undispatched(fmt.Errorf("tab %q is already open", a.Name))
		}
		t, err := r.openTab(ctx, a.Name)
		if err != nil {
			return undispatched(err)
		}
		// The new tab is current, and filmed once it has loaded (no blank
		// lead-in), whether or not the load succeeded.
		r.current = t
		var nerr error
		if a.URL != "" {
			c, stop := onTab(ctx, t.ctx)
			nerr = navErr(c, chromedp.Do(c, chromedp.Navigate(a.URL)))
			stop()
		}
		if err := r.filmNewTab(ctx, t, nerr == nil, rec.Index); err != nil && nerr == nil {
			return undispatched(err)
		}
		return nerr
	case scripts.TabPopup:
		if _, ok := r.tabs[a.Name]; ok {
			return undispatched(fmt.Errorf("tab %q is already open", a.Name))
		}
		return r.popupStep(ctx, a.Name, rec)
	case scripts.TabSwitch:
		t, ok := r.tabs[a.Name]
		if !ok {
			return undispatched(fmt.Errorf("no tab %q is open", a.Name))
		}
		r.current = t
		target := r.filmAfterTabStep(rec.Index)
		return undispatched(r.frontAndFilm(ctx, t, target, r.urlOf(ctx, target)))
	case scripts.TabClose:
		t, ok := r.tabs[a.Name]
		if !ok || a.Name == scripts.FirstTab {
			return undispatched(fmt.Errorf("tab %q cannot be closed", a.Name))
		}
		if r.refusal(t, false) != nil {
			return undispatched(fmt.Errorf("tab %q is held or fenced: it cannot be closed before its hold ends", a.Name))
		}
		if r.current == t {
			r.current = r.tabs[scripts.FirstTab]
		}
		if r.filmPinned == t {
			r.filmPinned = nil // the video follows the steps again
		}
		// Film the tab to film now before this one goes away.
		if err := r.frontAndFilm(ctx, r.current, r.filmTarget(), r.urlOf(ctx, r.filmTarget())); err != nil {
			return undispatched(err)
		}
		r.popups.forget(t.ctx)
		t.cancel()
		delete(r.tabs, a.Name)
	}
	return nil
}

// filmAfterTabStep is the tab to film after the tab step i opened or
// switched to a tab: the tab the steps act on, unless the film is pinned
// (filmTarget), or the next step pins it to a tab that is open and still
// the run's (its lease checked, as the film step will), which is filmed
// at once: the video does not cut to the new tab for a frame and back.
// A tab whose lease is gone is not filmed ahead: the film step then
// fails on it, and the video never showed it.
func (r *run) filmAfterTabStep(i int) *Tab {
	if name := filmNext(r.s.Steps, i); name != "" {
		if t, ok := r.tabs[name]; ok && r.leasedTab(name) == nil {
			return t
		}
	}
	return r.filmTarget()
}

// filmNext is the tab the step after i pins the film to (film: NAME), ""
// when that step is no film step. Pure.
func filmNext(steps []scripts.Step, i int) string {
	if i+1 < len(steps) {
		if f, ok := steps[i+1].Action.(scripts.Film); ok {
			return f.Tab
		}
	}
	return ""
}

// urlOf returns the address a tab shows, "" when it cannot be read before
// ctx ends. It asks the browser, not the page, so a held tab answers too.
func (r *run) urlOf(ctx context.Context, t *Tab) string {
	c, stop := onTab(ctx, t.ctx)
	defer stop()
	h, err := chromedp.Call(c, page.GetNavigationHistory, cdp.Empty{})
	if err != nil || h.CurrentIndex < 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return ""
	}
	return h.Entries[h.CurrentIndex].URL
}

// docState is clapper.doc's answer.
type docState struct {
	URL    string `json:"url"`
	Ready  string `json:"ready"`
	Hidden bool   `json:"hidden"`
}

// bound is n, or the caller's bound when one is set and smaller. Pure.
func bound(caller, n int) int {
	if caller > 0 && caller < n {
		return caller
	}
	return n
}
