package leases

import (
	"errors"
	"os"
	"testing"
	"time"
)

// stillHeld is the check made from inside a close: the lease is still in
// place, so another run's look at the tab (the Peek of the choke point)
// is refused and the lock-free claim cannot create a lease over it.
// (A stale lease is not refused by the look: its claim then waits on the
// lock, and finds the tab closed.)
func stillHeld(t *testing.T, s *Store, tab string, healthy bool) {
	t.Helper()
	thief := Caller{Pid: 424242, Start: 7}
	var ce *ConflictError
	if err := s.Peek(tab, "", thief); healthy && !errors.As(err, &ce) {
		t.Errorf("during the close, another run's look at tab %s = %v, want the conflict", tab, err)
	}
	l := claimArgs(tab, Automatic)
	l.Pid, l.Nonce, l.Label = thief.Pid, "f00d", "thief"
	if err := s.create(l); !errors.Is(err, os.ErrExist) {
		t.Errorf("during the close, a lock-free claim of tab %s = %v, want it refused", tab, err)
	}
}

// A release that closes the tab closes it with the lease still there,
// then gives the lease back: no claim can take the tab in between.
func TestReleaseClosesBeforeGivingBack(t *testing.T) {
	s := store(t)
	s.Alive = func(pid int, _ uint64) bool { return pid != 2 }
	me := Caller{Pid: 1, Start: 1}
	l, _, err := s.Claim(claimArgs("T1", Automatic), me)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RecordOrigin(Origin{Tab: "T1", Browser: "B"}); err != nil {
		t.Fatal(err)
	}
	me.Token = l.Token()
	closes := 0
	g, err := s.ReleaseClosing("T1", me, func(was Lease) bool { return was.Nonce == l.Nonce }, func() error {
		closes++
		stillHeld(t, s, "T1", true)
		return nil
	})
	if err != nil || !g.Released || !g.Closed || g.CloseErr != nil || closes != 1 {
		t.Fatalf("ReleaseClosing = %+v, %v (closes %d)", g, err, closes)
	}
	if rows, _ := s.List(); len(rows) != 0 || s.Opened("T1", "B") {
		t.Errorf("after the close: leases %+v, origin kept %v", rows, s.Opened("T1", "B"))
	}

	// A close that fails gives the lease back and leaves the tab (and its
	// origin record) as they are.
	l, _, _ = s.Claim(claimArgs("T2", Automatic), Caller{Pid: 1, Start: 1})
	_ = s.RecordOrigin(Origin{Tab: "T2", Browser: "B"})
	me.Token = l.Token()
	g, err = s.ReleaseClosing("T2", me, func(Lease) bool { return true }, func() error { return errors.New("refused") })
	if err != nil || !g.Released || g.Closed || g.CloseErr == nil || !s.Opened("T2", "B") {
		t.Errorf("failed close: %+v, %v", g, err)
	}

	// A release that does not happen closes nothing: a lease lost to
	// another holder, and someone else's healthy lease.
	l, _, _ = s.Claim(claimArgs("T3", Automatic), Caller{Pid: 2, Start: 1}) // pid 2 is dead
	mine := Caller{Pid: 2, Start: 1, Token: l.Token()}
	if _, _, err := s.Claim(claimArgs("T3", Automatic), Caller{Pid: 3, Start: 1}); err != nil {
		t.Fatal(err) // reclaimed: a new nonce
	}
	never := func() error { t.Error("closed a tab whose release did not happen"); return nil }
	if g, err := s.ReleaseClosing("T3", mine, func(Lease) bool { return true }, never); g.Released || err != nil {
		t.Errorf("lost lease: %+v, %v", g, err)
	}
	var ce *ConflictError
	if g, err := s.ReleaseClosing("T3", Caller{Pid: 9, Start: 1}, func(Lease) bool { return true }, never); g.Released || !errors.As(err, &ce) {
		t.Errorf("someone else's lease: %+v, %v", g, err)
	}
	// shouldClose false: released, left open.
	if g, err := s.ReleaseClosing("T3", Caller{Pid: 3, Start: 1}, func(Lease) bool { return false }, never); !g.Released || g.Closed || err != nil {
		t.Errorf("release without close: %+v, %v", g, err)
	}
}

// Reaping decides again under the lock: a lease refreshed by its expired
// but living holder, or reclaimed by another run, after the listing it was
// judged from, keeps its tab open.
func TestReapRechecksAtTheClose(t *testing.T) {
	s := store(t)
	alive := map[int]bool{1: true}
	s.Alive = func(pid int, _ uint64) bool { return alive[pid] }
	start := time.Now()
	s.Now = func() time.Time { return start }
	expiring := claimArgs("EXPIRED", Automatic)
	expiring.TTLMs = time.Minute.Milliseconds()
	held, _, _ := s.Claim(expiring, Caller{Pid: 1, Start: 1})
	dead, _, _ := s.Claim(claimArgs("DEAD", Automatic), Caller{Pid: 2, Start: 1})
	gone, _, _ := s.Claim(claimArgs("GONE", Automatic), Caller{Pid: 3, Start: 1})
	s.Now = func() time.Time { return start.Add(2 * time.Minute) }
	rows, _ := s.List()
	stale := map[string]string{}
	for _, r := range rows {
		stale[r.Lease.Tab] = r.Stale
	}
	if stale["EXPIRED"] != Expired || stale["DEAD"] != DeadPid || stale["GONE"] != DeadPid {
		t.Fatalf("listing %v", stale)
	}
	// After the listing: the expired holder uses its tab again, and
	// another run reclaims DEAD.
	if _, err := s.Check("EXPIRED", Caller{Pid: 1, Start: 1, Token: held.Token()}); err != nil {
		t.Fatal(err)
	}
	if _, was, err := s.Claim(claimArgs("DEAD", Automatic), Caller{Pid: 1, Start: 1}); err != nil || was == nil {
		t.Fatalf("reclaim: %v %v", was, err)
	}
	never := func() error { t.Error("closed a tab that is wanted again"); return nil }
	for tab, n := range map[string]string{"EXPIRED": held.Nonce, "DEAD": dead.Nonce} {
		if closed, err := s.ReapIf(tab, n, never); closed || err != nil {
			t.Errorf("ReapIf %s = %v, %v", tab, closed, err)
		}
	}
	// GONE is still abandoned: closed with its lease in place, then dropped.
	if err := s.RecordOrigin(Origin{Tab: "GONE", Browser: "B"}); err != nil {
		t.Fatal(err)
	}
	closed, err := s.ReapIf("GONE", gone.Nonce, func() error { stillHeld(t, s, "GONE", false); return nil })
	if !closed || err != nil || s.Opened("GONE", "B") {
		t.Errorf("ReapIf GONE = %v, %v; origin kept %v", closed, err, s.Opened("GONE", "B"))
	}
	rows, _ = s.List()
	if len(rows) != 2 {
		t.Errorf("leases left %+v, want EXPIRED and DEAD", rows)
	}
}

// The idle sweep closes a page only when no living holder and no
// unreadable lease says someone may come back to it.
func TestSweepIf(t *testing.T) {
	s := store(t)
	s.Alive = func(pid int, _ uint64) bool { return pid == 1 }
	start := time.Now()
	s.Now = func() time.Time { return start }
	live := claimArgs("LIVE", Automatic)
	live.TTLMs = time.Second.Milliseconds()
	s.Claim(live, Caller{Pid: 1, Start: 1})
	s.Claim(claimArgs("DEAD", Automatic), Caller{Pid: 2, Start: 1})
	os.WriteFile(s.path("BAD"), []byte("{"), 0o600)
	s.Now = func() time.Time { return start.Add(time.Hour) } // LIVE has expired, its holder lives
	closed := map[string]bool{}
	for _, tab := range []string{"LIVE", "DEAD", "BAD", "NONE"} {
		ok, err := s.SweepIf(tab, func() error {
			closed[tab] = true
			// While it closes, a claim's lock-free path finds a lease
			// file and cannot take the page.
			if err := s.create(claimArgs(tab, Automatic)); !errors.Is(err, os.ErrExist) {
				t.Errorf("SweepIf %s: a lock-free claim made a lease while the page closed: %v", tab, err)
			}
			return nil
		})
		if err != nil || ok != closed[tab] {
			t.Errorf("SweepIf %s = %v, %v", tab, ok, err)
		}
	}
	if closed["LIVE"] || closed["BAD"] || !closed["DEAD"] || !closed["NONE"] {
		t.Errorf("swept %v, want DEAD and NONE", closed)
	}
	if l, err := s.read("DEAD"); err != nil || l != nil {
		t.Error("the dead holder's lease outlived its swept tab")
	}
	if l, err := s.read("NONE"); err != nil || l != nil {
		t.Errorf("the sweep's own lease outlived the page: %+v %v", l, err)
	}
	// A page claimed between the listing and the sweep is left.
	s.Claim(claimArgs("NEW", Automatic), Caller{Pid: 1, Start: 1})
	if ok, err := s.SweepIf("NEW", func() error { t.Error("closed a claimed page"); return nil }); ok || err != nil {
		t.Errorf("SweepIf NEW = %v, %v", ok, err)
	}
}
