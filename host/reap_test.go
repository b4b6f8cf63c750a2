package host

import (
	"errors"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/leases"
)

// Reaping closes only abandoned tabs; a close that fails keeps the lease
// and the origin record (the next read tries again) and is not reported.
func TestReapKeepsWhatItCouldNotClose(t *testing.T) {
	st, err := leases.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st.Alive = func(pid int, _ uint64) bool { return pid == 1 }
	for _, c := range []struct {
		tab string
		pid int
	}{{"GONE", 2}, {"STUCK", 3}, {"LIVE", 1}} {
		if err := st.RecordOrigin(leases.Origin{Tab: c.tab, Browser: "B"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Claim(leases.Lease{Tab: c.tab, Browser: "B", Label: c.tab + "-run", Tier: leases.Automatic}, leases.Caller{Pid: c.pid, Start: 1}); err != nil {
			t.Fatal(err)
		}
	}
	rows, _ := st.List()
	open := map[string]bool{"GONE": true, "STUCK": true, "LIVE": true}
	opened := map[string]bool{"GONE": true, "STUCK": true, "LIVE": true}
	var asked []string
	got, failed := reap(st, rows, "B", open, map[string]string{"GONE": "https://a/s3cr3t"}, opened, func(id string) error {
		asked = append(asked, id)
		if id == "STUCK" {
			return errors.New("refused")
		}
		return nil
	})
	if len(got) != 1 || got[0].Tab != "GONE" || got[0].URL != "https://a/…" || got[0].Label != "GONE-run" || got[0].Reason != leases.DeadPid {
		t.Errorf("reaped %+v, want only GONE", got)
	}
	if len(asked) != 2 {
		t.Errorf("closes asked for %v, want the two dead runs' tabs", asked)
	}
	if len(failed) != 1 || failed[0].Tab != "STUCK" || !strings.Contains(failed[0].Error(), "refused") || !strings.Contains(failed[0].Error(), "lease kept") {
		t.Errorf("failures %v, want STUCK's, saying its lease is kept", failed)
	}
	left := map[string]bool{}
	rows, _ = st.List()
	for _, r := range rows {
		left[r.Lease.Tab] = true
	}
	if left["GONE"] || !left["STUCK"] || !left["LIVE"] {
		t.Errorf("leases left %v, want STUCK and LIVE", left)
	}
	if st.Opened("GONE", "B") || !st.Opened("STUCK", "B") {
		t.Error("origin records: the closed tab's should go, the stuck one's stay")
	}
	if open["GONE"] || !open["STUCK"] {
		t.Error("the open set should lose only the closed tab")
	}
}

// Reaping decides again at the close: a dead run's lease reclaimed by
// another run after the listing keeps its tab open, and its lease.
func TestReapSkipsWhatWasReclaimedSinceTheListing(t *testing.T) {
	st, err := leases.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st.Alive = func(pid int, _ uint64) bool { return pid != 2 }
	_ = st.RecordOrigin(leases.Origin{Tab: "T", Browser: "B"})
	if _, _, err := st.Claim(leases.Lease{Tab: "T", Browser: "B", Label: "killed", Tier: leases.Automatic}, leases.Caller{Pid: 2, Start: 1}); err != nil {
		t.Fatal(err)
	}
	rows, _ := st.List()
	if _, was, err := st.Claim(leases.Lease{Tab: "T", Browser: "B", Label: "next", Tier: leases.Explicit}, leases.Caller{Pid: 3, Start: 1}); err != nil || was == nil {
		t.Fatalf("reclaim: %v, %v", was, err)
	}
	got, failed := reap(st, rows, "B", map[string]bool{"T": true}, nil, map[string]bool{"T": true}, func(id string) error {
		t.Errorf("closed tab %s, which another run has just claimed", id)
		return nil
	})
	if len(got) != 0 || len(failed) != 0 {
		t.Errorf("reaped %+v, failed %v", got, failed)
	}
	if rows, _ := st.List(); len(rows) != 1 || rows[0].Lease.Label != "next" {
		t.Errorf("leases %+v, want the new holder's", rows)
	}
}

// A held tab is listed at the address its holder recorded (masked by the
// holder), not at the one the browser reports now; a lease that recorded
// none shows the tab's origin only.
func TestListedURLIsTheHolders(t *testing.T) {
	open := map[string]bool{"A": true, "B": true}
	urls := map[string]string{"A": "https://a.example/?t=s3cr3t", "B": "https://b.example/reset/s3cr3t"}
	a := rowOf(leases.Row{Lease: leases.Lease{Tab: "A", URL: "https://a.example/?t=•••"}}, true, open, urls, nil)
	b := rowOf(leases.Row{Lease: leases.Lease{Tab: "B"}}, true, open, urls, nil)
	if a.URL != "https://a.example/?t=•••" || b.URL != "https://b.example/…" {
		t.Errorf("listed %q and %q", a.URL, b.URL)
	}
}
