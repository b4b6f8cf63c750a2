package session

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/leases"
)

func TestBeatEvery(t *testing.T) {
	for _, c := range []struct{ ttl, want time.Duration }{
		{0, leases.DefaultTTL / 3},
		{-time.Second, leases.DefaultTTL / 3},
		{15 * time.Minute, 5 * time.Minute},
		{3 * time.Second, time.Second},
		{90 * time.Millisecond, minBeat},
		{time.Nanosecond, minBeat},
	} {
		if got := beatEvery(c.ttl); got != c.want {
			t.Errorf("beatEvery(%v) = %v, want %v", c.ttl, got, c.want)
		}
	}
}

// A single step longer than the lease's TTL (a pause of three TTLs) does
// not lose the tab of the run that is still working: the heartbeat keeps
// the lease fresh, so it is never listed stale, another claimant is
// refused in the middle of the pause, and the run goes on to its next
// step and gives the lease back.
func TestSharedLeaseKeptThroughALongStep(t *testing.T) {
	t.Parallel() // its own browser; mostly waiting for a timeout or a pause to pass
	b, st := ownSharedBrowser(t)
	const ttl = 2 * time.Second
	s := loadScript(t, `name: long step
steps:
  - goto: "data:text/html,<title>long</title>"
  - pause: 6s
  - eval: "document.title = 'after'"
`)
	paused := make(chan struct{})
	probed := make(chan error, 1)
	go func() {
		<-paused
		start := time.Now()
		var stale string
		// Watch the lease through more than two TTLs of the pause.
		for time.Since(start) < 2*ttl+ttl/4 {
			rows, _ := st.List()
			for _, r := range rows {
				if r.Stale != "" {
					stale = r.Stale
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		rows, _ := st.List()
		if len(rows) != 1 {
			probed <- errors.New("no lease during the pause")
			return
		}
		l := rows[0].Lease
		l.Label = "intruder"
		_, _, err := st.Claim(l, leases.Caller{Pid: 1, Start: 1})
		var ce *leases.ConflictError
		switch {
		case stale != "":
			probed <- errors.New("the lease was listed stale (" + stale + ") during the pause")
		case !errors.As(err, &ce):
			probed <- errors.New("a claim in the middle of the pause was not refused: " + errorText(err))
		default:
			probed <- nil
		}
	}()
	res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "long-run", TTL: ttl},
		Progress: func(p Progress) {
			if p.Step == 2 {
				close(paused)
			}
		}})
	if err != nil || res.Failed != nil {
		t.Fatalf("run: %v %v", err, res.Failed)
	}
	if err := <-probed; err != nil {
		t.Error(err)
	}
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left after the run: %+v", rows)
	}
}

func errorText(err error) string {
	if err == nil {
		return "it succeeded"
	}
	return err.Error()
}
