package leases

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Every decision that ends in closing a tab is made again under the
// store's lock, on the lease as it is then, and the tab is closed while
// the lease file is still in place: the lock holds off a refresh or a
// reclaim, and the file holds off the lock-free claim (its exclusive
// create fails). The lease goes only after the close.

// GiveBack is what ReleaseClosing did.
type GiveBack struct {
	Released bool   // the lease was c's (or stale) and is gone
	Was      *Lease // the lease that was there, nil when none
	Closed   bool   // the tab was closed (and its origin record dropped)
	CloseErr error  // the close failed: the lease went, the tab was left open
}

// ReleaseClosing gives a tab's lease back like Release and, when
// shouldClose says so for the lease that was there, closes the tab first
// with closeTab, the lease still in place and the store locked. A close
// that fails still gives the lease back and leaves the tab open. A release
// that does not happen closes nothing.
func (s *Store) ReleaseClosing(tab string, c Caller, shouldClose func(was Lease) bool, closeTab func() error) (GiveBack, error) {
	unlock, err := s.lock()
	if err != nil {
		return GiveBack{}, err
	}
	defer unlock()
	cur, err := s.read(tab)
	if err != nil || cur == nil {
		return GiveBack{}, err
	}
	g := GiveBack{Was: cur}
	if strings.HasPrefix(c.Token, tab+":") && c.Token != cur.Token() {
		return g, nil // lost (reclaimed since): no release happened, and nothing is refused
	}
	alive := s.Alive(cur.Pid, cur.Start)
	if d := Decide(cur, true, alive, c, s.Now().UTC()); d != Yours && d != Reclaim {
		return g, conflict(tab, cur)
	}
	if shouldClose != nil && shouldClose(*cur) {
		if g.CloseErr = closeTab(); g.CloseErr == nil {
			g.Closed = true
			s.Forget(tab)
		}
	}
	if err := os.Remove(s.path(tab)); err != nil {
		return g, fmt.Errorf("release lease on tab %s: %w", tab, err)
	}
	g.Released = true
	return g, nil
}

// ReapIf closes an abandoned tab: under the lock, the lease must still be
// the one judged (nonce) and still stale; then closeTab runs, and only
// when it succeeded do the lease and the origin record go. It reports
// whether the tab was closed; a lease used or reclaimed since is left,
// with its tab, and a close that fails leaves both.
func (s *Store) ReapIf(tab, nonce string, closeTab func() error) (bool, error) {
	unlock, err := s.lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	cur, err := s.read(tab)
	if err != nil || cur == nil || cur.Nonce != nonce {
		return false, err
	}
	if Staleness(*cur, s.Alive(cur.Pid, cur.Start), s.Now().UTC()) == "" {
		return false, nil // used again since it was judged stale
	}
	if err := closeTab(); err != nil {
		return false, err
	}
	s.Forget(tab)
	if err := os.Remove(s.path(tab)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return true, fmt.Errorf("drop lease on tab %s: %w", tab, err)
	}
	return true, nil
}

// sweepingLease is the lease SweepIf holds on a page without one while it
// closes it: this process's, for a minute.
func (s *Store) sweepingLease(tab string) (Lease, error) {
	me, now := Self(""), s.Now().UTC()
	n, err := nonce()
	if err != nil {
		return Lease{}, err
	}
	return Lease{Tab: tab, Label: "clapper browser host: closing an idle tab", Pid: me.Pid, Start: me.Start, Nonce: n,
		Tier: Automatic, Created: now, LastUsed: now, TTLMs: time.Minute.Milliseconds()}, nil
}

// SweepIf closes a page of an idle host unless, under the lock, its lease
// says someone may be coming back to it: an unreadable lease, or one whose
// holder lives (expired or not). A stale lease of a dead holder goes after
// the close, with the origin record. A page without a lease gets one of
// this process's while it is closed (sweepingLease), so that a claim on
// the lock-free path, which takes a tab with no lease file, cannot take it
// meanwhile; when a claim came first, the page is left. It reports whether
// the page was closed.
func (s *Store) SweepIf(tab string, closeTab func() error) (bool, error) {
	unlock, err := s.lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	cur, err := s.read(tab)
	var un *UnreadableError
	if errors.As(err, &un) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if cur != nil && s.Alive(cur.Pid, cur.Start) {
		return false, nil
	}
	if cur == nil {
		ph, err := s.sweepingLease(tab)
		if err != nil {
			return false, err
		}
		switch err := s.create(ph); {
		case errors.Is(err, os.ErrExist):
			return false, nil // claimed since it was read
		case err != nil:
			return false, err
		}
		defer os.Remove(s.path(tab))
	}
	if err := closeTab(); err != nil {
		return false, err
	}
	s.Forget(tab)
	if cur != nil {
		if err := os.Remove(s.path(tab)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return true, fmt.Errorf("drop lease on tab %s: %w", tab, err)
		}
	}
	return true, nil
}
