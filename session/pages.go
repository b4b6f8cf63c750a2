package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/leases"
)

// ID names the browser: the id in its DevTools endpoint, which a lease
// records so another browser's leases are never read as this one's.
func (b *Browser) ID() string { return path.Base(b.wsURL) }

// Endpoint is the browser's ws:// DevTools endpoint.
func (b *Browser) Endpoint() string { return b.wsURL }

// Pages lists the browser's page targets in the browser's own order: the
// one used last first (DevTools' /json/list, on the endpoint's loopback
// host), so "active" and index:N mean what a person sees.
func (b *Browser) Pages(ctx context.Context) ([]leases.Page, error) {
	u, err := url.Parse(b.wsURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+u.Host+"/json/list", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list tabs: %w", err)
	}
	defer resp.Body.Close()
	var list []struct {
		ID    string `json:"id"`
		Type  string `json:"type"`
		URL   string `json:"url"`
		Title string `json:"title"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("list tabs: %w", err)
	}
	var pages []leases.Page
	for _, t := range list {
		if t.Type == "page" {
			pages = append(pages, leases.Page{ID: t.ID, URL: t.URL, Title: t.Title})
		}
	}
	return pages, nil
}

// settingUp is the address a tab a run opens starts at: a blank page,
// marked so the choke point can tell a tab a run is still leasing.
const settingUp = "about:blank#clapper-opening"

// OpenPage opens a blank tab in a window of its own and returns its id:
// a tab sharing a window is hidden behind the active one, and a hidden
// page paints no frames (runs side by side each film their own).
func (b *Browser) OpenPage(ctx context.Context) (string, error) {
	return b.openPage(ctx, "about:blank", "")
}

// openPage opens a tab at url in a window of its own, in browser context
// bc ("": the browser's own).
func (b *Browser) openPage(ctx context.Context, url string, bc cdp.BrowserContextID) (string, error) {
	var id target.ID
	newWindow := true
	err := b.onBrowser(ctx, func(c context.Context) error {
		res, err := chromedp.CallBrowser(c, target.CreateTarget, target.CreateTargetParams{URL: url, NewWindow: &newWindow, BrowserContextID: bc})
		id = res.TargetID
		return err
	})
	if err != nil {
		return "", fmt.Errorf("open tab: %w", err)
	}
	return string(id), nil
}

// newBrowserContext makes a browser context that is disposed of, with
// its tabs, when this connection to the browser ends.
func (b *Browser) newBrowserContext(ctx context.Context) (cdp.BrowserContextID, error) {
	var id cdp.BrowserContextID
	yes := true
	err := b.onBrowser(ctx, func(c context.Context) error {
		res, err := chromedp.CallBrowser(c, target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: &yes})
		id = res.BrowserContextID
		return err
	})
	if err != nil {
		return "", fmt.Errorf("make a browser context for the run: %w", err)
	}
	return id, nil
}

// windowOf returns the id of the window tab id is in.
func (b *Browser) windowOf(ctx context.Context, id string) (browser.WindowID, error) {
	var win browser.WindowID
	err := b.onBrowser(ctx, func(c context.Context) error {
		res, err := chromedp.CallBrowser(c, browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: target.ID(id)})
		win = res.WindowID
		return err
	})
	return win, err
}

// activate brings tab id to the front of its window, bounded.
func (b *Browser) activate(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return b.onBrowser(ctx, func(c context.Context) error {
		_, err := chromedp.CallBrowser(c, target.ActivateTarget, target.ActivateTargetParams{TargetID: target.ID(id)})
		return err
	})
}

// ClosePage closes the tab id.
func (b *Browser) ClosePage(ctx context.Context, id string) error {
	err := b.onBrowser(ctx, func(c context.Context) error {
		_, err := chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(id)})
		return err
	})
	if err != nil {
		return fmt.Errorf("close tab %s: %w", id, err)
	}
	return nil
}

// onBrowser runs fn with a context for browser-level commands bounded by
// ctx and by browserCallLimit; it is a child of the browser's context, never
// the context that allocated it.
func (b *Browser) onBrowser(ctx context.Context, fn func(context.Context) error) error {
	c, cancel := context.WithTimeout(b.ctx, browserCallLimit)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	err := fn(c)
	if err != nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return err
}

// Answers says whether the browser answers a browser-level call
// (Browser.getVersion) before ctx ends: a browser whose process lives but
// that stopped answering, or whose connection dropped, does not.
func (b *Browser) Answers(ctx context.Context) bool {
	return b.onBrowser(ctx, func(c context.Context) error {
		_, err := chromedp.CallBrowser(c, browser.GetVersion, cdp.Empty{})
		return err
	}) == nil
}

// AttachTab drives the existing tab id: its context's cancellation
// detaches and leaves the tab open (closing is the lease's decision).
// Attaching is bounded like NewTab.
func (b *Browser) AttachTab(ctx context.Context, id string) (context.Context, context.CancelFunc, error) {
	return b.tabContext(ctx, "attach to tab "+id, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
}

// pageClosed says whether page id is no longer in the browser, which
// still answers: the page was closed (by itself, as a sign-in window
// that answered its opener does). Bounded; false when it cannot tell.
func (b *Browser) pageClosed(ctx context.Context, id target.ID) bool {
	err := b.onBrowser(ctx, func(c context.Context) error {
		_, err := chromedp.CallBrowser(c, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
		return err
	})
	return err != nil && ctx.Err() == nil && b.Answers(ctx)
}
