package host

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
)

// Shared is where a run's browser is for a browser others share.
type Shared struct {
	Browser  string
	Label    string
	LeaseTTL time.Duration
	StateDir string
	// Isolate runs the tabs in a browser context of their own
	// (session.LeaseOptions.Isolate).
	Isolate bool
}

// Resolve resolves where a run's browser is: "" and nil to launch its
// own; else the endpoint (the host's for shared) and the leases its tabs
// are held under. Every attached run leases its tabs. A claim needs a
// browser to claim in.
func Resolve(s *scripts.Script, f Shared) (string, *session.LeaseOptions, error) {
	endpoint := f.Browser
	if endpoint == "" {
		endpoint = s.Browser.Attach
	}
	if endpoint == "" {
		if s.Browser.Claim != "" {
			return "", nil, exit.Usagef("%s: browser.claim takes over a tab of a shared browser: add browser.attach: shared, or run with --browser shared", s.File)
		}
		if s.Browser.Close != nil {
			return "", nil, exit.Usagef("%s: browser.close decides what happens to the tabs a run gives back to a shared browser, and this run launches its own: add browser.attach: shared, run with --browser shared, or remove browser.close", s.File)
		}
		return "", nil, nil
	}
	if f.LeaseTTL <= 0 {
		return "", nil, exit.Usagef("--lease-ttl %v: give a duration like 15m", f.LeaseTTL)
	}
	dir, err := StateDir(f.StateDir)
	if err != nil {
		return "", nil, err
	}
	if endpoint == scripts.AttachShared {
		if endpoint, err = sharedEndpoint(dir); err != nil {
			return "", nil, err
		}
	}
	if err := session.CheckEndpoint(endpoint); err != nil {
		return "", nil, exit.Usagef("--browser: %v", err)
	}
	st, err := leases.Open(dir)
	if err != nil {
		return "", nil, err
	}
	return endpoint, &session.LeaseOptions{Store: st, Label: f.Label, TTL: f.LeaseTTL, Isolate: f.Isolate}, nil
}

// StateDirOf resolves the state folder shared browsers keep their state in:
// --state-dir, else CLAPPER_STATE_DIR, else $XDG_STATE_HOME/clapper (an
// absolute XDG_STATE_HOME only, as the XDG specification says), else
// ~/.local/state/clapper. from says which. Pure.
func StateDirOf(flag string, getenv func(string) string, home string) (dir, from string, err error) {
	switch {
	case flag != "":
		return flag, "--state-dir", nil
	case getenv("CLAPPER_STATE_DIR") != "":
		return getenv("CLAPPER_STATE_DIR"), "CLAPPER_STATE_DIR", nil
	case filepath.IsAbs(getenv("XDG_STATE_HOME")):
		return filepath.Join(getenv("XDG_STATE_HOME"), "clapper"), "$XDG_STATE_HOME", nil
	case home != "":
		return filepath.Join(home, ".local", "state", "clapper"), "the default", nil
	}
	return "", "", errors.New("no home folder to put it in")
}

// OpenShared opens the lease store and, when a browser is reachable (the
// host, or the endpoint given), connects to it; b is nil when none runs.
func OpenShared(ctx context.Context, stateFlag, browserFlag string) (*leases.Store, *session.Browser, error) {
	dir, err := StateDir(stateFlag)
	if err != nil {
		return nil, nil, err
	}
	st, err := leases.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	endpoint := browserFlag
	if endpoint == "" || endpoint == "shared" {
		rec, _, ok := Live(dir)
		if !ok {
			return st, nil, nil
		}
		endpoint = rec.Endpoint
	}
	if err := session.CheckEndpoint(endpoint); err != nil {
		return nil, nil, exit.Usagef("--browser: %v", err)
	}
	b, err := session.Attach(ctx, endpoint)
	if err != nil {
		return nil, nil, err
	}
	return st, b, nil
}

// LeaseRow is one lease as clapper leases prints it: never the nonce.
type LeaseRow struct {
	Tab        string `json:"tab"`
	URL        string `json:"url,omitempty"`
	Label      string `json:"label,omitempty"`
	Pid        int    `json:"pid,omitempty"`
	Tier       string `json:"tier,omitempty"`
	Alive      bool   `json:"alive"`
	Stale      bool   `json:"stale"`
	Why        string `json:"why,omitempty"` // dead-pid, expired, tab-gone
	Open       *bool  `json:"open,omitempty"`
	Opened     bool   `json:"opened_by_clapper"`
	Unreadable string `json:"unreadable,omitempty"`
	LastUsed   string `json:"last_used,omitempty"`
}

// ReapedTab is a tab reaping closed.
type ReapedTab struct {
	Tab    string `json:"tab"`
	URL    string `json:"url"`
	Label  string `json:"label"`
	Reason string `json:"reason"`
}

// reap closes the abandoned tabs among rows and drops their leases and
// origin records. Each close is decided again under the store's lock, on
// the lease as it is then (same nonce, still stale: not refreshed or
// reclaimed since the listing), and made with the lease in place. A close
// that fails leaves both, so the next read tries again, and is not
// reported as done. Closed tabs leave open.
// The tabs it could not close are returned as failures, each with its
// error, for the caller to say.
func reap(st *leases.Store, rows []leases.Row, bid string, open map[string]bool, urls map[string]string, opened map[string]bool, closeTab func(id string) error) (reaped []ReapedTab, failed []ReapFailure) {
	for _, r := range leases.Abandoned(rows, bid, open, opened) {
		id := r.Lease.Tab
		closed, err := st.ReapIf(id, r.Lease.Nonce, func() error { return closeTab(id) })
		if err != nil {
			failed = append(failed, ReapFailure{Tab: id, Err: err})
			continue
		}
		if !closed {
			continue // used or reclaimed since the listing: wanted again
		}
		delete(open, id)
		reaped = append(reaped, ReapedTab{Tab: id, URL: leasedURL(r.Lease.URL, urls[id]), Label: r.Lease.Label, Reason: r.Stale})
	}
	return reaped, failed
}

// ReapFailure is an abandoned tab reaping could not close: its lease is
// kept, and the next read tries again.
type ReapFailure struct {
	Tab string
	Err error
}

func (f ReapFailure) Error() string {
	return fmt.Sprintf("could not close abandoned tab %s (lease kept, tried again next time): %v", f.Tab, f.Err)
}

// leasedURL is the address shown of a leased tab: the one its holder
// recorded in the lease (masked with the holder's secrets: the holder
// records it on each use), else the tab's address now cut to its origin
// (the host knows no run's secrets, and a path or query may hold one).
// Pure.
func leasedURL(recorded, now string) string {
	if recorded != "" {
		return recorded
	}
	return leases.OriginOnly(now)
}

func rowOf(r leases.Row, known bool, open map[string]bool, urls map[string]string, opened map[string]bool) LeaseRow {
	l := r.Lease
	if r.Unreadable != "" {
		return LeaseRow{Tab: l.Tab, Unreadable: r.Unreadable}
	}
	row := LeaseRow{Tab: l.Tab, URL: l.URL, Label: l.Label, Pid: l.Pid, Tier: string(l.Tier), Alive: r.Alive,
		Stale: r.Stale != "", Why: r.Stale, Opened: opened[l.Tab], LastUsed: l.LastUsed.Format(time.RFC3339)}
	if known {
		o := open[l.Tab]
		row.Open = &o
		if o {
			row.URL = leasedURL(l.URL, urls[l.Tab])
		} else if row.Why == "" {
			row.Why = leases.TabGone // reported; not what frees it
		}
	}
	return row
}

// Listing is what clapper leases shows: the browser's id (when one was
// reached), each lease as a row, and the tabs reaping closed.
type Listing struct {
	Browser   string
	Connected bool // a browser was reached: tabs checked, abandoned ones reaped
	Leases    []LeaseRow
	Reaped    []ReapedTab
	Unreaped  []ReapFailure // abandoned tabs that could not be closed
}

// List reads the lease store and, with the browser's list of tabs in
// hand, reaps the abandoned ones (reap on read).
func List(ctx context.Context, stateFlag, browserFlag string) (*Listing, error) {
	st, b, err := OpenShared(ctx, stateFlag, browserFlag)
	if err != nil {
		return nil, err
	}
	if b != nil {
		defer b.Close()
	}
	rows, err := st.List()
	if err != nil {
		return nil, err
	}
	var pages []leases.Page
	open := map[string]bool{}
	urls := map[string]string{}
	bid := ""
	listed := time.Now()
	if b != nil {
		bid = b.ID()
		if pages, err = b.Pages(ctx); err != nil {
			return nil, err
		}
		for _, p := range pages {
			open[p.ID], urls[p.ID] = true, p.URL
		}
	}
	opened := map[string]bool{}
	for _, r := range rows {
		opened[r.Lease.Tab] = st.Opened(r.Lease.Tab, bid)
	}
	// Reap on read: only with the browser's list in hand (a tab is closed
	// only when it is still open).
	var reaped []ReapedTab
	var failed []ReapFailure
	if b != nil {
		reaped, failed = reap(st, rows, bid, open, urls, opened, func(id string) error { return b.ClosePage(ctx, id) })
		st.PruneOrigins(bid, open, listed)
	}
	isReaped := map[string]bool{}
	for _, r := range reaped {
		isReaped[r.Tab] = true
	}
	var out []LeaseRow
	for _, r := range rows {
		if isReaped[r.Lease.Tab] {
			continue
		}
		out = append(out, rowOf(r, b != nil && r.Lease.Browser == bid, open, urls, opened))
	}
	return &Listing{Browser: bid, Connected: b != nil, Leases: out, Reaped: reaped, Unreaped: failed}, nil
}
