package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/scripts"
)

// LeaseOptions make a run against a browser others share lease the tabs
// it drives: a tab it opens (automatic lease, recorded in the origin
// ledger, closed when released) or the tab Claim names (explicit lease,
// left open when released).
type LeaseOptions struct {
	Store *leases.Store
	// Label names the holder in conflicts and listings ("" for the
	// script's name and the pid).
	Label string
	// TTL is a lease's life without use (0 for leases.DefaultTTL).
	TTL time.Duration
	// Claim, when set, overrides the script's browser.claim: a selector of
	// a tab that is already open, taken over instead of opening one.
	Claim string
	// Close, when set, overrides the script's browser.close: whether each
	// tab the run gives back is closed (nil: the tabs clapper opened).
	Close *bool
	// Isolate opens the run's tabs in a browser context of its own
	// (cookies, storage and cache apart from every other run's, as a
	// fresh profile has them), which goes with the run's connection. A
	// suite's scripts sharing its browser run so; a claim, which takes a
	// tab of the browser's own context, cannot.
	Isolate bool
}

// ErrNeedsHost is returned for a script attaching to the shared browser
// when no endpoint was given for it.
var ErrNeedsHost = errors.New(`browser.attach: shared needs a running host: start one with "clapper browser start --detach", then run with --browser shared`)

// heldTab is a tab a run holds a lease on.
type heldTab struct {
	id     string
	token  string
	opened bool // clapper opened it (the origin ledger says so)
	// front is the tab that was in front of a claimed tab in its window
	// when the run brought it forward ("": none), brought back when the
	// run gives the tab back.
	front string
}

// sharedTabs holds a run's leases. Its methods run on the run's goroutine
// (the release also from finish, on the same goroutine); its heartbeat
// reads held under mu.
type sharedTabs struct {
	o     LeaseOptions
	b     *Browser
	label string
	self  leases.Caller
	mu    sync.Mutex
	held  map[string]heldTab // by tab name
	beat  *heartbeat         // running while held is not empty
	logf  func(string, ...any)
	// isolated is the run's own browser context (LeaseOptions.Isolate),
	// made when its first tab is opened.
	isolated cdp.BrowserContextID
	// afterOpen, when set, runs between opening a tab and leasing it
	// (RunOptions.afterOpenPage).
	afterOpen func(id string)
	// mask hides the run's secrets in the addresses its leases record
	// (everyone who can list the leases reads them).
	mask func(string) string
	// closePage replaces the browser's close in tests (nil: the browser's).
	closePage func(id string) error
}

func newSharedTabs(o LeaseOptions, b *Browser, s *scripts.Script, logf func(string, ...any)) *sharedTabs {
	label := o.Label
	if label == "" {
		label = fmt.Sprintf("%s (pid %d)", scriptName(s), os.Getpid())
	}
	if o.Claim == "" {
		o.Claim = s.Browser.Claim
	}
	if o.Close == nil {
		o.Close = s.Browser.Close
	}
	return &sharedTabs{o: o, b: b, label: label, self: leases.Self(""), held: map[string]heldTab{}, logf: logf, mask: s.Mask}
}

func scriptName(s *scripts.Script) string {
	if s.File != "" {
		return filepath.Base(s.File)
	}
	return s.Name
}

func (t *sharedTabs) caller(name string) leases.Caller {
	c := t.self
	c.Token = t.heldTab(name).token
	return c
}

func (t *sharedTabs) heldTab(name string) heldTab {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.held[name]
}

// hold records a lease the run now holds, and keeps it fresh.
func (t *sharedTabs) hold(name string, h heldTab) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held[name] = h
	t.startBeat()
}

// unhold forgets a lease, stopping the heartbeat after the last one.
func (t *sharedTabs) unhold(name string) (heldTab, bool) {
	t.mu.Lock()
	h, ok := t.held[name]
	delete(t.held, name)
	hb := t.stopBeat()
	t.mu.Unlock()
	if hb != nil {
		<-hb.done
	}
	return h, ok
}

func (t *sharedTabs) lease(id, url string, tier leases.Tier) leases.Lease {
	return leases.Lease{Tab: id, Browser: t.b.ID(), URL: t.mask(url), Label: t.label, Tier: tier, TTLMs: t.o.TTL.Milliseconds()}
}

// newTab is where a run gets its tabs: from the browser when it owns it,
// else through a lease: the first tab is the one browser.claim names when
// set, every other one a tab opened, recorded and leased for the run. The
// returned cancel detaches and gives the lease back.
func (r *run) newTab(ctx context.Context, name string) (context.Context, context.CancelFunc, error) {
	if r.shared == nil {
		return r.openTarget(ctx)
	}
	if name == scripts.FirstTab && r.shared.o.Claim != "" {
		if r.shared.o.Isolate {
			return nil, nil, errors.New("browser.claim takes a tab of the browser's own context: it cannot run isolated")
		}
		return r.shared.claim(ctx, name, r.shared.o.Claim)
	}
	return r.shared.open(ctx, name)
}

// open opens a tab, records that clapper opened it, leases it and
// attaches to it. The tab is born at settingUp, an address the choke
// point never hands out while the tab has no lease, so no claim takes it
// before it is leased. On a failure the tab goes again, unless the failure
// is that another holder has it: then it is theirs, and left open (its
// origin record stays, for reaping).
func (t *sharedTabs) open(ctx context.Context, name string) (context.Context, context.CancelFunc, error) {
	if t.o.Isolate && t.isolated == "" {
		bc, err := t.b.newBrowserContext(ctx)
		if err != nil {
			return nil, nil, err
		}
		t.isolated = bc
	}
	id, err := t.b.openPage(ctx, settingUp, t.isolated)
	if err != nil {
		return nil, nil, err
	}
	if t.afterOpen != nil {
		t.afterOpen(id)
	}
	return t.own(ctx, name, id, "opened")
}

// adopt makes a page one of the run's tabs opened its own (tab: {popup:
// NAME}): recorded as clapper's, leased and attached as open does, and
// closed when the run gives it back. A page another holder leased
// meanwhile is theirs, and left open.
func (t *sharedTabs) adopt(ctx context.Context, name, id string) (context.Context, context.CancelFunc, error) {
	return t.own(ctx, name, id, "took the page its tab opened,")
}

// own records tab id as clapper's, leases it for the run and attaches to
// it (how says how the run came by it, for the log). On a failure the
// tab goes again, unless another holder has it.
func (t *sharedTabs) own(ctx context.Context, name, id, how string) (context.Context, context.CancelFunc, error) {
	st := t.o.Store
	undo := func() {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if t.b.ClosePage(c, id) == nil {
			st.Forget(id)
		}
	}
	if err := st.RecordOrigin(leases.Origin{Tab: id, Browser: t.b.ID(), Label: t.label, Pid: t.self.Pid, Created: time.Now().UTC()}); err != nil {
		undo()
		return nil, nil, err
	}
	l, _, err := st.Claim(t.lease(id, "about:blank", leases.Automatic), t.self)
	var ce *leases.ConflictError
	if errors.As(err, &ce) {
		return nil, nil, fmt.Errorf("the tab opened for %s was taken by another holder before it was leased, and is left to it: %w", name, err)
	}
	if err != nil {
		undo()
		return nil, nil, err
	}
	t.hold(name, heldTab{id: id, token: l.Token(), opened: true})
	t.logf("%s tab %s, leased as %q", how, id, t.label)
	return t.attach(ctx, name, id)
}

// claim takes over the open tab sel names, through the choke point: a
// selector that matches nothing is an error (never a new tab), a tab
// someone else holds is refused with nothing sent to it.
func (t *sharedTabs) claim(ctx context.Context, name, sel string) (context.Context, context.CancelFunc, error) {
	pg, err := ResolveTab(ctx, t.b, t.o.Store, sel, t.self)
	if err != nil {
		return nil, nil, err
	}
	l, was, err := t.o.Store.Claim(t.lease(pg.ID, pg.URL, leases.Explicit), t.self)
	if err != nil {
		return nil, nil, fmt.Errorf("claim %s: %w", sel, err)
	}
	if was != nil {
		t.logf("reclaimed tab %s from %s (pid %d, stale)", pg.ID, was.Label, was.Pid)
	}
	// A claimed tab is released and left open, even one another clapper
	// run opened: this run did not open it (its origin record stays).
	t.hold(name, heldTab{id: pg.ID, token: l.Token(), opened: false})
	t.logf("claimed tab %s (%s) as %q", pg.ID, pg.URL, t.label)
	tctx, cancel, err := t.attach(ctx, name, pg.ID)
	if err != nil {
		return nil, nil, err
	}
	// A person's tab may be behind another in a window, where it paints
	// no frames and runs no animation frames: it is brought to the front,
	// and told it has the focus while this run drives it (the emulation
	// ends with the run's session); the tab that was in front comes back
	// when the run gives it back (release).
	if front := t.frontOf(ctx, tctx, pg.ID); front != "" {
		t.mu.Lock()
		h := t.held[name]
		h.front = front
		t.held[name] = h
		t.mu.Unlock()
	}
	_, err = chromedp.Call(tctx, page.BringToFront, cdp.Empty{})
	if err == nil {
		_, err = chromedp.Call(tctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
	}
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("bring claimed tab %s to the front: %w", pg.ID, err)
	}
	return tctx, cancel, nil
}

// frontOf returns the tab in front of tab id in its window when id is
// behind it (hidden), else "". It reads only: each tab's window, and the
// visibility of the tabs of id's window.
func (t *sharedTabs) frontOf(ctx context.Context, tctx context.Context, id string) string {
	vis, err := chromedp.Run(tctx, chromedp.Evaluate[string]("document.visibilityState"))
	if err != nil || vis != "hidden" {
		return ""
	}
	win, err := t.b.windowOf(ctx, id)
	if err != nil {
		return ""
	}
	pages, err := t.b.Pages(ctx)
	if err != nil {
		return ""
	}
	for _, p := range pages {
		if p.ID == id {
			continue
		}
		if w, err := t.b.windowOf(ctx, p.ID); err != nil || w != win {
			continue
		}
		pctx, detach, err := t.b.AttachTab(ctx, p.ID)
		if err != nil {
			continue
		}
		v, err := chromedp.Run(pctx, chromedp.Evaluate[string]("document.visibilityState"))
		detach()
		if err == nil && v == "visible" {
			return p.ID
		}
	}
	return ""
}

func (t *sharedTabs) attach(ctx context.Context, name, id string) (context.Context, context.CancelFunc, error) {
	tctx, detach, err := t.b.AttachTab(ctx, id)
	if err != nil {
		t.release(name)
		return nil, nil, err
	}
	return tctx, func() { detach(); t.release(name) }, nil
}

// release gives a tab's lease back and closes the tab when the rule says
// so: only when the release happened, and then as browser.close says, or
// when this run opened the tab. The close is decided and made under the
// store's lock with the lease still in place (leases.ReleaseClosing), so no
// other run can claim the tab between the release and the close.
func (t *sharedTabs) release(name string) {
	h, ok := t.unhold(name)
	if !ok {
		return
	}
	c := t.self
	c.Token = h.token
	g, err := t.o.Store.ReleaseClosing(h.id, c,
		func(leases.Lease) bool { return leases.CloseOnRelease(true, h.opened, t.o.Close) },
		func() error { return t.closeTab(h.id) })
	if err != nil {
		t.logf("release tab %s: %v", h.id, err)
	}
	if !g.Released {
		t.logf("tab %s: lease was no longer ours; left as it is", h.id)
	}
	if g.CloseErr != nil {
		t.logf("%v", g.CloseErr)
	}
	if h.front != "" && g.Released {
		if err := t.b.activate(h.front); err != nil {
			t.logf("bring tab %s, in front before the claim, back to the front: %v", h.front, err)
		}
	}
}

// closeTab closes a tab of the shared browser, bounded. A tab that is
// gone already (a page that closed itself) counts as closed, so its
// record goes with its lease.
func (t *sharedTabs) closeTab(id string) error {
	if t.closePage != nil {
		return t.closePage(id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := t.b.ClosePage(ctx, id)
	if err != nil && t.b.pageClosed(ctx, target.ID(id)) {
		return nil
	}
	return err
}

// use is the lease check before every step on a tab: the run must still
// hold it (not reclaimed after expiry), and the use refreshes it and
// records url, the tab's address now, masked.
func (t *sharedTabs) use(name, url string) error {
	h := t.heldTab(name)
	if h.id == "" {
		return nil
	}
	c := t.caller(name)
	if url != "" {
		c.URL = t.mask(url)
	}
	_, err := t.o.Store.Check(h.id, c)
	return err
}

// ResolveTab is the one choke point that turns a tab selector into an open
// tab: it lists the browser's pages (less the tabs a run is still setting
// up), picks the one sel names (no match is
// an error, never a new tab) and checks its lease for c: a tab another
// holder has is a *leases.ConflictError, an unreadable lease a refusal too.
// Nothing is sent to the tab.
func ResolveTab(ctx context.Context, b *Browser, st *leases.Store, sel string, c leases.Caller) (leases.Page, error) {
	s, err := leases.ParseSelector(sel)
	if err != nil {
		return leases.Page{}, err
	}
	pages, err := b.Pages(ctx)
	if err != nil {
		return leases.Page{}, err
	}
	page, err := leases.Pick(unsettled(pages, st), s)
	if err != nil {
		return leases.Page{}, err
	}
	if err := st.Peek(page.ID, page.URL, c); err != nil {
		return leases.Page{}, err
	}
	return page, nil
}

// unsettled leaves out of pages the tabs a run has opened and not leased
// yet (still at settingUp, with no lease file): handing one out would let
// a claim take it from the run that is opening it.
func unsettled(pages []leases.Page, st *leases.Store) []leases.Page {
	var out []leases.Page
	for _, p := range pages {
		if p.URL == settingUp && !st.Leased(p.ID) {
			continue
		}
		out = append(out, p)
	}
	return out
}
