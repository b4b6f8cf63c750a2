package leases

import (
	"net/url"
	"strings"
	"time"
)

// Tier says who may use a lease without its token.
type Tier string

const (
	// Explicit leases need their token on every use, even from the
	// process that claimed them (a claimed tab).
	Explicit Tier = "explicit"
	// Automatic leases belong to the claiming process: any use from it
	// passes without a token, any other process is refused (a tab a run
	// opened for itself).
	Automatic Tier = "automatic"
)

// Lease is one tab's lease, as its file holds it.
type Lease struct {
	Tab     string `json:"tab"`     // the browser's target id
	Browser string `json:"browser"` // the browser's id (from its endpoint)
	URL     string `json:"url,omitempty"`
	Pid     int    `json:"pid"`
	// Start is the holder's start in clock ticks since boot: with Pid, it
	// names the process even after its pid is reused.
	Start    uint64    `json:"start_ticks"`
	Label    string    `json:"label"`
	Nonce    string    `json:"nonce"`
	Tier     Tier      `json:"tier"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
	TTLMs    int64     `json:"ttl_ms"`
}

// TTL is how long the lease lives without use.
func (l Lease) TTL() time.Duration { return time.Duration(l.TTLMs) * time.Millisecond }

// Token is what an explicit holder presents: the tab and the nonce, so a
// reclaimed lease (new nonce) refuses the old holder.
func (l Lease) Token() string { return l.Tab + ":" + l.Nonce }

// DefaultTTL is a lease's life without use unless told otherwise.
const DefaultTTL = 15 * time.Minute

// Caller is the process asking to use a tab, with the token it holds
// ("" for none).
type Caller struct {
	Pid   int
	Start uint64
	Token string
	// URL, when set, is the address of the caller's tab now as its holder
	// shows it (its secrets masked): a use records it in the lease, which
	// is what listings show of a held tab.
	URL string
}

// Why a lease is stale. A lease whose tab is gone is reported (TabGone)
// but is not stale for that: it is freed by the same two rules as any.
const (
	DeadPid = "dead-pid"
	Expired = "expired"
	TabGone = "tab-gone"
)

// Staleness says whether l may be reclaimed at now, and why: its process
// is gone, or its last use is older than its TTL. "" when it is healthy.
// Pure.
func Staleness(l Lease, holderAlive bool, now time.Time) string {
	switch {
	case !holderAlive:
		return DeadPid
	case now.Sub(l.LastUsed) > l.TTL():
		return Expired
	}
	return ""
}

// Holds reports whether c may use l: the token always works; an automatic
// lease also admits its own process. Pure.
func Holds(l Lease, c Caller) bool {
	if c.Token != "" && c.Token == l.Token() {
		return true
	}
	return l.Tier == Automatic && c.Pid == l.Pid && c.Start == l.Start
}

// Verdict is what a claim or a use of a tab may do.
type Verdict int

const (
	// Free: no lease; a claim creates one, a use needs none.
	Free Verdict = iota
	// Yours: the caller holds it; the use refreshes it.
	Yours
	// Reclaim: held, but stale; a claim takes it with a new nonce.
	Reclaim
	// Conflict: held by someone else, healthy. Refused; no force.
	Conflict
	// Unreadable: a lease file exists and cannot be read. Refused: never
	// guessed free.
	Unreadable
)

func (v Verdict) String() string {
	return [...]string{"free", "yours", "reclaim", "conflict", "unreadable"}[v]
}

// Decide is the one conflict rule: what caller c may do with a tab whose
// lease file is l (nil: none), readable or not, whose holder lives or
// not, at now. The caller's own lease wins over its staleness (a use
// refreshes it); someone else's stale lease is reclaimable; a healthy one
// is a conflict. Pure.
func Decide(l *Lease, readable bool, holderAlive bool, c Caller, now time.Time) Verdict {
	switch {
	case !readable:
		return Unreadable
	case l == nil:
		return Free
	case Holds(*l, c):
		return Yours
	case Staleness(*l, holderAlive, now) != "":
		return Reclaim
	}
	return Conflict
}

// CloseOnRelease decides whether giving a tab back closes it: never when
// the release did not happen (already released, reclaimed, expired: the
// tab may be someone else's by now), else as override says when given,
// else when clapper opened it. Pure.
func CloseOnRelease(released, opened bool, override *bool) bool {
	switch {
	case !released:
		return false
	case override != nil:
		return *override
	}
	return opened
}

// ReapCase is what reaping knows of one tab.
type ReapCase struct {
	Readable   bool   // its lease file could be read
	ForBrowser bool   // the lease is for the browser being listed
	Stale      string // Staleness of the lease ("" healthy)
	Open       bool   // the tab is still in the browser's listing
	Opened     bool   // the origin ledger says clapper opened it
	Leased     bool   // it has a lease at all
}

// Reapable decides whether a tab is abandoned and may be closed: only when
// all four hold — its lease is readable and for this browser; it is stale
// because its process is dead or it expired; the tab is still open; and
// clapper both opened and leased it. Pure.
func Reapable(c ReapCase) bool {
	return c.Leased && c.Readable && c.ForBrowser &&
		(c.Stale == DeadPid || c.Stale == Expired) &&
		c.Open &&
		c.Opened
}

// Page is a page target of the browser.
type Page struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// Web reports whether p shows an http(s) page: the only pages the idle
// sweep closes (blank and browser pages cost nothing and are nobody's
// leak).
func (p Page) Web() bool {
	return strings.HasPrefix(p.URL, "http://") || strings.HasPrefix(p.URL, "https://")
}

// Idle decides whether a host is idle: no client now, and none and no
// activity for the whole timeout (0 disables the sweep). Pure.
func Idle(clients int, lastActivity, now time.Time, timeout time.Duration) bool {
	return timeout > 0 && clients == 0 && now.Sub(lastActivity) >= timeout
}

// Sweep picks what an idle host closes: every http(s) page. A browser is
// never left without a page (a headful one would exit with its last
// window): when every page would go, openBlank says to open a blank tab
// first. Pure.
func Sweep(pages []Page) (close []Page, openBlank bool) {
	for _, p := range pages {
		if p.Web() {
			close = append(close, p)
		}
	}
	return close, len(close) > 0 && len(close) == len(pages)
}

// Abandoned picks, among rows, the tabs reaping closes in browser: open
// holds the ids of its open pages, opened those the origin ledger says
// clapper opened. Pure.
func Abandoned(rows []Row, browser string, open, opened map[string]bool) []Row {
	var out []Row
	for _, r := range rows {
		c := ReapCase{Leased: true, Readable: r.Unreadable == "", ForBrowser: r.Lease.Browser == browser,
			Stale: r.Stale, Open: open[r.Lease.Tab], Opened: opened[r.Lease.Tab]}
		if Reapable(c) {
			out = append(out, r)
		}
	}
	return out
}

// IsClient decides whether a lease counts as a client of browser's host:
// a readable lease for that browser whose holder lives, expired or not (a
// run in a step longer than its TTL is still connected), and, to stay on
// the safe side, any unreadable lease (it cannot say whose it is). A
// living run on another browser with the same state folder is not this
// host's client. Pure.
func IsClient(r Row, browser string) bool {
	return r.Unreadable != "" || (r.Alive && r.Lease.Browser == browser)
}

// Clients counts the clients of browser's host among rows.
func Clients(rows []Row, browser string) int {
	n := 0
	for _, r := range rows {
		if IsClient(r, browser) {
			n++
		}
	}
	return n
}

// OriginOnly cuts an address to what names its site: scheme, host and
// port for http(s), the scheme for data: and blob: addresses, about:
// addresses whole; "…" marks what was cut. Pure.
func OriginOnly(u string) string {
	if u == "" || strings.HasPrefix(u, "about:") {
		return u
	}
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		return "…"
	}
	switch p.Scheme {
	case "http", "https", "ws", "wss", "file":
		o := p.Scheme + "://" + p.Host
		if rest := strings.TrimPrefix(u, o); rest != "" && rest != "/" {
			o += "/…"
		}
		return o
	}
	return p.Scheme + ":…"
}
