package leases

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func lease(tier Tier) Lease {
	return Lease{Tab: "T1", Pid: 100, Start: 7, Label: "holder", Nonce: "n1", Tier: tier,
		Created: t0, LastUsed: t0, TTLMs: (15 * time.Minute).Milliseconds()}
}

func TestStaleness(t *testing.T) {
	l := lease(Automatic)
	cases := []struct {
		alive bool
		after time.Duration
		want  string
	}{
		{true, 0, ""},
		{true, 15 * time.Minute, ""}, // exactly the TTL: still healthy
		{true, 15*time.Minute + time.Millisecond, Expired},
		{false, 0, DeadPid},
		{false, time.Hour, DeadPid}, // a dead holder is named first
	}
	for _, c := range cases {
		if got := Staleness(l, c.alive, t0.Add(c.after)); got != c.want {
			t.Errorf("Staleness(alive %v, +%v) = %q, want %q", c.alive, c.after, got, c.want)
		}
	}
}

// TestDecide covers every combination of tier, caller (the same process,
// a reused pid, another process), token (none, right, a dead one from
// before a reclaim), holder liveness and expiry.
func TestDecide(t *testing.T) {
	type callerKind struct {
		name string
		c    func(Lease) Caller
	}
	callers := []callerKind{
		{"same process, no token", func(l Lease) Caller { return Caller{Pid: l.Pid, Start: l.Start} }},
		{"same process, token", func(l Lease) Caller { return Caller{Pid: l.Pid, Start: l.Start, Token: l.Token()} }},
		{"same process, old token", func(l Lease) Caller { return Caller{Pid: l.Pid, Start: l.Start, Token: l.Tab + ":old"} }},
		{"reused pid, no token", func(l Lease) Caller { return Caller{Pid: l.Pid, Start: l.Start + 1} }},
		{"other process, no token", func(l Lease) Caller { return Caller{Pid: 200, Start: 9} }},
		{"other process, token", func(l Lease) Caller { return Caller{Pid: 200, Start: 9, Token: l.Token()} }},
		{"other process, old token", func(l Lease) Caller { return Caller{Pid: 200, Start: 9, Token: l.Tab + ":old"} }},
	}
	// want[tier][caller] for a healthy lease: who holds it.
	holds := map[Tier]map[string]bool{
		Automatic: {"same process, no token": true, "same process, token": true, "same process, old token": true, "other process, token": true},
		Explicit:  {"same process, token": true, "other process, token": true},
	}
	for _, tier := range []Tier{Automatic, Explicit} {
		for _, ck := range callers {
			for _, alive := range []bool{true, false} {
				for _, expired := range []bool{false, true} {
					l := lease(tier)
					now := t0.Add(time.Minute)
					if expired {
						now = t0.Add(time.Hour)
					}
					want := Conflict
					switch {
					case holds[tier][ck.name]:
						want = Yours
					case !alive || expired:
						want = Reclaim
					}
					got := Decide(&l, true, alive, ck.c(l), now)
					if got != want {
						t.Errorf("%s lease, %s, holder alive %v, expired %v: %v, want %v", tier, ck.name, alive, expired, got, want)
					}
				}
			}
		}
	}
	// No lease is free to anyone; an unreadable one is never free.
	for _, ck := range callers {
		l := lease(Explicit)
		if got := Decide(nil, true, false, ck.c(l), t0); got != Free {
			t.Errorf("no lease, %s: %v", ck.name, got)
		}
		for _, alive := range []bool{true, false} {
			if got := Decide(nil, false, alive, ck.c(l), t0.Add(time.Hour)); got != Unreadable {
				t.Errorf("unreadable, %s: %v", ck.name, got)
			}
		}
	}
}

func TestCloseOnRelease(t *testing.T) {
	yes, no := true, false
	for _, released := range []bool{true, false} {
		for _, opened := range []bool{true, false} {
			for _, ov := range []*bool{nil, &yes, &no} {
				want := released && opened
				if released && ov != nil {
					want = *ov
				}
				if got := CloseOnRelease(released, opened, ov); got != want {
					t.Errorf("released %v opened %v override %v: %v, want %v", released, opened, fmtOv(ov), got, want)
				}
			}
		}
	}
	// The safety property, spelled out: a release that did not happen
	// never closes, whatever the override says.
	if CloseOnRelease(false, true, &yes) {
		t.Error("a release that did not happen closed the tab")
	}
}

func fmtOv(b *bool) string {
	if b == nil {
		return "none"
	}
	return fmt.Sprint(*b)
}

// TestReapable tries every combination of the conditions: only the one
// where all four hold (with either stale reason) closes a tab.
func TestReapable(t *testing.T) {
	stales := []string{"", DeadPid, Expired, TabGone}
	n := 0
	for m := 0; m < 32; m++ {
		for _, st := range stales {
			c := ReapCase{Leased: m&1 != 0, Readable: m&2 != 0, ForBrowser: m&4 != 0, Open: m&8 != 0, Opened: m&16 != 0, Stale: st}
			want := c.Leased && c.Readable && c.ForBrowser && c.Open && c.Opened && (st == DeadPid || st == Expired)
			if got := Reapable(c); got != want {
				t.Errorf("%+v: %v, want %v", c, got, want)
			}
			if want {
				n++
			}
		}
	}
	if n != 2 {
		t.Errorf("%d combinations reap, want 2 (dead pid, expired)", n)
	}
}

func TestAbandoned(t *testing.T) {
	row := func(tab, browser, stale, unreadable string) Row {
		return Row{Lease: Lease{Tab: tab, Browser: browser}, Stale: stale, Unreadable: unreadable}
	}
	rows := []Row{
		row("dead", "B", DeadPid, ""),
		row("expired", "B", Expired, ""),
		row("healthy", "B", "", ""),
		row("other-browser", "A", DeadPid, ""),
		row("unreadable", "", "", "unparseable"),
		row("closed", "B", DeadPid, ""),
		row("persons", "B", DeadPid, ""), // claimed, not opened
	}
	open := map[string]bool{"dead": true, "expired": true, "healthy": true, "other-browser": true, "unreadable": true, "persons": true}
	opened := map[string]bool{"dead": true, "expired": true, "healthy": true, "other-browser": true, "unreadable": true, "closed": true}
	got := Abandoned(rows, "B", open, opened)
	if len(got) != 2 || got[0].Lease.Tab != "dead" || got[1].Lease.Tab != "expired" {
		t.Errorf("Abandoned = %+v, want dead and expired", got)
	}
}

func TestIdle(t *testing.T) {
	cases := []struct {
		clients int
		since   time.Duration
		timeout time.Duration
		want    bool
	}{
		{0, 15 * time.Minute, 15 * time.Minute, true},
		{0, 14 * time.Minute, 15 * time.Minute, false},
		{1, time.Hour, 15 * time.Minute, false},
		{0, time.Hour, 0, false}, // 0 disables
	}
	for _, c := range cases {
		if got := Idle(c.clients, t0, t0.Add(c.since), c.timeout); got != c.want {
			t.Errorf("Idle(%d clients, %v since activity, timeout %v) = %v", c.clients, c.since, c.timeout, got)
		}
	}
}

func TestSweep(t *testing.T) {
	p := func(id, url string) Page { return Page{ID: id, URL: url} }
	cases := []struct {
		name      string
		pages     []Page
		close     string
		openBlank bool
	}{
		{"nothing open", nil, "", false},
		{"only blank", []Page{p("a", "about:blank")}, "", false},
		{"web and blank", []Page{p("a", "about:blank"), p("b", "https://x/"), p("c", "http://y/")}, "bc", false},
		{"only web: a blank tab first", []Page{p("b", "https://x/"), p("c", "http://y/")}, "bc", true},
		{"browser pages stay", []Page{p("a", "chrome://version"), p("b", "data:text/html,x"), p("c", "file:///x")}, "", false},
	}
	for _, c := range cases {
		cl, ob := Sweep(c.pages)
		ids := ""
		for _, x := range cl {
			ids += x.ID
		}
		if ids != c.close || ob != c.openBlank {
			t.Errorf("%s: close %q openBlank %v, want %q %v", c.name, ids, ob, c.close, c.openBlank)
		}
	}
}

func TestConflictMessage(t *testing.T) {
	for _, c := range []struct {
		e    ConflictError
		want string
	}{
		{ConflictError{Tab: "T", URL: "https://a/", Holder: "checkout", Pid: 12}, "tab T (https://a/) is leased by checkout (pid 12):"},
		{ConflictError{Tab: "T", URL: "https://a/", Holder: "demo.yaml (pid 12)", Pid: 12}, "is leased by demo.yaml (pid 12):"},
		{ConflictError{Tab: "T", Holder: "x", Pid: 3}, "tab T (address unknown)"},
	} {
		if got := c.e.Error(); !strings.Contains(got, c.want) {
			t.Errorf("%q does not contain %q", got, c.want)
		}
	}
}

// A client is a living holder on this browser, expired or not, or an
// unreadable lease; every combination.
func TestIsClient(t *testing.T) {
	for _, unreadable := range []bool{false, true} {
		for _, alive := range []bool{false, true} {
			for _, stale := range []string{"", DeadPid, Expired} {
				for _, browser := range []string{"B", "OTHER"} {
					r := Row{Lease: Lease{Tab: "T", Browser: browser}, Alive: alive, Stale: stale}
					if unreadable {
						r = Row{Lease: Lease{Tab: "T"}, Unreadable: "EACCES"}
					}
					want := unreadable || (alive && browser == "B")
					if got := IsClient(r, "B"); got != want {
						t.Errorf("IsClient(unreadable %v, alive %v, stale %q, browser %s) = %v", unreadable, alive, stale, browser, got)
					}
				}
			}
		}
	}
	rows := []Row{
		{Lease: Lease{Browser: "B"}, Alive: true, Stale: Expired},
		{Lease: Lease{Browser: "B"}, Alive: false, Stale: DeadPid},
		{Lease: Lease{Browser: "OTHER"}, Alive: true},
		{Unreadable: "unparseable"},
	}
	if n := Clients(rows, "B"); n != 2 {
		t.Errorf("Clients = %d, want 2", n)
	}
}

func TestOriginOnly(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "",
		"about:blank":                        "about:blank",
		"https://shop.example/":              "https://shop.example",
		"https://shop.example":               "https://shop.example",
		"http://127.0.0.1:8080/reset/s3cr3t": "http://127.0.0.1:8080/…",
		"https://a.example/?t=s3cr3t#x":      "https://a.example/…",
		"https://u:pw@a.example/":            "https://a.example/…",
		"data:text/html,<p>s3cr3t":           "data:…",
		"blob:https://a.example/1234":        "blob:…",
		"file:///home/me/s3cr3t.html":        "file:///…",
		"chrome://version":                   "chrome:…",
		"not a url with s3cr3t":              "…",
		"%zz":                                "…",
	} {
		if got := OriginOnly(in); got != want {
			t.Errorf("OriginOnly(%q) = %q, want %q", in, got, want)
		}
	}
}
