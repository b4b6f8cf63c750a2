package session

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/clapper-dev/clapper/timeline"
)

// person plays the person a handoff asks for help: a second CDP client of
// the run's browser, attached to the tab handed off, doing act there.
// Headed Chromium is not needed for that: the run is headless with the
// test-only switch headlessHandoff, and the second client stands in for
// the window.
type person struct {
	t    *testing.T
	wg   sync.WaitGroup
	act  func(ctx context.Context) error
	asks []HandoffRequest
	r    *run
}

// handoff is the run's Handoff callback: it must not block, so the person
// acts on a goroutine of their own, waited for by done.
func (p *person) handoff(h HandoffRequest) {
	p.asks = append(p.asks, h)
	if p.act == nil {
		return
	}
	id := chromedp.FromContext(p.r.tabs[h.Tab].ctx).Target.TargetID
	ws := p.r.browser.wsURL
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		alloc, cancelAlloc := remote.NewAllocator(context.Background(), ws, remote.NoModifyURL)
		defer cancelAlloc()
		bctx, cancelB := chromedp.NewContext(alloc)
		defer cancelB()
		c, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		if _, err := chromedp.CallBrowser(c, browser.GetVersion, cdp.Empty{}); err != nil {
			p.t.Errorf("the person could not connect: %v", err)
			return
		}
		tctx, cancelT := chromedp.NewContext(bctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
		defer cancelT()
		ac, cancelA := context.WithTimeout(tctx, 20*time.Second)
		defer cancelA()
		if err := p.act(ac); err != nil {
			p.t.Errorf("the person could not act: %v", err)
		}
	}()
}

func (p *person) done() { p.wg.Wait() }

// A handoff waits for the person, goes on when the page shows what until
// says (an address, an element), and fails at its timeout when nobody
// comes; the interval is marked cut in the take.
func TestHandoff(t *testing.T) {
	t.Parallel() // its own browser and take; mostly waiting out its pauses
	cases := []struct {
		name, until string
		act         func(served string) func(ctx context.Context) error
		fails       string
		timeout     string // long where the person comes: it ends as they are done
	}{
		{"url", `{url: "*/second.html"}`, func(served string) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				_, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: served + "/second.html"})
				return err
			}
		}, "", "30s"},
		{"visible", `{visible: "#done"}`, func(string) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				_, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: `setTimeout(() => { document.getElementById('done').hidden = false; }, 300)`})
				return err
			}
		}, "", "30s"},
		{"nobody comes", `{visible: "#done"}`, nil, "did not show that the person was done", "3s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &person{t: t}
			o := RunOptions{headlessHandoff: true, Handoff: p.handoff, beforeStep: func(i int, r *run) {
				p.r = r
				if c.act != nil {
					p.act = c.act(r.tl.Served)
				}
			}}
			res, _ := runHolds(t, "browser: {headless: false}\n", `  - goto: ${serve.url}/hold.html
  - handoff: {until: `+c.until+`, timeout: `+c.timeout+`, message: "Sign in as the demo user"}
  - pause: 100ms
`, o)
			p.done()
			if len(p.asks) != 1 || p.asks[0].Message != "Sign in as the demo user" || p.asks[0].Tab != "main" || p.asks[0].Timeout.String() != c.timeout {
				t.Errorf("the person was asked %+v", p.asks)
			}
			st := res.Timeline.Steps[1]
			if !st.Traits.Cut || st.Kind != "handoff" || st.End <= st.Start {
				t.Errorf("handoff step record: %+v", st)
			}
			if c.fails == "" {
				mustPass(t, res)
				return
			}
			if res.Failed == nil || res.Failed.Index != 1 || res.Failed.Outcome != timeline.OutcomeUndispatched || !strings.Contains(res.Failed.Error(), c.fails) {
				t.Fatalf("failure %v, want the handoff to fail at its timeout", res.Failed)
			}
		})
	}
}
