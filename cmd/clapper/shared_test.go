package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// testHost is a browser host the test started with clapper browser start,
// in the foreground, with a state folder of its own.
type testHost struct {
	dir      string
	proc     *cliProc
	endpoint string
	profile  string
	b        *session.Browser // the test's own connection, to look
}

// startHost starts a host and, when the test ends, stops it with clapper
// browser stop and checks that nothing is left: no process naming its
// profile, no profile, a receipt that says so.
func startHost(t *testing.T, idle string) *testHost {
	t.Helper()
	testenv.Need(t, "chromium")
	h := &testHost{dir: t.TempDir()}
	h.proc = startCLI(t, nil, append([]string{"browser", "start", "--state-dir", h.dir, "--idle-timeout", idle}, sandboxArgs()...)...)
	h.proc.waitFor(t, "the host's endpoint", func() bool { return strings.Contains(h.proc.stdout.String(), `"host_started"`) })
	var ev struct{ Endpoint string }
	json.Unmarshal([]byte(strings.SplitN(h.proc.stdout.String(), "\n", 2)[0]), &ev)
	h.endpoint = ev.Endpoint
	rec, _, ok := host.Live(h.dir)
	if !ok || rec.Endpoint != h.endpoint {
		t.Fatalf("host record %+v, %v; endpoint printed %q", rec, ok, h.endpoint)
	}
	h.profile = rec.Profile
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	b, err := session.Attach(ctx, h.endpoint)
	if err != nil {
		t.Fatal(err)
	}
	h.b = b
	t.Cleanup(func() {
		b.Close()
		out, stderr, code := runCLI(t, "browser", "stop", "--state-dir", h.dir)
		if code != 0 || !strings.Contains(out, "profile removed") {
			t.Errorf("browser stop: %d\n%s%s", code, out, stderr)
		}
		if c := h.proc.exit(t); c != 0 {
			t.Errorf("host exited %d\n%s", c, h.proc.stderr.String())
		}
		waitGone(t, "the host's chromium", func() []string { return naming(h.profile) })
		if _, err := os.Stat(h.profile); !os.IsNotExist(err) {
			t.Errorf("host profile %s left: %v", h.profile, err)
		}
		if _, _, ok := host.Live(h.dir); ok {
			t.Error("a host is still recorded after stop")
		}
	})
	return h
}

func naming(s string) []string {
	var out []string
	for _, p := range procfs.List() {
		if !p.Zombie() && strings.Contains(p.Cmdline, s) {
			out = append(out, p.Cmdline)
		}
	}
	return out
}

func (h *testHost) pages(t *testing.T) []leases.Page {
	t.Helper()
	p, err := h.b.Pages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (h *testHost) page(t *testing.T, id string) (leases.Page, bool) {
	for _, p := range h.pages(t) {
		if p.ID == id {
			return p, true
		}
	}
	return leases.Page{}, false
}

func (h *testHost) leaseOf(t *testing.T, label string) (leases.Row, bool) {
	st, err := leases.Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := st.List()
	for _, r := range rows {
		if r.Lease.Label == label {
			return r, true
		}
	}
	return leases.Row{}, false
}

// run starts clapper run of script against the host.
func (h *testHost) run(t *testing.T, script, out, label string) *cliProc {
	return startCLI(t, nil, "run", script, "--browser", "shared", "--state-dir", h.dir, "-o", out, "--no-video", "--label", label)
}

// leased waits until p holds a lease labelled label on a tab showing
// title, and returns the tab.
func (h *testHost) leased(t *testing.T, p *cliProc, label, title string) string {
	t.Helper()
	var id string
	p.waitFor(t, "the lease of "+label, func() bool {
		r, ok := h.leaseOf(t, label)
		if !ok || !r.Alive {
			return false
		}
		pg, open := h.page(t, r.Lease.Tab)
		id = r.Lease.Tab
		return open && pg.Title == title
	})
	return id
}

// eventually waits for cond: a closed tab leaves the browser's listing a
// moment after the close is answered.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(hang); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("not within %v: %s", hang, what)
			return
		}
	}
}

// centre returns the colour in the middle of an image.
func centre(t *testing.T, path string) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-vf", "crop=2:2", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil || len(out) < 3 {
		t.Fatalf("decode %s: %v (%d bytes)", path, err, len(out))
	}
	return out[:3]
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A second OS process naming a tab another run holds is refused with the
// conflict naming the tab, its address and the holder, and what it would
// have done did not happen (the page's title, read back, is unchanged).
// The holder, stopped by SIGTERM, gives its lease back and closes the tab
// it opened.
func TestSharedHeldTabRefused(t *testing.T) {
	h := startHost(t, "15m")
	dir := t.TempDir()
	holder := writeFile(t, dir, "holder.yaml", "name: holder\nsteps:\n  - goto: \"data:text/html,<title>held page</title>\"\n  - pause: 120s\n")
	p := h.run(t, holder, filepath.Join(dir, "holder"), "holder-run")
	tab := h.leased(t, p, "holder-run", "held page")
	// The refusal names the address the holder recorded, which it does
	// as its next step begins: the page shows its title a moment before.
	eventually(t, "the holder's lease records its page", func() bool {
		r, ok := h.leaseOf(t, "holder-run")
		return ok && strings.Contains(r.Lease.URL, "held page")
	})

	claimer := writeFile(t, dir, "claimer.yaml", "name: claimer\nbrowser: {attach: shared, claim: \"title:held page\"}\nsteps:\n  - eval: \"document.title = 'claimed'\"\n")
	_, stderr, code := runCLI(t, "run", claimer, "--state-dir", h.dir, "-o", filepath.Join(dir, "claimer"), "--no-video")
	if code != exitFailed || !strings.Contains(stderr, "tab "+tab) || !strings.Contains(stderr, "leased by holder-run") || !strings.Contains(stderr, "held page") {
		t.Errorf("claim of a held tab: exit %d\n%s", code, stderr)
	}
	// By id, through clapper release: refused the same way (no steal).
	_, stderr, code = runCLI(t, "release", tab, "--state-dir", h.dir)
	if code != exitFailed || !strings.Contains(stderr, "leased by holder-run") {
		t.Errorf("release of a held tab: exit %d\n%s", code, stderr)
	}
	if pg, ok := h.page(t, tab); !ok || pg.Title != "held page" {
		t.Errorf("the held tab after the refusals: %+v, open %v; want its title untouched", pg, ok)
	}
	if r, ok := h.leaseOf(t, "holder-run"); !ok || r.Lease.Tab != tab {
		t.Errorf("the holder's lease changed: %+v", r)
	}

	p.cmd.Process.Signal(syscall.SIGTERM)
	if c := p.exit(t); c != exitTerminated {
		t.Errorf("holder exited %d, want %d\n%s", c, exitTerminated, p.stderr.String())
	}
	eventually(t, "the holder's tab closed after SIGTERM", func() bool { _, ok := h.page(t, tab); return !ok })
	if _, ok := h.leaseOf(t, "holder-run"); ok {
		t.Error("the holder's lease is still there after SIGTERM")
	}
	if len(h.pages(t)) == 0 {
		t.Error("the host has no page left")
	}
}

// After kill -9 of runs, clapper leases reaps the tab a run opened and
// names it, and never closes a person's tab (opened outside clapper) that
// a run claimed; releasing that one leaves it open, and a run that claims
// it and ends leaves it open too.
func TestSharedReapAfterKill(t *testing.T) {
	h := startHost(t, "15m")
	dir := t.TempDir()
	person, err := h.b.OpenPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	doomed := writeFile(t, dir, "doomed.yaml", "name: doomed\nsteps:\n  - goto: \"data:text/html,<title>doomed page</title>\"\n  - pause: 120s\n")
	visitor := writeFile(t, dir, "visitor.yaml", "name: visitor\nbrowser: {claim: \""+person+"\"}\nsteps:\n  - eval: \"document.title = 'visited'\"\n  - pause: 120s\n")
	pd := h.run(t, doomed, filepath.Join(dir, "doomed"), "doomed-run")
	pv := h.run(t, visitor, filepath.Join(dir, "visitor"), "visitor-run")
	tab := h.leased(t, pd, "doomed-run", "doomed page")
	h.leased(t, pv, "visitor-run", "visited")
	for _, p := range []*cliProc{pd, pv} {
		p.cmd.Process.Kill()
		p.exit(t)
	}

	out, stderr, code := runCLI(t, "leases", "--json", "--state-dir", h.dir)
	var got struct {
		Leases []host.LeaseRow
		Reaped []host.ReapedTab
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("leases --json: %d %v\n%s%s", code, err, out, stderr)
	}
	if len(got.Reaped) != 1 || got.Reaped[0].Tab != tab || got.Reaped[0].Label != "doomed-run" || got.Reaped[0].Reason != leases.DeadPid {
		t.Errorf("reaped %+v, want the doomed run's tab %s", got.Reaped, tab)
	}
	if len(got.Leases) != 1 || got.Leases[0].Tab != person || !got.Leases[0].Stale || got.Leases[0].Why != leases.DeadPid || got.Leases[0].Opened {
		t.Errorf("leases left %+v, want the person's tab, stale (dead-pid), not opened by clapper", got.Leases)
	}
	if strings.Contains(out, "nonce") {
		t.Error("the listing shows a nonce")
	}
	eventually(t, "the reaped tab closed", func() bool { _, ok := h.page(t, tab); return !ok })
	if pg, ok := h.page(t, person); !ok || pg.Title != "visited" {
		t.Fatalf("the person's tab: %+v, open %v", pg, ok)
	}
	// Reading again reaps nothing more.
	if out, _, _ := runCLI(t, "leases", "--state-dir", h.dir); strings.Contains(out, "reaped") || !strings.Contains(out, "dead-pid") {
		t.Errorf("second listing:\n%s", out)
	}
	out, stderr, code = runCLI(t, "release", person, "--state-dir", h.dir)
	if code != 0 || !strings.Contains(out, "left open") {
		t.Errorf("release of the person's tab: %d\n%s%s", code, out, stderr)
	}
	// A run that claims it, acts and ends leaves it open.
	thanks := writeFile(t, dir, "thanks.yaml", "name: thanks\nbrowser: {claim: \"title:visited\"}\nsteps:\n  - eval: \"document.title = 'thanks'\"\n")
	if out, stderr, code := runCLI(t, "run", thanks, "--browser", "shared", "--state-dir", h.dir, "-o", filepath.Join(dir, "thanks"), "--no-video"); code != 0 {
		t.Fatalf("claiming run: %d\n%s%s", code, out, stderr)
	}
	if pg, ok := h.page(t, person); !ok || pg.Title != "thanks" {
		t.Errorf("the person's tab after a claiming run: %+v, open %v", pg, ok)
	}
	// A claim that matches nothing is an error, never a new tab.
	before := len(h.pages(t))
	none := writeFile(t, dir, "none.yaml", "name: none\nbrowser: {claim: \"url:/nowhere\"}\nsteps:\n  - eval: \"1\"\n")
	_, stderr, code = runCLI(t, "run", none, "--browser", "shared", "--state-dir", h.dir, "-o", filepath.Join(dir, "none"), "--no-video")
	if code != exitFailed || !strings.Contains(stderr, "no open tab matches") || len(h.pages(t)) != before {
		t.Errorf("claim matching nothing: %d, %d pages (was %d)\n%s", code, len(h.pages(t)), before, stderr)
	}
	if out, _, _ := runCLI(t, "leases", "--state-dir", h.dir); !strings.Contains(out, "no leases") {
		t.Errorf("leases left:\n%s", out)
	}
}

// Two runs started at the same instant on one host both finish, each with
// its own tab and its own take: each take shows only its own page.
func TestSharedRunsSideBySide(t *testing.T) {
	testenv.Need(t, "ffmpeg")
	h := startHost(t, "15m")
	dir := t.TempDir()
	colours := map[string][3]byte{"red": {255, 0, 0}, "blue": {0, 0, 255}}
	procs := map[string]*cliProc{}
	for name := range colours {
		s := writeFile(t, dir, name+".yaml", fmt.Sprintf("name: %s\nsteps:\n  - goto: \"data:text/html,<title>%s</title><body style='margin:0;background:%s'>\"\n  - pause: 1s\n", name, name, name))
		procs[name] = h.run(t, s, filepath.Join(dir, name), name+"-run")
	}
	for name, p := range procs {
		if c := p.exit(t); c != 0 {
			t.Fatalf("%s run exited %d\n%s", name, c, p.stderr.String())
		}
	}
	for name, want := range colours {
		take := filepath.Join(dir, name, "take")
		tk, err := timeline.Open(take)
		if err != nil {
			t.Fatal(err)
		}
		tl := tk.Timeline
		if tl.Outcome != timeline.RunOK || tl.Capture.Frames.Delivered == 0 {
			t.Errorf("%s: outcome %s, %d frames", name, tl.Outcome, tl.Capture.Frames.Delivered)
		}
		for _, bd := range tl.Boundaries {
			for other := range colours {
				if other != name && bd.URL != nil && strings.Contains(*bd.URL, other) {
					t.Errorf("%s's take has a boundary of %s's page: %s", name, other, *bd.URL)
				}
			}
		}
		frames, _ := filepath.Glob(filepath.Join(take, "frames", "*.jpg"))
		sort.Strings(frames)
		if len(frames) == 0 {
			t.Fatalf("%s: no frames", name)
		}
		px := centre(t, frames[len(frames)-1])
		for i := range 3 {
			if d := int(px[i]) - int(want[i]); d < -40 || d > 40 {
				t.Errorf("%s's last frame is %v in the middle, want %v", name, px[:3], want)
				break
			}
		}
	}
	if out, _, _ := runCLI(t, "leases", "--state-dir", h.dir); !strings.Contains(out, "no leases") {
		t.Errorf("leases left:\n%s", out)
	}
	eventually(t, "the runs' tabs closed, the host's first page left", func() bool { return len(h.pages(t)) == 1 })
}

// The idle host closes leftover http(s) pages once no client has been
// there for the idle timeout, reporting each as tab_reaped with its
// address and why, and never its last window: with only that page left it
// opens a blank tab first.
func TestHostIdleReaper(t *testing.T) {
	t.Parallel() // its own host and state folder; most of it is waiting out TTLs and idle timeouts
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>leftover</title>left here")
	}))
	defer srv.Close()
	h := startHost(t, "2s")
	dir := t.TempDir()
	s := writeFile(t, dir, "left.yaml", "name: left\nsteps:\n  - goto: ${URL}\n  - pause: 120s\n")
	// A lease TTL of 1s and a pause of minutes: the run's heartbeat keeps
	// its lease fresh through the pause, and the run, alive, is a client.
	p := startCLI(t, nil, "run", s, "--browser", "shared", "--state-dir", h.dir, "-o", filepath.Join(dir, "out"), "--no-video", "--label", "left-run", "--lease-ttl", "1s", "-e", "URL="+srv.URL+"/page")
	tab := h.leased(t, p, "left-run", "leftover")
	leasedAt := time.Now()
	// The run is a client: nothing is reaped while it lives. Leave its
	// page the only one, then kill it.
	for _, pg := range h.pages(t) {
		if pg.ID != tab {
			if err := h.b.ClosePage(context.Background(), pg.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Let the idle timeout (2s) pass twice over, with the run alive
	// through its pause: the host, ticking every 500ms, has looked several
	// times since, and must have closed nothing.
	eventually(t, "the idle timeout passed twice over with the run alive", func() bool {
		r, ok := h.leaseOf(t, "left-run")
		return ok && r.Stale == "" && r.Alive && time.Since(leasedAt) > 4*time.Second
	})
	if strings.Contains(h.proc.stdout.String(), "tab_reaped") {
		t.Fatal("a page was reaped while its run was alive")
	}
	if _, open := h.page(t, tab); !open {
		t.Fatal("the live run's page was closed")
	}
	p.cmd.Process.Kill()
	p.exit(t)
	h.proc.waitFor(t, "tab_reaped", func() bool { return strings.Contains(h.proc.stdout.String(), `"tab_reaped"`) })
	var ev struct{ Event, Tab, URL, Why string }
	for _, l := range strings.Split(h.proc.stdout.String(), "\n") {
		if strings.Contains(l, `"tab_reaped"`) {
			json.Unmarshal([]byte(l), &ev)
		}
	}
	// The host knows no run's secrets: it names a tab by its origin.
	if ev.Tab != tab || ev.URL != srv.URL+"/…" || !strings.Contains(ev.Why, "idle") {
		t.Errorf("tab_reaped event %+v, want tab %s at %s/…, idle", ev, tab, srv.URL)
	}
	eventually(t, "one blank page left after the sweep", func() bool {
		pages := h.pages(t)
		return len(pages) == 1 && pages[0].URL == "about:blank"
	})
}

// A run for a shared browser that cannot be is refused before anything
// launches, saying what to do: no host, a remote or credentialed
// endpoint, a claim without a browser to claim in.
func TestSharedRefusedBeforeLaunch(t *testing.T) {
	dir := t.TempDir()
	s := writeFile(t, dir, "s.yaml", "name: s\nsteps:\n  - goto: about:blank\n")
	claim := writeFile(t, dir, "c.yaml", "name: c\nbrowser: {claim: active}\nsteps:\n  - goto: about:blank\n")
	closing := writeFile(t, dir, "k.yaml", "name: k\nbrowser: {close: false}\nsteps:\n  - goto: about:blank\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", s, "--browser", "shared"}, "no browser host is running in " + dir},
		{[]string{"run", s, "--browser", "ws://192.168.1.2:9222/devtools/browser/x"}, "only loopback hosts"},
		{[]string{"run", s, "--browser", "ws://u:p@127.0.0.1:9222/devtools/browser/x"}, "credentials"},
		{[]string{"run", s, "--browser", "ws://127.0.0.1:9222/devtools/browser/x?t=1"}, "queries"},
		{[]string{"run", claim}, "browser.claim takes over a tab of a shared browser"},
		{[]string{"run", closing}, "browser.close decides what happens to the tabs a run gives back to a shared browser"},
		{[]string{"run", s, "--browser", "shared", "--lease-ttl", "0s"}, "--lease-ttl"},
		{[]string{"release", "first"}, "tab selector"},
	} {
		args := append(c.args, "--state-dir", dir, "-o", filepath.Join(dir, "out"), "--no-video")
		if c.args[0] == "release" {
			args = append(c.args, "--state-dir", dir)
		}
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", c.args, code, exitUsage, c.want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("a refused run made its output folder")
	}
	// Nothing runs: status says so, stop has nothing to do.
	if out, _, code := runCLI(t, "browser", "status", "--state-dir", dir); code != exitFailed || !strings.Contains(out, "no browser host") {
		t.Errorf("status: %d %s", code, out)
	}
	if out, _, code := runCLI(t, "browser", "stop", "--state-dir", dir); code != 0 || !strings.Contains(out, "no browser host") {
		t.Errorf("stop: %d %s", code, out)
	}
}

// A run that fails, and one stopped by Ctrl-C, give their leases back and
// close the tabs they opened, like one that passes; the host stays.
func TestSharedRunEndingsRelease(t *testing.T) {
	h := startHost(t, "15m")
	dir := t.TempDir()
	failing := writeFile(t, dir, "failing.yaml", "name: failing\nsteps:\n  - goto: \"data:text/html,<title>failing</title>\"\n  - wait: {text: never there}\n    timeout: 1s\n")
	p := h.run(t, failing, filepath.Join(dir, "failing"), "failing-run")
	if c := p.exit(t); c != exitFailed {
		t.Errorf("failing run exited %d\n%s", c, p.stderr.String())
	}
	long := writeFile(t, dir, "long.yaml", "name: long\nsteps:\n  - goto: \"data:text/html,<title>long</title>\"\n  - pause: 120s\n")
	p = h.run(t, long, filepath.Join(dir, "long"), "long-run")
	tab := h.leased(t, p, "long-run", "long")
	p.cmd.Process.Signal(syscall.SIGINT)
	if c := p.exit(t); c != exitInterrupted {
		t.Errorf("interrupted run exited %d\n%s", c, p.stderr.String())
	}
	eventually(t, "the interrupted run's tab closed", func() bool { _, ok := h.page(t, tab); return !ok })
	eventually(t, "only the host's first page left", func() bool { return len(h.pages(t)) == 1 })
	if out, _, _ := runCLI(t, "leases", "--state-dir", h.dir); !strings.Contains(out, "no leases") {
		t.Errorf("leases left:\n%s", out)
	}
	if _, _, code := runCLI(t, "browser", "status", "--state-dir", h.dir); code != 0 {
		t.Error("the host is gone after the runs")
	}
}

// As a new user does: start a host in the background, run against it,
// stop it; nothing is left behind.
func TestSharedDetachedHost(t *testing.T) {
	testenv.Need(t, "chromium")
	dir := t.TempDir()
	env := []string{"CLAPPER_STATE_DIR=" + dir}
	out, stderr, code := runCLIEnv(t, env, append([]string{"browser", "start", "--detach"}, sandboxArgs()...)...)
	if code != 0 || !strings.HasPrefix(out, "ws://127.0.0.1:") {
		t.Fatalf("browser start --detach: %d\n%s%s", code, out, stderr)
	}
	rec, _, ok := host.Live(dir)
	if !ok || rec.Endpoint != strings.TrimSpace(out) {
		t.Fatalf("host record %+v, %v", rec, ok)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			runCLIEnv(t, env, "browser", "stop")
		}
	})
	if _, stderr, code := runCLIEnv(t, env, append([]string{"browser", "start", "--detach"}, sandboxArgs()...)...); code != exitUsage || !strings.Contains(stderr, "already runs") {
		t.Errorf("a second host in the same folder: %d\n%s", code, stderr)
	}
	s := writeFile(t, t.TempDir(), "s.yaml", "name: s\nsteps:\n  - goto: \"data:text/html,<title>s</title>\"\n")
	if out, stderr, code := runCLIEnv(t, env, "run", s, "--browser", "shared", "-o", filepath.Join(t.TempDir(), "out"), "--no-video"); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, stderr)
	}
	if out, _, code := runCLIEnv(t, env, "browser", "status"); code != 0 || !strings.Contains(out, rec.Endpoint) || !strings.Contains(out, "clients: 0") {
		t.Errorf("status: %d\n%s", code, out)
	}
	out, stderr, code = runCLIEnv(t, env, "browser", "stop")
	stopped = true
	if code != 0 || !strings.Contains(out, "process exited") || !strings.Contains(out, "profile removed") {
		t.Errorf("stop: %d\n%s%s", code, out, stderr)
	}
	waitGone(t, "the host", func() []string { return naming(rec.Profile) })
	if _, err := os.Stat(rec.Profile); !os.IsNotExist(err) {
		t.Errorf("profile left: %v", err)
	}
	if p, ok := procfs.Read(rec.Pid); ok && !p.Zombie() && strings.Contains(p.Cmdline, "browser start") {
		t.Errorf("host pid %d still runs", rec.Pid)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, host.LogFile)); !strings.Contains(string(log), `"host_stopped"`) {
		t.Errorf("host log:\n%s", log)
	}
}
