package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// surviveScript types, navigates and pauses, so a kill can land in each.
const surviveScript = `name: survive
serve: ./site
browser: {viewport: {width: 640, height: 360}}
defaults: {type_delay: 60ms}
output: {video: survive.mp4, fps: 30}
steps:
  - goto: ${serve.url}/one.html
  - wait: {text: One}
  - type: {into: "#name", text: "typed slowly, one key at a time"}
  - goto: ${serve.url}/two.html
  - wait: {text: Two}
  - pause: 1500ms
`

// surviveSaid is what the second page says on its console.
const surviveSaid = "it was here before the kill"

func writeSurviveScript(t *testing.T, dir string) string {
	t.Helper()
	site := filepath.Join(dir, "site")
	os.MkdirAll(site, 0o755)
	os.WriteFile(filepath.Join(site, "one.html"), []byte(`<!doctype html><title>One</title><h1>One</h1><input id="name">`), 0o644)
	// The message is said before the heading shows, so it was heard by the
	// time the wait for it passes.
	os.WriteFile(filepath.Join(site, "two.html"), []byte(`<!doctype html><title>Two</title><script>console.error("two says `+surviveSaid+`")</script><h1>Two</h1>`), 0o644)
	path := filepath.Join(dir, "survive.yaml")
	os.WriteFile(path, []byte(surviveScript), 0o644)
	return path
}

func fileHas(path, s string) bool {
	b, _ := os.ReadFile(path)
	return bytes.Contains(b, []byte(s))
}

// hasChild reports whether pid has a child process named comm.
func hasChild(pid int, comm string) bool {
	for _, p := range procfs.List() {
		if p.PPid == pid && p.Comm == comm && !p.Zombie() {
			return true
		}
	}
	return false
}

// kill -9 of a run, as a separate process, at each point it can be caught
// (launching, mid-step, mid-typing, just after a navigation, rendering),
// leaves a take that inspect, inspect --check and render open, with every
// step that started and every boundary committed; the next run removes
// what the killed one left in the temporary folder (the next case's run,
// and after the last a quick run).
func TestKilledRunLeavesATake(t *testing.T) {
	testenv.Need(t, "chromium", "ffmpeg")
	var before []string // what the case before left
	for _, c := range []struct {
		name   string
		when   func(p *cliProc, take string) bool
		frames bool // frames were flowing by then
	}{
		{"launching", func(p *cliProc, take string) bool { // the profile is made and named, the browser starting
			owned, _ := filepath.Glob(filepath.Join(os.TempDir(), "clapper-profile-*", "clapper-owner.json"))
			return len(owned) > 0
		}, false},
		{"mid-typing", func(p *cliProc, take string) bool {
			return fileHas(filepath.Join(take, timeline.JournalFile), `"kind":"key"`)
		}, true},
		{"after a navigation", func(p *cliProc, take string) bool {
			return fileHas(filepath.Join(take, timeline.JournalFile), `"document":2`)
		}, true},
		{"mid-step", func(p *cliProc, take string) bool { return strings.Contains(p.stderr.String(), "step 6/6 pause") }, true},
		{"rendering", func(p *cliProc, take string) bool { return hasChild(p.cmd.Process.Pid, "ffmpeg") }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			script := writeSurviveScript(t, dir)
			out := filepath.Join(dir, "out")
			take := filepath.Join(out, "take")
			p := startCLI(t, nil, append([]string{"run", script, "-o", out}, sandboxArgs()...)...)
			p.waitFor(t, c.name, func() bool { return c.when(p, take) })
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			p.exit(t)
			for _, l := range before {
				if _, err := os.Stat(l); err == nil {
					t.Errorf("%s, left by the case before, is still there after this case's run started", l)
				}
			}
			left := testenv.Profiles()
			before = leftovers()

			stdout, stderr, code := runCLI(t, "inspect", take, "--check")
			if code != 0 {
				t.Fatalf("inspect --check of the killed run's take: exit %d\n%s%s", code, stdout, stderr)
			}
			tk, err := timeline.Open(take)
			if err != nil {
				t.Fatal(err)
			}
			tl := tk.Timeline
			if c.name != "rendering" { // the run had written its timeline before rendering
				if tl.Recovered == nil || !strings.Contains(stdout, "recovered: ended abruptly") {
					t.Errorf("inspect does not say the take was recovered:\n%s", stdout)
				}
			}
			journal, _ := os.ReadFile(filepath.Join(take, timeline.JournalFile))
			if started := startedSteps(t, journal); len(tl.Steps) != started {
				t.Errorf("%d steps in the take, %d started", len(tl.Steps), started)
			}
			if committed := bytes.Count(journal, []byte(`"k":"boundary"`)); len(tl.Boundaries) != committed {
				t.Errorf("%d boundaries in the take, %d committed", len(tl.Boundaries), committed)
			}
			if c.name == "mid-step" { // the second page had spoken before the pause
				said := false
				if tl.Page != nil {
					for _, e := range tl.Page.Events {
						said = said || (e.Kind == timeline.PageConsole && e.Level == "error" && strings.Contains(e.Text, surviveSaid))
					}
				}
				if !said {
					t.Errorf("the recovered take lost the console message said before the kill: %+v", tl.Page)
				}
			}
			if c.frames {
				if tl.Capture.Frames.Delivered == 0 {
					t.Fatal("no frames kept")
				}
				video := filepath.Join(dir, "recovered.mp4")
				if _, stderr, code := runCLI(t, "render", take, "-o", video, "-q"); code != 0 {
					t.Fatalf("render of the killed run's take: exit %d: %s", code, stderr)
				}
				if _, err := os.Stat(video); err != nil {
					t.Fatal(err)
				}
			}
			// The next run cleans what the killed one left.
			if len(left) == 0 && c.name != "rendering" { // a rendering run had cleaned its browser up
				t.Fatal("the killed run left no profile: the sweep is not tested")
			}
			waitGone(t, "the killed run's browser", testenv.LiveBrowsers)
		})
	}
	// A quick run cleans what the last case left.
	dir := t.TempDir()
	quick := filepath.Join(dir, "quick.yaml")
	os.WriteFile(quick, []byte("name: quick\nsteps:\n  - goto: about:blank\n"), 0o644)
	if _, stderr, code := runCLI(t, append([]string{"run", quick, "-o", filepath.Join(dir, "next"), "--no-video"}, sandboxArgs()...)...); code != 0 {
		t.Fatalf("the next run: exit %d: %s", code, stderr)
	}
	if rest := leftovers(); len(rest) != 0 {
		t.Errorf("left after the next run: %v", rest)
	}
}

// leftovers are the browser profiles and render work folders in the
// temporary folder: what a killed run leaves for the next to sweep.
func leftovers() []string {
	work, _ := filepath.Glob(filepath.Join(os.TempDir(), "clapper-render-*"))
	return append(testenv.Profiles(), work...)
}

// The sweep never touches a live run's profile; two runs on one output
// folder: the second is refused before launching, and the first's take
// checks.
func TestOneWriterPerTake(t *testing.T) {
	testenv.Need(t, "chromium")
	dir := t.TempDir()
	a, out := startPaused(t, dir, "pause: 20s")
	long := filepath.Join(dir, "long.yaml")
	profiles := testenv.Profiles()
	if len(profiles) != 1 {
		t.Fatalf("profiles while one run lives: %v", profiles)
	}
	// A second run on the same folder.
	_, stderr, code := runCLI(t, append([]string{"run", long, "-o", out, "--no-video"}, sandboxArgs()...)...)
	if code != exitUsage || !strings.Contains(stderr, "is in use by clapper run "+long) || !strings.Contains(stderr, "pass another -o") {
		t.Errorf("a second run on the same folder: exit %d: %s", code, stderr)
	}
	// A render into it.
	if _, stderr, code := runCLI(t, "render", filepath.Join(out, "take"), "-q"); code != exitUsage || !strings.Contains(stderr, "is in use by") {
		t.Errorf("render into a folder a run holds: exit %d: %s", code, stderr)
	}
	// Another run elsewhere sweeps nothing of the live one.
	quick := filepath.Join(dir, "quick.yaml")
	os.WriteFile(quick, []byte("name: quick\nsteps:\n  - goto: about:blank\n"), 0o644)
	if _, stderr, code := runCLI(t, append([]string{"run", quick, "-o", filepath.Join(dir, "other"), "--no-video"}, sandboxArgs()...)...); code != 0 {
		t.Fatalf("a run beside a live one: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(profiles[0]); err != nil {
		t.Errorf("the live run's profile was swept: %v", err)
	}
	a.cmd.Process.Signal(syscall.SIGINT)
	if code := a.exit(t); code != exitInterrupted {
		t.Errorf("the first run: exit %d\n%s", code, a.stderr.String())
	}
	if stdout, stderr, code := runCLI(t, "inspect", filepath.Join(out, "take"), "--check"); code != 0 {
		t.Errorf("the first run's take: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, film.LockFile)); !os.IsNotExist(err) {
		t.Errorf("the lock is left after the run: %v", err)
	}
}

// Closing a run's terminal (SIGHUP, from a real pseudo-terminal) stops it
// like Ctrl-C: exit 129, the take kept and whole.
func TestClosedTerminalKeepsTheTake(t *testing.T) {
	testenv.Need(t, "chromium")
	master, slave := openPTY(t)
	dir := t.TempDir()
	long := filepath.Join(dir, "long.yaml")
	os.WriteFile(long, []byte("name: long\nsteps:\n  - goto: about:blank\n  - pause: 20s\n"), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(clapperBin, append([]string{"run", long, "-o", out, "--no-video"}, sandboxArgs()...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	stopDrain, drained := make(chan struct{}), make(chan struct{})
	go func() { // owned by the test: drains the terminal until told to stop
		defer close(drained)
		buf := make([]byte, 4096)
		for {
			select {
			case <-stopDrain:
				return
			default:
			}
			master.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err := master.Read(buf); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				return
			}
		}
	}()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // owned by the test: ends with the process
	journal := filepath.Join(out, "take", timeline.JournalFile)
	for deadline := time.Now().Add(hang); !fileHas(journal, `"kind":"pause"`); time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatal("the run ended before its pause")
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no pause within %v", hang)
		}
	}
	// The terminal goes away (no read of it is under way, so the close
	// is the last): the kernel hangs the session up.
	close(stopDrain)
	<-drained
	master.Close()
	select {
	case <-exited:
	case <-time.After(hang):
		cmd.Process.Kill()
		<-exited
		t.Fatal("the run did not end when its terminal closed")
	}
	code := cmd.ProcessState.ExitCode()
	if code != 129 {
		t.Errorf("exit %d after the terminal closed, want 129", code)
	}
	tk, err := timeline.Open(filepath.Join(out, "take"))
	if err != nil {
		t.Fatal(err)
	}
	if tk.Timeline.Recovered != nil || tk.Timeline.Outcome != timeline.RunInterrupted {
		t.Errorf("take: outcome %s, recovered %+v", tk.Timeline.Outcome, tk.Timeline.Recovered)
	}
	if err := tk.Validate(); err != nil {
		t.Error(err)
	}
	waitGone(t, "the browser", testenv.LiveBrowsers)
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminals here: %v", err)
	}
	// Through SyscallConn, not Fd: Fd would make the file blocking, and
	// then a read under way would keep it open past Close.
	rc, err := m.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr == nil {
			n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	}); err != nil || ierr != nil {
		t.Fatal(err, ierr)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// startedSteps counts the steps a journal says started: a running step's
// start record may come again with what it found (its element's box).
func startedSteps(t *testing.T, journal []byte) int {
	t.Helper()
	seen := map[int]bool{}
	for _, ln := range bytes.Split(journal, []byte("\n")) {
		var l struct {
			K string `json:"k"`
			V struct {
				Index int `json:"index"`
			} `json:"v"`
		}
		if json.Unmarshal(ln, &l) == nil && l.K == timeline.JournalStepStart {
			seen[l.V.Index] = true
		}
	}
	return len(seen)
}

// kill -9 of a run takes its browser with it, live (Chromium) and studio
// (the headless shell, whose Debian wrapper script starts the browser
// without exec'ing it): within a few seconds no process the run started
// is left, and nothing holds its DevTools port.
func TestKilledRunTakesItsBrowser(t *testing.T) {
	testenv.Need(t, "chromium", "chromium-headless-shell")
	for _, capture := range []string{"live", "studio"} {
		t.Run(capture, func(t *testing.T) {
			dir := t.TempDir()
			script := writeSurviveScript(t, dir)
			// A descriptor clapper inherits (a CI wrapper's lock) is not
			// handed on to the browser.
			lock, err := os.Create(filepath.Join(dir, "ci.lock"))
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Close()
			p := startCLIWith(t, nil, []*os.File{lock}, append([]string{"run", script, "-o", filepath.Join(dir, "out"), "--no-video", "--capture", capture}, sandboxArgs()...)...)
			p.waitFor(t, "the second step", func() bool { return strings.Contains(p.stderr.String(), "step 2/") })
			family := map[int]bool{}
			for _, q := range procfs.Descendants(procfs.List(), p.cmd.Process.Pid) {
				family[q.Pid] = true
				fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", q.Pid))
				for _, fd := range fds {
					if to, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", q.Pid, fd.Name())); to == lock.Name() {
						t.Errorf("%d %s holds clapper's inherited descriptor %s", q.Pid, q.Comm, to)
					}
				}
			}
			if len(family) == 0 {
				t.Fatal("the run has no child processes")
			}
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			p.exit(t)
			deadline := time.Now().Add(5 * time.Second)
			for {
				var left []string
				for _, q := range procfs.List() {
					if family[q.Pid] && !q.Zombie() {
						left = append(left, fmt.Sprintf("%d %s", q.Pid, q.Comm))
					}
				}
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					for pid := range family {
						syscall.Kill(pid, syscall.SIGKILL)
					}
					t.Fatalf("5 s after kill -9 of the run, its processes still run: %v", left)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	// The next run sweeps the profiles the killed ones left.
	dir := t.TempDir()
	quick := filepath.Join(dir, "quick.yaml")
	os.WriteFile(quick, []byte("name: quick\nsteps:\n  - goto: about:blank\n"), 0o644)
	if _, stderr, code := runCLI(t, append([]string{"run", quick, "-o", filepath.Join(dir, "next"), "--no-video", "-q"}, sandboxArgs()...)...); code != 0 {
		t.Fatalf("the next run: exit %d: %s", code, stderr)
	}
}
