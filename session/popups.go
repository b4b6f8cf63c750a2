package session

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
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
	opened []target.ID          // the pages they opened
	wg     sync.WaitGroup       // the activations under way
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
	p.mu.Lock()
	name, ours := p.tabs[e.TargetInfo.OpenerID]
	if ours {
		p.opened = append(p.opened, e.TargetInfo.TargetID)
	}
	p.mu.Unlock()
	if !ours {
		return
	}
	opener, what := e.TargetInfo.OpenerID, "another tab"
	if u := e.TargetInfo.URL; u != "" && u != "about:blank" {
		what += " (" + p.mask(u) + ")"
	}
	p.wg.Add(1)
	go func() { // ends with the call (activate is bounded)
		defer p.wg.Done()
		if err := p.b.activate(string(opener)); err != nil {
			p.logf("tab %s: its page opened %s, and the tab could not be brought back to the front: %v", name, what, err)
			return
		}
		p.logf("tab %s: its page opened %s, which stays behind it: the steps and the film stay on %s", name, what, name)
	}()
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
	for _, id := range opened {
		_ = p.b.ClosePage(ctx, string(id))
	}
}
