package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/scripts"
)

// A person's tab can be claimed, released and claimed again, any number
// of times: each run makes clapper's world in the page anew.
func TestSharedClaimAgainAfterRelease(t *testing.T) {
	b, st := sharedBrowser(t)
	ctx := context.Background()
	id := personTab(t, b, "<title>person</title><p>hello</p>")
	for i := range 3 {
		s := loadScript(t, fmt.Sprintf(`name: claimer
steps:
  - expect: {text: hello}
  - eval: "document.title = 'claimed %d'"
`, i))
		res, err := Run(ctx, s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
			Leases: &LeaseOptions{Store: st, Label: "claimer", Claim: id}})
		if err == nil && res.Failed != nil {
			err = res.Failed
		}
		if err != nil {
			t.Fatalf("claim %d: %v", i+1, err)
		}
		if pg, open := pageByID(t, b, id); !open || pg.Title != fmt.Sprintf("claimed %d", i) {
			t.Fatalf("after claim %d: %+v, open %v", i+1, pg, open)
		}
	}
}

// personTab opens a tab as a person would (no origin record: clapper did
// not open it) showing html, and closes it with the test.
func personTab(t *testing.T, b *Browser, html string) string {
	t.Helper()
	ctx := context.Background()
	id, err := b.OpenPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.ClosePage(ctx, id) })
	tctx, detach, err := b.AttachTab(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer detach()
	if err := chromedp.Do(tctx, chromedp.Navigate("data:text/html,"+html)); err != nil {
		t.Fatal(err)
	}
	return id
}

// A person's tab that is not in front (a tab was opened after it) is
// claimed and driven all the same: the claim brings it to the front and
// emulates the focus (before, its first step failed: "no answer from the
// page"), and the release puts the tab that was in front back in front.
func TestSharedClaimBackgroundTab(t *testing.T) {
	b, st := sharedBrowser(t)
	ctx := context.Background()
	id := personTab(t, b, "<title>behind</title><button onclick=\"document.title='clicked'\">Go</button>")
	front := sameWindowTab(t, b, "<title>front</title>")
	if vis := visibility(t, b, id); vis != "hidden" {
		t.Fatalf("the tab behind is %s: the test needs it hidden", vis)
	}
	s := loadScript(t, `name: claimer
steps:
  - click: {role: button, name: Go}
  - expect: {title: clicked}
`)
	res, err := Run(ctx, s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "claimer", Claim: id}})
	if err == nil && res.Failed != nil {
		err = res.Failed
	}
	if err != nil {
		t.Fatalf("claim of a tab behind another: %v", err)
	}
	// Given back, the tab the person had in front is in front again.
	if vis := visibility(t, b, front); vis != "visible" {
		t.Errorf("after the run, the tab that was in front is %s", vis)
	}
	if vis := visibility(t, b, id); vis != "hidden" {
		t.Errorf("after the run, the claimed tab is %s: want it behind again", vis)
	}
}

// sameWindowTab opens a tab in the window of the browser's last one, in
// front of the tabs there, showing html.
func sameWindowTab(t *testing.T, b *Browser, html string) string {
	t.Helper()
	ctx := context.Background()
	no := false
	var id target.ID
	err := b.onBrowser(ctx, func(c context.Context) error {
		res, err := chromedp.CallBrowser(c, target.CreateTarget, target.CreateTargetParams{URL: "data:text/html," + html, NewWindow: &no})
		id = res.TargetID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.ClosePage(ctx, string(id)) })
	return string(id)
}

// visibility is document.visibilityState in tab id.
func visibility(t *testing.T, b *Browser, id string) string {
	t.Helper()
	tctx, detach, err := b.AttachTab(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer detach()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[string]("document.visibilityState"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A held tab's address is shown to others (clapper leases, a refused
// claim) as its holder recorded it, with the holder's secrets masked, on
// every use: never the secret, in any listing.
func TestSharedLeaseURLMasked(t *testing.T) {
	b, st := sharedBrowser(t)
	ctx := context.Background()
	const secret = "Zq9xK7mW"
	p := filepath.Join(t.TempDir(), "shared.yaml")
	if err := os.WriteFile(p, []byte(`name: masked
secrets: [TOKEN]
steps:
  - goto: "data:text/html,<title>one</title>"
  - eval: "history.pushState(null, '', '#t=${TOKEN}')"
  - eval: "1"
  - eval: "2"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scripts.Load(p, scripts.LoadOptions{Env: map[string]string{"TOKEN": secret}})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	o := RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(), Leases: &LeaseOptions{Store: st, Label: "masked"}}
	o.beforeStep = func(i int, r *run) {
		rows, _ := st.List()
		for _, row := range rows {
			seen = append(seen, row.Lease.URL)
			if err := st.Peek(row.Lease.Tab, "data:text/html,#t="+secret, leases.Caller{Pid: 1, Token: "x"}); err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("a refused claim shows the secret: %v", err)
			}
		}
	}
	res, err := Run(ctx, s, o)
	if err == nil && res.Failed != nil {
		err = res.Failed
	}
	if err != nil {
		t.Fatal(err)
	}
	masked := false
	for _, u := range seen {
		if strings.Contains(u, secret) {
			t.Errorf("a lease records %q", u)
		}
		masked = masked || strings.Contains(u, scripts.Masked)
	}
	if !masked {
		t.Errorf("the lease never recorded the tab's address after the step that put the secret in it: %q", seen)
	}
}
