package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// sharedBrowser returns the package's live browser, used as one someone
// else started, and a lease store of the test's own. The pages opened
// since the browser's launch (left by earlier tests) are closed before the
// test, and those the test leaves are closed after it. A parallel test
// would have its tabs closed by another's tidy, so it launches its own
// (ownSharedBrowser).
func sharedBrowser(t *testing.T) (*Browser, *leases.Store) {
	t.Helper()
	liveEndpoint(t)
	b := live.b
	tidy(t, b, liveStart)
	t.Cleanup(func() { tidy(t, b, liveStart) })
	return b, leaseStore(t)
}

// ownSharedBrowser launches a browser to share, for the test alone.
func ownSharedBrowser(t *testing.T) (*Browser, *leases.Store) {
	t.Helper()
	testenv.Need(t, "chromium")
	b, err := Launch(context.Background(), LaunchOptions{Headless: true, NoSandbox: testenv.NoSandbox(), Width: 640, Height: 480})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c := b.Close(); c.Profile != "removed" {
			t.Errorf("cleanup %+v", c)
		}
	})
	return b, leaseStore(t)
}

func leaseStore(t *testing.T) *leases.Store {
	t.Helper()
	st, err := leases.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// tidy closes the pages of b but those of start, and waits until they are
// gone.
func tidy(t *testing.T, b *Browser, start []string) {
	t.Helper()
	others := func() []string {
		pages, err := b.Pages(context.Background())
		if err != nil {
			t.Fatalf("the package's browser: %v", err)
		}
		var ids []string
		for _, p := range pages {
			if !slices.Contains(start, p.ID) {
				ids = append(ids, p.ID)
			}
		}
		return ids
	}
	for _, id := range others() {
		b.ClosePage(context.Background(), id)
	}
	waitFor(t, "the pages opened since the launch closed", func() bool { return len(others()) == 0 })
}

func loadScript(t *testing.T, src string) *scripts.Script {
	t.Helper()
	p := filepath.Join(t.TempDir(), "shared.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scripts.Load(p, scripts.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	smallByDefault(src, s)
	return s
}

func pageByID(t *testing.T, b *Browser, id string) (leases.Page, bool) {
	t.Helper()
	pages, err := b.Pages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if p.ID == id {
			return p, true
		}
	}
	return leases.Page{}, false
}

// A run against a shared browser leases every tab it opens (its side tab
// too), records them in the origin ledger, and closes them when it ends,
// leaving the browser and its other tabs alone.
func TestSharedRunLeasesItsTabs(t *testing.T) {
	b, st := sharedBrowser(t)
	before, err := b.Pages(context.Background())
	if err != nil || len(before) == 0 {
		t.Fatalf("the browser's pages before the run: %v, %v", before, err)
	}
	s := loadScript(t, `name: shared
steps:
  - goto: "data:text/html,<title>main</title>"
  - tab: {open: side, url: "data:text/html,<title>side</title>"}
  - tab: {switch: main}
  - eval: "document.title = 'done'"
`)
	seen := map[string]bool{}
	res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "tabs-run"},
		Progress: func(Progress) {
			rows, _ := st.List()
			for _, r := range rows {
				if r.Lease.Label == "tabs-run" && r.Alive && st.Opened(r.Lease.Tab, b.ID()) {
					seen[r.Lease.Tab] = true
				}
			}
		}})
	if err != nil || res.Failed != nil {
		t.Fatalf("run: %v %v", err, res.Failed)
	}
	if len(seen) != 2 {
		t.Errorf("leased and recorded tabs seen during the run: %v, want main and side", seen)
	}
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left: %+v", rows)
	}
	for id := range seen {
		if _, open := pageByID(t, b, id); open {
			// The close is answered before the tab leaves the listing.
			waitFor(t, "tab "+id+" closed", func() bool { _, open := pageByID(t, b, id); return !open })
		}
		if st.Opened(id, b.ID()) {
			t.Errorf("origin of closed tab %s kept", id)
		}
	}
	after, _ := b.Pages(context.Background())
	if len(after) != len(before) || after[0].ID != before[0].ID {
		t.Errorf("pages %+v after the run, want %+v", after, before)
	}
	if c := res.Timeline.Cleanup; c == nil || c.Process != "not-owned" {
		t.Errorf("cleanup %+v: the shared browser is not the run's", c)
	}
}

// A lease lost mid-run (reclaimed by another after it expired, made here
// by rewriting the file as the other holder's) refuses the next step with
// nothing sent, and the run's end, a release that did not happen, closes
// nothing.
func TestSharedLostLeaseRefusesAndKeepsTab(t *testing.T) {
	b, st := sharedBrowser(t)
	s := loadScript(t, `name: lost
steps:
  - goto: "data:text/html,<title>one</title>"
  - eval: "document.title = 'two'"
  - eval: "document.title = 'three'"
`)
	var tab string
	res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "lost-run"},
		Progress: func(p Progress) {
			if p.Step != 3 {
				return
			}
			rows, _ := st.List()
			l := rows[0].Lease
			tab = l.Tab
			l.Label, l.Nonce, l.Tier = "thief", "0000", leases.Explicit
			j, _ := json.Marshal(l)
			os.WriteFile(filepath.Join(st.Dir(), "leases", tab+".json"), j, 0o600)
		}})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failed
	if f == nil || f.Index != 2 || f.Outcome != timeline.OutcomeUndispatched || !strings.Contains(f.Err.Error(), "thief") {
		t.Fatalf("failure %+v, want step 3 refused, undispatched, naming the new holder", f)
	}
	pg, open := pageByID(t, b, tab)
	if !open || pg.Title != "two" {
		t.Errorf("tab after the run: %+v, open %v; want it open, titled two (step 3 never ran)", pg, open)
	}
	rows, _ := st.List()
	if len(rows) != 1 || rows[0].Lease.Label != "thief" {
		t.Errorf("leases %+v, want the new holder's untouched", rows)
	}
	b.ClosePage(context.Background(), tab)
}

// waitFor waits for cond, bounded by a limit that only a hang reaches.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("not within a minute: %s", what)
			return
		}
	}
}
