package session

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// gotoURL loads a URL and waits for it to load.
func (r *run) gotoURL(ctx context.Context, a scripts.Goto, rec *timeline.Step) error {
	rec.Target = r.s.Mask(a.URL)
	defer busy(ctx)()
	return navErr(ctx, chromedp.Do(ctx, chromedp.Navigate(a.URL)))
}

// reload reloads the page and waits for it to load.
func (r *run) reload(ctx context.Context) error {
	return navErr(ctx, chromedp.Do(ctx, chromedp.Reload()))
}

// history moves through the tab's history by delta and waits until the
// tab has navigated (an event it listens for from before the move), the
// entry is the current one and its document has loaded. A page restored
// from the back/forward cache fires no load event, so that is not waited
// for; its document is complete already.
func (r *run) history(ctx context.Context, tab *Tab, delta int, rec *timeline.Step) error {
	h, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return undispatched(err)
	}
	i := int(h.CurrentIndex) + delta
	if i < 0 || i >= len(h.Entries) {
		word := map[int]string{-1: "back", 1: "forward"}[delta]
		return undispatched(fmt.Errorf("cannot go %s: the history has no entry there", word))
	}
	e := h.Entries[i]
	rec.Target = r.s.Mask(e.URL)
	before := tab.events.navigations()
	if _, err := chromedp.Call(ctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: e.ID}); err != nil {
		return dispatchErr(err)
	}
	err = poll(ctx, "history navigation to "+r.s.Mask(e.URL), pollEvery, func(ctx context.Context) (bool, string, error) {
		if tab.events.navigations() == before {
			return false, "the tab has not navigated yet", nil
		}
		now, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return false, "", err
		}
		if now.CurrentIndex < 0 || int(now.CurrentIndex) >= len(now.Entries) {
			return false, "the history has no current entry", nil
		}
		if cur := now.Entries[now.CurrentIndex]; cur.ID != e.ID {
			return false, "the current entry is " + r.s.Mask(cur.URL), nil
		}
		d, err := callHelper[docState](ctx, tab.helpers, "doc")
		if err != nil {
			return false, "", err
		}
		return d.Ready == "complete", "the document is " + d.Ready, nil
	})
	if err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	return nil
}
