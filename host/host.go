// Package host is the shared browser's protocol: the host process that
// owns a Chromium many runs lease tabs in (its record, lock and cleanup
// receipt in the state folder, the idle sweeper), and what a run or
// clapper leases does with it (find its endpoint, list the leases and reap
// the abandoned tabs on read, give a tab back).
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/internal/ownerlock"
	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// The browser host's files in the state folder: a lock naming the host
// process (one host per folder), the record runs read its endpoint from,
// the cleanup receipt it leaves for "clapper browser stop", and, detached,
// its log.
const (
	LockFile    = "host.lock"
	RecordFile  = "host.json"
	ReceiptFile = "host-cleanup.json"
	LogFile     = "host.log"
)

// Record is what the host tells runs about itself.
type Record struct {
	Endpoint    string    `json:"endpoint"`
	Pid         int       `json:"pid"`
	ChromiumPid int       `json:"chromium_pid"`
	Profile     string    `json:"profile"`
	Started     time.Time `json:"started"`
	IdleTimeout string    `json:"idle_timeout"`
}

// StateDir is the state folder of --state-dir, CLAPPER_STATE_DIR,
// $XDG_STATE_HOME/clapper or ~/.local/state/clapper.
func StateDir(flag string) (string, error) {
	home, _ := os.UserHomeDir()
	dir, _, err := StateDirOf(flag, os.Getenv, home)
	if err != nil {
		return "", exit.Usagef("state folder: %v: pass --state-dir DIR", err)
	}
	return dir, nil
}

// Live reads the host of the state folder: its record when its
// process lives; ok false when none runs (owner names the last one, if
// any).
func Live(dir string) (rec Record, owner *ownerlock.Owner, ok bool) {
	o, err := ownerlock.Read(filepath.Join(dir, LockFile))
	if err != nil {
		return rec, nil, false
	}
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.Pid != o.Pid {
		return rec, &o, false
	}
	return rec, &o, o.Alive()
}

// sharedEndpoint is the endpoint of the host of dir, or a usage error
// that says how to start one.
func sharedEndpoint(dir string) (string, error) {
	rec, _, ok := Live(dir)
	if !ok {
		return "", exit.Usagef("no browser host is running in %s: start one with \"clapper browser start --detach\" (or pass --state-dir of the one you started)", dir)
	}
	return rec.Endpoint, nil
}

// Options configure the host.
type Options struct {
	StateDir    string
	IdleTimeout time.Duration
	NoSandbox   bool
	Chromium    string
	Headful     bool
}

// Run launches the host's Chromium, records it, reaps idle pages
// until ctx ends (a signal, "clapper browser stop"), then cleans up and
// leaves its receipt. Events go to out as JSON lines.
func Run(ctx context.Context, o Options, out io.Writer) error {
	if err := os.MkdirAll(o.StateDir, 0o700); err != nil {
		return fmt.Errorf("state folder: %w", err)
	}
	lock, _, err := ownerlock.Acquire(filepath.Join(o.StateDir, LockFile), "clapper browser host")
	var held *ownerlock.HeldError
	if errors.As(err, &held) {
		rec, _, _ := Live(o.StateDir)
		return exit.Usagef("a browser host already runs in %s (%s, at %s): use it with --browser shared, or stop it with clapper browser stop", o.StateDir, held.Owner, rec.Endpoint)
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	st, err := leases.Open(o.StateDir)
	if err != nil {
		return err
	}
	os.Remove(filepath.Join(o.StateDir, ReceiptFile))
	b, err := session.Launch(ctx, session.LaunchOptions{Path: o.Chromium, Headless: !o.Headful, NoSandbox: o.NoSandbox, Width: 1280, Height: 720})
	if err != nil {
		if errors.Is(err, session.ErrRootNeedsNoSandbox) {
			return exit.Usagef("%w", err)
		}
		return err
	}
	st.DropOthers(b.ID())
	rec := Record{Endpoint: b.Endpoint(), Pid: os.Getpid(), ChromiumPid: b.Pid(), Profile: b.Profile(),
		Started: time.Now().UTC().Truncate(time.Second), IdleTimeout: o.IdleTimeout.String()}
	werr := writeJSON(filepath.Join(o.StateDir, RecordFile), rec)
	if werr == nil {
		event(out, map[string]any{"event": "host_started", "endpoint": rec.Endpoint, "pid": rec.Pid, "chromium_pid": rec.ChromiumPid, "idle_timeout": rec.IdleTimeout})
		werr = reapIdle(ctx, b, st, o.IdleTimeout, out)
	}
	os.Remove(filepath.Join(o.StateDir, RecordFile))
	c := b.Close()
	c.At = 0
	_ = writeJSON(filepath.Join(o.StateDir, ReceiptFile), c)
	event(out, map[string]any{"event": "host_stopped", "connection": c.Connection, "process": c.Process, "profile": c.Profile})
	return werr
}

// reapIdle watches the host until ctx ends. Its clients are the runs
// holding a lease on its browser whose process lives, expired or not
// (every run leases the tab it drives), and any unreadable lease
// (leases.IsClient); once none has been there
// and nothing was used for the idle timeout, it closes the leftover
// http(s) pages (never the last window) and reports each as tab_reaped.
func reapIdle(ctx context.Context, b *session.Browser, st *leases.Store, idle time.Duration, out io.Writer) error {
	tick := time.Second
	if idle > 0 && idle/4 < tick {
		tick = max(idle/4, 20*time.Millisecond)
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-b.Exited():
			return errors.New("the host's chromium exited")
		case <-t.C:
		}
		rows, _ := st.List()
		clients := leases.Clients(rows, b.ID())
		for _, r := range rows {
			if r.Unreadable == "" && r.Lease.LastUsed.After(last) {
				last = r.Lease.LastUsed
			}
		}
		now := time.Now()
		if clients > 0 {
			last = now
		}
		if !leases.Idle(clients, last, now, idle) {
			continue
		}
		sweepPages(ctx, b, st, fmt.Sprintf("idle for %v with no client", idle), out)
		last = now // a fresh window after a sweep
	}
}

// sweepPages closes the idle host's http(s) pages, opening a blank tab
// first when they are all it has. Each close is decided again under the
// store's lock (leases.SweepIf): a page whose lease is unreadable or whose
// holder lives is left.
func sweepPages(ctx context.Context, b *session.Browser, st *leases.Store, why string, out io.Writer) {
	pages, err := b.Pages(ctx)
	if err != nil {
		event(out, map[string]any{"event": "sweep_failed", "error": err.Error()})
		return
	}
	closing, blank := leases.Sweep(pages)
	if blank {
		if _, err := b.OpenPage(ctx); err != nil {
			event(out, map[string]any{"event": "sweep_failed", "error": err.Error()})
			return // never leave the browser without a page
		}
	}
	for _, p := range closing {
		closed, err := st.SweepIf(p.ID, func() error { return b.ClosePage(ctx, p.ID) })
		if err != nil {
			event(out, map[string]any{"event": "sweep_failed", "tab": p.ID, "error": err.Error()})
			continue
		}
		if closed {
			event(out, map[string]any{"event": "tab_reaped", "tab": p.ID, "url": leases.OriginOnly(p.URL), "why": why})
		}
	}
}

// event writes one JSON line with the time.
func event(out io.Writer, fields map[string]any) {
	fields["at"] = time.Now().UTC().Format(time.RFC3339Nano)
	b, _ := json.Marshal(fields)
	fmt.Fprintf(out, "%s\n", b)
}

// writeJSON writes v to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Receipt reads the cleanup receipt a stopped host left.
func Receipt(dir string) (timeline.Cleanup, error) {
	var c timeline.Cleanup
	b, err := os.ReadFile(filepath.Join(dir, ReceiptFile))
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	return c, err
}
