package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// hang bounds every wait in these tests: reaching it means a hang, on any
// machine.
const hang = 60 * time.Second

// syncBuffer is a buffer one goroutine writes while another reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cliProc is the built clapper running in the background.
type cliProc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	exited         chan struct{} // closed once Wait has returned
	waitErr        error
}

// startCLI starts clapper with args and env added to the test's; the
// process is killed and waited for when the test ends, if still running.
func startCLI(t *testing.T, env []string, args ...string) *cliProc {
	t.Helper()
	return startCLIWith(t, env, nil, args...)
}

// startCLIWith is startCLI that hands clapper the extra descriptors extra
// (as 3, 4, ...), as a wrapper holding a lock would.
func startCLIWith(t *testing.T, env []string, extra []*os.File, args ...string) *cliProc {
	t.Helper()
	p := &cliProc{cmd: exec.Command(clapperBin, args...), exited: make(chan struct{})}
	p.cmd.ExtraFiles = extra
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // owned by p: ends when the process exits
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// startPaused starts clapper run of a script that loads about:blank and
// then runs pause (a pause step's text), with its output in dir/out, and
// waits until the pause has begun (its progress line is printed as it
// starts).
func startPaused(t *testing.T, dir, pause string) (p *cliProc, out string) {
	t.Helper()
	path := filepath.Join(dir, "long.yaml")
	os.WriteFile(path, []byte("name: long\nsteps:\n  - goto: about:blank\n  - "+pause+"\n"), 0o644)
	out = filepath.Join(dir, "out")
	p = startCLI(t, nil, append([]string{"run", path, "-o", out, "--no-video"}, sandboxArgs()...)...)
	p.waitFor(t, "step 2 starting", func() bool { return strings.Contains(p.stderr.String(), "step 2/2 pause") })
	return p, out
}

// waitFor waits until cond holds, or fails the test when the process
// exits first or the wait reaches hang.
func (p *cliProc) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(hang)
	for !cond() {
		select {
		case <-p.exited:
			if cond() {
				return
			}
			t.Fatalf("clapper exited before %s: %v\nstderr: %s", what, p.waitErr, p.stderr.String())
		case <-deadline:
			t.Fatalf("no %s within %v\nstderr: %s", what, hang, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// exit waits for the process to end and returns its exit code.
func (p *cliProc) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(hang):
		t.Fatalf("clapper did not exit within %v\nstderr: %s", hang, p.stderr.String())
	}
	var ee *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &ee) {
		t.Fatal(p.waitErr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// waitGone waits until live lists nothing: processes that were killed
// take a moment to be gone.
func waitGone(t *testing.T, what string, live func() []string) {
	t.Helper()
	for deadline := time.Now().Add(hang); ; time.Sleep(10 * time.Millisecond) {
		left := live()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s still running %v after clapper exited: %v", what, hang, left)
			return
		}
	}
}

// signals are the three a run can be stopped by, and the exit code each
// gives: 128 + the signal's number, as a shell reports it.
var signals = []struct {
	sig  syscall.Signal
	code int
}{{syscall.SIGHUP, 129}, {syscall.SIGINT, 130}, {syscall.SIGTERM, 143}}

// A run stopped by SIGINT or SIGTERM during a step exits 130 or 143, keeps
// the take as interrupted, and leaves no browser or profile behind.
func TestSignalsStopRun(t *testing.T) {
	testenv.Need(t, "chromium")
	for _, s := range signals {
		t.Run(s.sig.String(), func(t *testing.T) {
			profiles := len(testenv.Profiles())
			// The signal comes while the pause runs.
			p, out := startPaused(t, t.TempDir(), "pause: 9s")
			if err := p.cmd.Process.Signal(s.sig); err != nil {
				t.Fatal(err)
			}
			if code := p.exit(t); code != s.code {
				t.Errorf("exit %d after %v, want %d\nstderr: %s", code, s.sig, s.code, p.stderr.String())
			}
			if want := "stopped by " + (&signalled{s.sig}).Error(); !strings.Contains(p.stderr.String(), want) {
				t.Errorf("stderr does not say %q: %s", want, p.stderr.String())
			}
			tk, err := timeline.Open(filepath.Join(out, "take"))
			if err != nil {
				t.Fatal(err)
			}
			if tk.Timeline.Outcome != "interrupted" || len(tk.Timeline.Steps) != 2 {
				t.Errorf("take: outcome %q, %d steps; want interrupted in step 2", tk.Timeline.Outcome, len(tk.Timeline.Steps))
			}
			waitGone(t, "the browser", testenv.LiveBrowsers)
			if n := len(testenv.Profiles()); n != profiles {
				t.Errorf("%d browser profiles left, had %d", n, profiles)
			}
		})
	}
}

// A render stopped by SIGINT or SIGTERM while ffmpeg runs exits 130 or
// 143, ends ffmpeg's whole process group and leaves no partial video. The
// stand-in ffmpeg records its pid and sleeps, so the signal comes while it
// runs.
func TestSignalsStopRender(t *testing.T) {
	for _, s := range signals {
		t.Run(s.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			takeDir := writeTestTake(t, dir)
			mark := filepath.Join(dir, "ffmpeg.pid")
			fake := filepath.Join(dir, "slow-ffmpeg")
			os.WriteFile(fake, []byte("#!/bin/sh\necho $$ > \"$FAKE_MARK.tmp\" && mv \"$FAKE_MARK.tmp\" \"$FAKE_MARK\"\nsleep 60\n"), 0o755)
			outDir := filepath.Join(dir, "videos")
			os.Mkdir(outDir, 0o755)
			p := startCLI(t, []string{"FAKE_MARK=" + mark}, "render", takeDir, "-o", filepath.Join(outDir, "x.mp4"), "--ffmpeg", fake, "-q")
			var pid int
			p.waitFor(t, "ffmpeg starting", func() bool {
				b, err := os.ReadFile(mark)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil && pid > 0
			})
			if err := p.cmd.Process.Signal(s.sig); err != nil {
				t.Fatal(err)
			}
			if code := p.exit(t); code != s.code {
				t.Errorf("exit %d after %v, want %d\nstderr: %s", code, s.sig, s.code, p.stderr.String())
			}
			// ffmpeg ran in its own process group: none of it survives.
			waitGone(t, "ffmpeg's process group", func() []string {
				var left []string
				for _, q := range procfs.List() {
					if q.Pgid == pid && !q.Zombie() {
						left = append(left, strconv.Itoa(q.Pid)+" "+q.Cmdline)
					}
				}
				return left
			})
			if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
				t.Errorf("left after an interrupted render: %v", ents)
			}
		})
	}
}

// A run whose capture ends early while its steps pass exits 1, saying so:
// the tab's renderer is killed as the pause step starts (the pause does
// not touch the page, so only the capture notices, within milliseconds;
// the pause only has to outlast that).
func TestCaptureEndedEarly(t *testing.T) {
	testenv.Need(t, "chromium")
	p, out := startPaused(t, t.TempDir(), "pause: 4s\n    timeout: 30s")
	killed := killRenderers(t)
	if killed == 0 {
		t.Fatal("no renderer of clapper's browser found")
	}
	code := p.exit(t)
	stderr := p.stderr.String()
	if code != exitFailed || !strings.Contains(stderr, "capture ended early: renderer crashed") || !strings.Contains(stderr, "the take so far is in") {
		t.Errorf("exit %d, stderr %s; want 1 saying the capture ended early", code, stderr)
	}
	tk, err := timeline.Open(filepath.Join(out, "take"))
	if err != nil {
		t.Fatal(err)
	}
	if r := tk.Timeline.Capture.EndReason; r != "renderer crashed" {
		t.Errorf("take's capture ended %q, want renderer crashed", r)
	}
}

// killRenderers kills the renderer processes of the browsers clapper
// launched from this test binary (their main process names a profile in
// its private folder) and returns how many it killed.
func killRenderers(t *testing.T) int {
	t.Helper()
	procs := procfs.List()
	parent := map[int]int{}
	browsers := map[int]bool{}
	for _, p := range procs {
		parent[p.Pid] = p.PPid
		if strings.Contains(p.Cmdline, "--user-data-dir="+filepath.Join(os.TempDir(), "clapper-profile-")) && !strings.Contains(p.Cmdline, "--type=") {
			browsers[p.Pid] = true
		}
	}
	n := 0
	for _, p := range procs {
		if !strings.Contains(p.Cmdline, "--type=renderer") {
			continue
		}
		for q := parent[p.Pid]; q > 1; q = parent[q] {
			if browsers[q] {
				if err := syscall.Kill(p.Pid, syscall.SIGKILL); err == nil {
					n++
				}
				break
			}
		}
	}
	return n
}
