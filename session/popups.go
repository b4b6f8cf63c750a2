package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// A page that opens another (a link with target=_blank, window.open)
// makes Chromium put the new page in front of it, in its window. Filming
// live (Chromium's new headless mode), the page behind is then hidden: it
// paints no frames, so the video stops, and it runs no animation frames,
// so the next step's checks wait for nothing until their timeout.
// Playwright's pages go on working whatever opens; here the tab the run
// keeps in front is brought back, and the page opened loads behind it
// until a step names it (tab: {popup: NAME}). The headless shell of
// studio capture shows every tab at once, and the same call changes
// nothing there.

// popups keeps a run's tabs in front of the pages they open. The
// browser's listener calls seen; the run adds and forgets its tabs.
type popups struct {
	b    *Browser
	logf func(string, ...any)
	mask func(string) string

	mu     sync.Mutex
	tabs   map[target.ID]string // the run's tabs, by target, with their names
	opened []openedPage         // the pages they opened, in the order seen
	// front is, for each window, the tab the run keeps in front of it
	// once a step named a page (toFront): a page opened later in that
	// window gives the front back to it, not to its opener.
	front map[browser.WindowID]target.ID
	wg    sync.WaitGroup // the activations under way
	// act makes one activation at a time, each reading front as it
	// begins: the last one leaves the tab the run wants in front.
	act sync.Mutex
}

// openedPage is a page one of the run's tabs opened (or a page one of
// those opened: root is then the run's tab at the start of the chain).
type openedPage struct {
	id, opener, root target.ID
	// url is the page's address once its first navigation committed
	// ("" before: the page shows the empty document a new page starts
	// with); gone says it closed.
	url  string
	gone bool
	// failed says why clapper could not make a tab of it (the attach
	// closed it, or another holder leased it first), "" when it closed
	// by itself.
	failed string
	// name is the step's name for it once a step named it (take);
	// settled is closed once the front was given back after it opened
	// (or that failed).
	name    string
	settled chan struct{}
}

func newPopups(b *Browser, logf func(string, ...any), mask func(string) string) *popups {
	return &popups{b: b, logf: logf, mask: mask, tabs: map[target.ID]string{}, front: map[browser.WindowID]target.ID{}}
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
		for w, f := range p.front {
			if f == id {
				delete(p.front, w)
			}
		}
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

// seen is the browser's listener: it keeps the pages the run's tabs
// opened, their addresses and whether they closed. It must not block.
func (p *popups) seen(ev any) {
	switch e := ev.(type) {
	case *target.EventTargetCreated:
		if e.TargetInfo != nil && e.TargetInfo.Type == "page" && e.TargetInfo.OpenerID != "" {
			p.created(e.TargetInfo)
		}
	case *target.EventTargetInfoChanged:
		if e.TargetInfo != nil && e.TargetInfo.URL != "" {
			p.update(e.TargetInfo.TargetID, func(o *openedPage) { o.url = e.TargetInfo.URL })
		}
	case *target.EventTargetDestroyed:
		p.update(e.TargetID, func(o *openedPage) { o.gone = true })
	}
}

// update changes the page id, when it is one the run's tabs opened.
func (p *popups) update(id target.ID, change func(*openedPage)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.opened {
		if p.opened[i].id == id {
			change(&p.opened[i])
		}
	}
}

// rootOf is the run's tab at the start of the chain of pages that led to
// id (id itself when no page of the chain opened it), and whether a page
// of the chain opened it. The caller holds mu.
func (p *popups) rootOf(id target.ID) (target.ID, bool) {
	for _, o := range p.opened {
		if o.id == id {
			return o.root, true
		}
	}
	return id, false
}

// alive says whether id is one of the run's tabs and its page is open.
// The caller holds mu.
func (p *popups) alive(id target.ID) bool {
	if _, ok := p.tabs[id]; !ok {
		return false
	}
	for _, o := range p.opened {
		if o.id == id && o.gone {
			return false
		}
	}
	return true
}

// created keeps a page opened by one of the run's tabs, or by a page one
// of them opened, and gives the front of its window back on a goroutine
// of its own (bounded: the browser calls are): Chromium put the new page
// in front of its opener.
func (p *popups) created(info *target.Info) {
	p.mu.Lock()
	name, tab := p.tabs[info.OpenerID]
	root, chained := p.rootOf(info.OpenerID)
	if !tab && !chained {
		p.mu.Unlock()
		return
	}
	if !tab {
		name = p.tabs[root]
	}
	settled := make(chan struct{})
	p.opened = append(p.opened, openedPage{id: info.TargetID, opener: info.OpenerID, root: root, url: info.URL, settled: settled})
	p.wg.Add(1)
	p.mu.Unlock()
	what := "another page"
	if u := info.URL; u != "" && u != "about:blank" {
		what += " (" + p.mask(u) + ")"
	}
	go func() { // ends with the calls (each bounded)
		defer p.wg.Done()
		defer close(settled)
		p.act.Lock()
		defer p.act.Unlock()
		to := p.frontOf(info.TargetID, info.OpenerID, root)
		if to == "" {
			p.logf("tab %s: its page opened %s in a window of its own, beside it until a step names it (tab: {popup: NAME})", name, what)
			return
		}
		p.mu.Lock()
		front := p.tabs[to]
		p.mu.Unlock()
		if err := p.b.activate(string(to)); err != nil {
			p.logf("tab %s: its page opened %s, and tab %s could not be brought back to the front: %v", name, what, front, err)
			return
		}
		p.logf("tab %s: its page opened %s, which stays behind tab %s until a step names it (tab: {popup: NAME}): the steps and the film stay where they were", name, what, front)
	}()
}

// frontOf is the tab to put back in front of the window page opened in
// (opener opened it; root is the run's tab at the start of its chain):
// the tab the run keeps in front of that window, else the opener or root
// when one of them is in that window; "" when no tab of the run shares
// the page's window (a window of its own, as every page has in the
// headless shell, where every page paints). A page Chromium cannot yet
// place is taken to be in its opener's window (a new tab is); when
// neither can be placed, root is.
func (p *popups) frontOf(page, opener, root target.ID) target.ID {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w, err := p.b.windowOf(ctx, string(page))
	if err != nil {
		if w, err = p.b.windowOf(ctx, string(opener)); err != nil {
			return root
		}
	}
	p.mu.Lock()
	f := p.front[w]
	var near []target.ID // the run's tabs that may share the window
	for _, id := range []target.ID{f, opener, root} {
		if id != "" && p.alive(id) && !slices.Contains(near, id) {
			near = append(near, id)
		}
	}
	p.mu.Unlock()
	for _, id := range near {
		if id == f {
			return f
		}
		if iw, err := p.b.windowOf(ctx, string(id)); err == nil && iw == w {
			return id
		}
	}
	return ""
}

// toFront puts the run's tab id in front of its window and keeps it
// there: a page opened later in the window gives the front back to it.
func (p *popups) toFront(id target.ID) error {
	p.act.Lock()
	defer p.act.Unlock()
	if err := p.b.activate(string(id)); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if w, err := p.b.windowOf(ctx, string(id)); err == nil {
		p.mu.Lock()
		p.front[w] = id
		p.mu.Unlock()
	}
	return nil
}

// take waits, polling on ctx's clock (a step's deadline, virtual in
// studio), for the first page opener opened that no step named yet and
// that is still open, and names it: it returns the page once the front
// was given back after it opened (so the page can be put in front of
// its opener). The page may have opened before the step began (the
// click that opened it came first); the oldest page not named is taken.
func (p *popups) take(ctx context.Context, opener target.ID, name string) (target.ID, error) {
	var pg openedPage
	err := poll(ctx, "wait for a page the tab opens", pollEvery, func(context.Context) (bool, string, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		var named, closed, others []string
		for i := range p.opened {
			o := &p.opened[i]
			switch {
			case o.opener != opener:
				if n, ok := p.tabs[o.opener]; ok && o.name == "" && !o.gone && !slices.Contains(others, n) {
					others = append(others, n)
				}
			case o.name != "":
				named = append(named, o.name)
			case o.gone:
				closed = append(closed, closedWhy(p.mask(o.url), o.failed))
			default:
				o.name, pg = name, *o
				return true, "", nil
			}
		}
		return false, noPage(named, closed, others), nil
	})
	if err != nil {
		return "", err
	}
	select {
	case <-pg.settled:
	case <-ctx.Done():
		p.untake(pg.id)
		return "", &WaitTimeout{What: "wait for a page the tab opens", Seen: "the page opened, and its opener was not back in front yet", Cause: context.Cause(ctx)}
	}
	return pg.id, nil
}

// noPage says why no page the tab opened can be named, and what to do:
// none opened, each has a name, one closed (closed says how, closedWhy);
// others are the tabs that opened a page no step named. Pure.
func noPage(named, closed, others []string) string {
	var why string
	switch {
	case len(closed) > 0:
		why = closed[len(closed)-1]
	case len(named) > 0:
		why = "every page it opened has a name already (" + strings.Join(named, ", ") + "): switch to one with tab: NAME"
	default:
		why = "the tab has opened no page"
	}
	switch len(others) {
	case 0:
	case 1:
		why += fmt.Sprintf("; tab %s opened one: name it from there (tab: %s, then tab: {popup: NAME})", others[0], others[0])
	default:
		why += fmt.Sprintf("; tabs %s opened some: name one from there (tab: %s, then tab: {popup: NAME})", strings.Join(others, ", "), others[0])
	}
	return why
}

// closedWhy says how the page at url (masked, "" when it never had one)
// went: closed by itself before a step named it, or not made a tab
// (failed says why). Pure.
func closedWhy(url, failed string) string {
	what := "the page it opened"
	if url != "" {
		what += " (" + url + ")"
	}
	if failed != "" {
		return what + " could not be made a tab: " + failed
	}
	return what + " closed before a step named it (a page that closes itself is named in the step right after the one that opens it)"
}

// untake gives back the name of a page a step took but did not attach
// to, for a retry or a later step.
func (p *popups) untake(id target.ID) {
	p.update(id, func(o *openedPage) { o.name = "" })
}

// failed marks a page a step could not make a tab of (the attach closed
// it, or another holder leased it first), and says why when a step looks
// for a page again.
func (p *popups) failed(id target.ID, err error) {
	p.update(id, func(o *openedPage) { o.name, o.gone, o.failed = "", true, err.Error() })
}

// committed says whether the first navigation of page id committed, and
// at which address.
func (p *popups) committed(id target.ID) (url string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, o := range p.opened {
		if o.id == id {
			return o.url, o.url != ""
		}
	}
	return "", false
}

// wait waits for the activations under way.
func (p *popups) wait() { p.wg.Wait() }

// closeOpened closes the pages the run's tabs opened and no step named
// (a named page goes with its tab), in a browser the run does not own
// (an owned one goes with them), but for those another holder leases
// (othersLease): the run leaves a shared browser as it found it. Best
// effort: a page closed already is gone anyway.
func (p *popups) closeOpened(ctx context.Context, othersLease func(id string) bool) {
	p.mu.Lock()
	opened := slices.Clone(p.opened)
	p.mu.Unlock()
	for _, o := range opened {
		if o.name == "" && !o.gone && (othersLease == nil || !othersLease(string(o.id))) {
			_ = p.b.ClosePage(ctx, string(o.id))
		}
	}
}

// popupStep names the page the current tab opened (tab: {popup: NAME}):
// it waits for the page until the step's deadline, makes it one of the
// run's tabs, current and in front of its opener, and films it (unless
// the film is pinned elsewhere) once its document has loaded, as a tab
// opened at an address is.
func (r *run) popupStep(ctx context.Context, name string, rec *timeline.Step) error {
	opener := r.current
	id, err := r.popups.take(ctx, targetOf(opener.ctx), name)
	if err != nil {
		var wt *WaitTimeout
		if errors.As(err, &wt) {
			wt.What = fmt.Sprintf("wait for tab %s to open a page (a link with target=_blank, window.open) to name %s", opener.Name, name)
		}
		return undispatched(err)
	}
	tctx, cancel, err := r.attachPopup(ctx, name, id)
	if err != nil {
		r.popups.failed(id, err) // closed by the attach, or another holder's
		return undispatched(r.gone(fmt.Errorf("take the page tab %s opened: %w", opener.Name, err)))
	}
	t, err := r.setUpTab(ctx, name, tctx, cancel)
	if err != nil {
		r.popups.failed(id, err) // cancel closed it
		return undispatched(err)
	}
	r.adopted = true
	r.current = t
	c, stop := onTab(ctx, t.ctx) // the step runs in the opener
	lerr := poll(c, "wait for the page of tab "+name+" to load", pollEvery, func(ctx context.Context) (bool, string, error) {
		// A new page shows an empty document (about:blank, loaded) until
		// the address it was opened at answers: its first navigation
		// commits (as Playwright's popup event waits for), then loads.
		url, ok := r.popups.committed(id)
		if !ok {
			return false, "its address has not answered", nil
		}
		d, err := callHelper[docState](ctx, t.helpers, "doc")
		if err != nil {
			return false, "", err
		}
		if d.URL == "about:blank" && url != "about:blank" {
			return false, "its address has not answered", nil
		}
		return d.Ready == "complete", "the document is " + d.Ready, nil
	})
	stop()
	if err := r.filmNewTab(ctx, t, lerr == nil, rec.Index); err != nil && lerr == nil {
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
	if r.adopted && r.filmed != target && r.inFront != t {
		if err := r.endFilm(); err != nil {
			return err
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
	if !r.adopted || t == nil || r.inFront == t || t.closed() {
		return nil
	}
	if err := r.popups.toFront(targetOf(t.ctx)); err != nil {
		return fmt.Errorf("bring tab %s to the front: %w", t.Name, err)
	}
	r.inFront = t
	return nil
}
