package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// A page that opens another (a link with target=_blank, window.open)
// makes Chromium put the new page in front of it, in its window. Filming
// live (Chromium's new headless mode), the page behind is then hidden: it
// paints no frames, so the video stops, and it runs no animation frames,
// so the next step's checks wait for nothing until their timeout.
// Playwright's pages go on working whatever opens; here the run's tab is
// brought back to the front, and the page it opened loads behind it (a
// script cannot address it yet). The headless shell of studio capture
// shows every tab at once, and the same call changes nothing there.

// popups keeps a run's tabs in front of the pages they open. The
// browser's listener calls seen; the run adds and forgets its tabs.
type popups struct {
	b    *Browser
	logf func(string, ...any)
	mask func(string) string

	mu     sync.Mutex
	tabs   map[target.ID]string // the run's tabs, by target, with their names
	opened []openedPage         // the pages they opened, in the order seen
	wg     sync.WaitGroup       // the activations under way
}

// openedPage is a page one of the run's tabs opened.
type openedPage struct {
	id, opener target.ID
	url        string
	// taken is set once a step named the page (take); settled is closed
	// once its opener was brought back to the front (or that failed).
	taken   bool
	settled chan struct{}
}

func newPopups(b *Browser, logf func(string, ...any), mask func(string) string) *popups {
	return &popups{b: b, logf: logf, mask: mask, tabs: map[target.ID]string{}}
}

// listen subscribes to the browser's targets: a page opened by one of the
// run's tabs is seen.
func (p *popups) listen(ctx context.Context) error {
	if err := chromedp.ListenBrowser(ctx, p.seen); err != nil {
		return err
	}
	return p.b.onBrowser(ctx, func(c context.Context) error {
		_, err := chromedp.CallBrowser(c, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true})
		return err
	})
}

// add and forget keep the set of the run's tabs, each by the chromedp
// context of its tab (a nil p, before the run watches: nothing to keep).
func (p *popups) add(tab context.Context, name string) {
	if id := targetOf(tab); p != nil && id != "" {
		p.mu.Lock()
		p.tabs[id] = name
		p.mu.Unlock()
	}
}

func (p *popups) forget(tab context.Context) {
	if id := targetOf(tab); p != nil && id != "" {
		p.mu.Lock()
		delete(p.tabs, id)
		p.mu.Unlock()
	}
}

// targetOf is the target of the tab of ctx ("" when it has none).
func targetOf(ctx context.Context) target.ID {
	if c := chromedp.FromContext(ctx); c != nil && c.Target != nil {
		return c.Target.TargetID
	}
	return ""
}

// seen is the browser's listener: it must not block, so the opener is
// brought to the front on a goroutine of its own (bounded: activate).
func (p *popups) seen(ev any) {
	e, ok := ev.(*target.EventTargetCreated)
	if !ok || e.TargetInfo == nil || e.TargetInfo.Type != "page" || e.TargetInfo.OpenerID == "" {
		return
	}
	settled := make(chan struct{})
	p.mu.Lock()
	name, ours := p.tabs[e.TargetInfo.OpenerID]
	if ours {
		p.opened = append(p.opened, openedPage{id: e.TargetInfo.TargetID, opener: e.TargetInfo.OpenerID, url: e.TargetInfo.URL, settled: settled})
		p.wg.Add(1)
	}
	p.mu.Unlock()
	if !ours {
		return
	}
	opener, what := e.TargetInfo.OpenerID, "another tab"
	if u := e.TargetInfo.URL; u != "" && u != "about:blank" {
		what += " (" + p.mask(u) + ")"
	}
	go func() { // ends with the call (activate is bounded)
		defer p.wg.Done()
		defer close(settled)
		if err := p.b.activate(string(opener)); err != nil {
			p.logf("tab %s: its page opened %s, and the tab could not be brought back to the front: %v", name, what, err)
			return
		}
		p.logf("tab %s: its page opened %s, which stays behind it until a step names it (tab: {popup: NAME}): the steps and the film stay on %s", name, what, name)
	}()
}

// take waits, polling on ctx's clock (a step's deadline, virtual in
// studio), for the first page opener opened that no step named yet, and
// names it: it returns the page once its opener is back in front (so the
// page can be put in front of it). The page may have opened before the
// step began (the click that opened it came first), as Playwright's
// popup event is awaited around the click.
func (p *popups) take(ctx context.Context, opener target.ID) (target.ID, error) {
	var pg openedPage
	err := poll(ctx, "wait for a page the tab opens", pollEvery, func(context.Context) (bool, string, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		for i := range p.opened {
			if o := &p.opened[i]; o.opener == opener && !o.taken {
				o.taken, pg = true, *o
				return true, "", nil
			}
		}
		return false, "the tab has opened no page", nil
	})
	if err != nil {
		return "", err
	}
	select {
	case <-pg.settled:
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
	return pg.id, nil
}

// wait waits for the activations under way.
func (p *popups) wait() { p.wg.Wait() }

// closeOpened closes the pages the run's tabs opened, in a browser the
// run does not own (an owned one goes with them): the run leaves a
// shared browser as it found it. Best effort: a page closed already is
// gone anyway.
func (p *popups) closeOpened(ctx context.Context) {
	p.mu.Lock()
	opened := p.opened
	p.mu.Unlock()
	for _, o := range opened {
		_ = p.b.ClosePage(ctx, string(o.id))
	}
}

// popupStep names the page the current tab opened (tab: {popup: NAME}):
// it waits for the page until the step's deadline, makes it one of the
// run's tabs, current and in front of its opener, and films it (unless
// the film is pinned elsewhere) once its document has loaded, as a tab
// opened at an address is.
func (r *run) popupStep(ctx context.Context, name string, rec *timeline.Step) error {
	opener := r.current
	id, err := r.popups.take(ctx, targetOf(opener.ctx))
	if err != nil {
		var wt *WaitTimeout
		if errors.As(err, &wt) {
			wt.What = fmt.Sprintf("wait for tab %s to open a page (a link with target=_blank, window.open) to name %s", opener.Name, name)
		}
		return undispatched(err)
	}
	tctx, cancel, err := r.attachPopup(ctx, name, id)
	if err != nil {
		return undispatched(r.gone(fmt.Errorf("take the page tab %s opened: %w", opener.Name, err)))
	}
	t, err := r.setUpTab(ctx, name, tctx, cancel)
	if err != nil {
		return undispatched(err)
	}
	r.adopted = true
	r.current = t
	c, stop := onTab(ctx, t.ctx) // the step runs in the opener
	lerr := poll(c, "wait for the page of tab "+name+" to load", pollEvery, func(ctx context.Context) (bool, string, error) {
		d, err := callHelper[docState](ctx, t.helpers, "doc")
		if err != nil {
			return false, "", err
		}
		return d.Ready == "complete", "the document is " + d.Ready, nil
	})
	stop()
	target := r.filmTarget()
	if lerr == nil {
		target = r.filmAfterTabStep(rec.Index)
	}
	uctx, done := afterwards(ctx) // the address is read even when the load timed out
	url := r.urlOf(uctx, target)
	done()
	if err := r.frontAndFilm(ctx, t, target, url); err != nil && lerr == nil {
		return undispatched(err)
	}
	if lerr != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: lerr}
	}
	return nil
}

// attachPopup attaches to page id, which one of the run's tabs opened:
// through a lease in a shared browser, directly otherwise; in studio the
// page is driven by the virtual clock as the run's other tabs are. The
// returned cancel closes the page.
func (r *run) attachPopup(ctx context.Context, name string, id target.ID) (context.Context, context.CancelFunc, error) {
	var tctx context.Context
	var cancel context.CancelFunc
	var err error
	if r.shared != nil {
		tctx, cancel, err = r.shared.adopt(ctx, name, string(id))
	} else {
		tctx, cancel, err = r.browser.attachOpened(ctx, id)
	}
	if err != nil || r.virt == nil {
		return tctx, cancel, err
	}
	undrive, err := r.virt.Drive(tctx)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return withVirtual(tctx, r.virt), func() { undrive(); cancel() }, nil
}

// frontAndFilm makes t the tab in front of its window and target the
// tab filmed, in the order that keeps every picture taken of a page in
// front: the film of a tab about to go behind another stops first (a
// page behind paints nothing, and a screenshot of it waits in vain).
func (r *run) frontAndFilm(ctx context.Context, t, target *Tab, url string) error {
	if r.adopted && r.capture != nil && r.filmed != target && r.inFront != t {
		res := r.stopCapture()
		r.capture = nil
		if res.Err != nil {
			return fmt.Errorf("capture of tab %q ended early: %w", r.filmed.Name, res.Err)
		}
	}
	if err := r.toFront(ctx, t); err != nil {
		return err
	}
	return r.film(target, url)
}

// toFront puts tab t in front of its window, once the run has named a
// page a tab opened: that page shares its opener's window, where only
// the tab in front paints frames and runs animation frames (filming
// live). Tabs the run opened have windows of their own, and need no call
// until then. The tab steps call it, and a step run in another tab than
// the current one, for that step.
func (r *run) toFront(ctx context.Context, t *Tab) error {
	if !r.adopted || t == nil || r.inFront == t {
		return nil
	}
	if err := r.browser.activate(string(targetOf(t.ctx))); err != nil {
		return fmt.Errorf("bring tab %s to the front: %w", t.Name, err)
	}
	r.inFront = t
	return nil
}
