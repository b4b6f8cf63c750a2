package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/timeline"
)

// A tab a run claimed is released and left open, even when another
// clapper run opened it (its origin record says so): the claiming run did
// not open it.
func TestSharedClaimLeavesAClapperOpenedTabOpen(t *testing.T) {
	b, st := sharedBrowser(t)
	ctx := context.Background()
	// An earlier run opened this tab, recorded it, and ended without a
	// lease on it (released, or its lease reclaimed and given back).
	id, err := b.OpenPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.ClosePage(ctx, id)
	if err := st.RecordOrigin(leases.Origin{Tab: id, Browser: b.ID(), Label: "earlier run", Pid: 1}); err != nil {
		t.Fatal(err)
	}
	tctx, detach, err := b.AttachTab(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tctx, chromedp.Navigate("data:text/html,<title>left</title>")); err != nil {
		t.Fatal(err)
	}
	detach()
	s := loadScript(t, `name: claimer
steps:
  - eval: "document.title = 'claimed'"
`)
	res, err := Run(ctx, s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "claimer", Claim: id}})
	if err != nil || res.Failed != nil {
		t.Fatalf("run: %v %v", err, res.Failed)
	}
	pg, open := pageByID(t, b, id)
	if !open || pg.Title != "claimed" {
		t.Errorf("claimed tab after the run: %+v, open %v; want it open, titled claimed", pg, open)
	}
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left %+v", rows)
	}
	if !st.Opened(id, b.ID()) {
		t.Error("the opener's origin record went")
	}
}

// A tab a run has opened and not leased yet is never handed out by the
// choke point (claim: active would name it: it is the newest), and when
// another holder got a lease on it all the same, the run leaves it open
// to them instead of closing it.
func TestSharedOpeningTabNotTakenNorClosed(t *testing.T) {
	b, st := sharedBrowser(t)
	ctx := context.Background()
	other := leases.Self("") // an explicit claim: not the run's, even in this process
	var opening string
	afterOpen := func(id string) {
		opening = id
		if p, err := ResolveTab(ctx, b, st, "active", other); err == nil && p.ID == id {
			t.Errorf("claim: active named tab %s while it was being opened", id)
		}
		if _, err := ResolveTab(ctx, b, st, id, other); err == nil {
			t.Errorf("the choke point handed out tab %s while it was being opened", id)
		}
		// Someone takes it anyway (a lease made by hand, say).
		if _, _, err := st.Claim(leases.Lease{Tab: id, Browser: b.ID(), Label: "someone", Tier: leases.Explicit}, other); err != nil {
			t.Errorf("claim: %v", err)
		}
	}
	s := loadScript(t, `name: opener
steps:
  - goto: "data:text/html,<title>opener</title>"
`)
	res, err := Run(ctx, s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "opener"}, afterOpenPage: afterOpen})
	if err == nil && res.Failed != nil {
		err = res.Failed.Err
	}
	var ce *leases.ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "someone") {
		t.Fatalf("run: %v; want the conflict naming the holder", err)
	}
	if opening == "" {
		t.Fatal("no tab was opened")
	}
	if _, open := pageByID(t, b, opening); !open {
		t.Error("the run closed a tab another holder has")
	}
	rows, _ := st.List()
	if len(rows) != 1 || rows[0].Lease.Label != "someone" {
		t.Errorf("leases %+v, want the other holder's", rows)
	}
	b.ClosePage(ctx, opening)
}

// The lease check covers every tab a step acts on, not only the step's
// own: with the lease on side lost (rewritten as another holder's) while
// main's is fine, hold: side and tab: {switch: side} are refused with
// nothing sent, and the run's end does not touch side.
func TestSharedLostLeaseOnANamedTab(t *testing.T) {
	for _, step := range []string{"hold: side", "tab: {switch: side}"} {
		t.Run(step, func(t *testing.T) {
			b, st := sharedBrowser(t)
			s := loadScript(t, `name: named
steps:
  - goto: "data:text/html,<title>main</title>"
  - tab: {open: side, url: "data:text/html,<title>side</title>"}
  - tab: {switch: main}
  - `+step+`
`)
			var side string
			res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
				Leases: &LeaseOptions{Store: st, Label: "named-run"},
				Progress: func(p Progress) {
					if p.Step != 4 || side != "" {
						return
					}
					side = stealLease(t, st, b, "side")
				}})
			if err != nil {
				t.Fatal(err)
			}
			f := res.Failed
			if f == nil || f.Index != 3 || f.Outcome != timeline.OutcomeUndispatched || !strings.Contains(f.Err.Error(), "thief") {
				t.Fatalf("failure %+v, want step 4 refused, undispatched, naming the new holder", f)
			}
			if len(res.Timeline.Holds) != 0 {
				t.Errorf("holds %+v: the other holder's tab was held", res.Timeline.Holds)
			}
			if _, open := pageByID(t, b, side); !open {
				t.Error("the run closed the tab it lost")
			}
			b.ClosePage(context.Background(), side)
		})
	}
}

// stealLease rewrites the lease of the run's tab titled title as another
// holder's (as if it expired and was reclaimed), and returns the tab.
func stealLease(t *testing.T, st *leases.Store, b *Browser, title string) string {
	t.Helper()
	rows, _ := st.List()
	for _, r := range rows {
		if pg, _ := pageByID(t, b, r.Lease.Tab); pg.Title == title {
			l := r.Lease
			l.Label, l.Nonce, l.Tier = "thief", "0000", leases.Explicit
			j, _ := json.Marshal(l)
			if err := os.WriteFile(filepath.Join(st.Dir(), "leases", l.Tab+".json"), j, 0o600); err != nil {
				t.Fatal(err)
			}
			return l.Tab
		}
	}
	t.Fatalf("no leased tab titled %q in %+v", title, rows)
	return ""
}
