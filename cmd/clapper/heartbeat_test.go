package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/leases"
)

// A run in a step longer than --lease-ttl keeps its lease fresh from its
// own process (its last use moves on, it is never listed stale), and once
// that process is killed with SIGKILL nothing refreshes it any more: the
// lease goes stale, its last use stays where the heartbeat left it, and
// clapper leases reaps its tab.
func TestSharedHeartbeatStopsWithTheRun(t *testing.T) {
	t.Parallel() // its own host and state folder; most of it is waiting out TTLs and idle timeouts
	h := startHost(t, "15m")
	dir := t.TempDir()
	const ttl = time.Second
	script := writeFile(t, dir, "long.yaml", "name: long\nsteps:\n  - goto: \"data:text/html,<title>long page</title>\"\n  - pause: 120s\n")
	p := startCLI(t, nil, "run", script, "--browser", "shared", "--state-dir", h.dir, "-o", filepath.Join(dir, "out"),
		"--no-video", "--label", "long-run", "--lease-ttl", ttl.String())
	tab := h.leased(t, p, "long-run", "long page")
	first, _ := h.leaseOf(t, "long-run")
	// Well past the TTL inside the one pause step, the lease is healthy and
	// was used since.
	p.waitFor(t, "the lease refreshed past its TTL", func() bool {
		r, ok := h.leaseOf(t, "long-run")
		if !ok || r.Stale != "" {
			t.Fatalf("lease during the pause: %+v, found %v", r, ok)
		}
		return r.Lease.LastUsed.Sub(first.Lease.LastUsed) > 3*ttl
	})

	p.cmd.Process.Kill()
	p.exit(t)
	killed := time.Now()
	last, _ := h.leaseOf(t, "long-run")
	if last.Stale != leases.DeadPid {
		t.Errorf("lease after kill -9: stale %q, want %s", last.Stale, leases.DeadPid)
	}
	eventually(t, "three TTLs after the kill", func() bool { return time.Since(killed) > 3*ttl })
	if r, ok := h.leaseOf(t, "long-run"); !ok || !r.Lease.LastUsed.Equal(last.Lease.LastUsed) || r.Stale == "" {
		t.Errorf("lease of the killed run: %+v (found %v), last used %v at the kill: something still refreshes it", r, ok, last.Lease.LastUsed)
	}
	if out, stderr, code := runCLI(t, "leases", "--state-dir", h.dir); code != 0 {
		t.Errorf("leases: %d\n%s%s", code, out, stderr)
	}
	eventually(t, "the killed run's tab reaped", func() bool { _, open := h.page(t, tab); return !open })
}
