package session

import (
	"context"
	"path/filepath"
	"testing"
)

// browser.close overrides, for each tab the run gives back, whether it is
// closed: false leaves a tab the run opened open (for a person to look
// at), true closes a tab it only claimed. Either way the lease is given
// back.
func TestSharedBrowserCloseOverride(t *testing.T) {
	b, st := sharedBrowser(t)
	ctx := context.Background()

	keep := loadScript(t, `name: keep
browser: {close: false}
steps:
  - goto: "data:text/html,<title>look at me</title>"
`)
	var opened string
	res, err := Run(ctx, keep, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "keep-run"},
		Progress: func(Progress) {
			if rows, _ := st.List(); len(rows) == 1 {
				opened = rows[0].Lease.Tab
			}
		}})
	if err != nil || res.Failed != nil || opened == "" {
		t.Fatalf("run: %v %v, tab %q", err, res.Failed, opened)
	}
	if pg, open := pageByID(t, b, opened); !open || pg.Title != "look at me" {
		t.Errorf("the opened tab after a run with close: false: %+v, open %v; want it left open", pg, open)
	}
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left: %+v", rows)
	}

	person, err := b.OpenPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := loadScript(t, `name: done
browser: {claim: "`+person+`", close: true}
steps:
  - eval: "document.title = 'seen'"
`)
	res, err = Run(ctx, done, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "done-run"}})
	if err != nil || res.Failed != nil {
		t.Fatalf("claiming run: %v %v", err, res.Failed)
	}
	waitFor(t, "the claimed tab closed (close: true)", func() bool { _, open := pageByID(t, b, person); return !open })
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left: %+v", rows)
	}
	if _, open := pageByID(t, b, opened); !open {
		t.Error("the tab left open by the first run was closed by the second")
	}
	b.ClosePage(ctx, opened)
}
