package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// animatedPage paints something new on every animation frame, so the
// screencast keeps sending frames.
const animatedPage = `<!doctype html><title>anim</title><body style="margin:0">
<div id="box" style="width:120px;height:120px;background:#e33;position:absolute"></div>
<h1 id="t">Ready</h1>
<script>let i=0;(function f(){document.getElementById('box').style.left=(i++%600)+'px';requestAnimationFrame(f)})()</script></body>`

// writeScript writes a site and a script into a temp folder and loads it.
func writeScript(t *testing.T, body string) *scripts.Script {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "site"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "site", "index.html"), []byte(animatedPage), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "test.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scripts.Load(path, scripts.LoadOptions{})
	if err != nil {
		t.Fatalf("load script: %v", err)
	}
	smallByDefault(body, s)
	if testenv.NoSandbox() {
		s.Browser.NoSandbox = true
	}
	return s
}

// Chromium is killed during the pause step, once frames are flowing: that
// step fails saying Chromium is gone, and the take so far is kept whole.
func TestChromiumKilledMidRun(t *testing.T) {
	testenv.Need(t, "chromium")
	s := writeScript(t, `name: kill
serve: ./site
steps:
  - goto: ${serve.url}/index.html
  - wait: {text: Ready}
  - pause: 2m
    timeout: 3m
  - wait: {text: Never}
`)
	take := filepath.Join(t.TempDir(), "take")
	o := RunOptions{TakeDir: take}
	k := killDuringStep(&o, take, 3) // the third step is the pause
	res, err := Run(context.Background(), s, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if kerr := <-k.killed; kerr != nil {
		t.Fatalf("kill: %v", kerr)
	}
	if res.Failed == nil {
		t.Fatal("the run did not fail when Chromium was killed")
	}
	if !errors.Is(res.Failed, ErrBrowserGone) || !strings.Contains(res.Failed.Error(), "chromium is gone") {
		t.Errorf("error does not say Chromium is gone: %v", res.Failed)
	}
	if res.Failed.Index != 2 {
		t.Errorf("failed at step %d, want the pause (2)", res.Failed.Index)
	}
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatalf("the take so far is not readable: %v", err)
	}
	if err := tk.Validate(); err != nil {
		t.Errorf("take: %v", err)
	}
	tl := tk.Timeline
	if tl.Capture.Frames.Delivered < 10 {
		t.Errorf("only %d frames kept", tl.Capture.Frames.Delivered)
	}
	if tl.Capture.EndReason == "stopped" {
		t.Error("capture end reason does not say why it ended")
	}
	if tl.Outcome != timeline.RunFailed || len(tl.Steps) != 3 || tl.Steps[2].Outcome == timeline.OutcomeOK {
		t.Errorf("timeline outcome %q, steps %+v", tl.Outcome, tl.Steps)
	}
	if tl.Cleanup == nil || tl.Cleanup.Profile != "removed" {
		t.Errorf("cleanup receipt: %+v", tl.Cleanup)
	}
	if _, err := os.Stat(k.browser.Profile()); !os.IsNotExist(err) {
		t.Errorf("profile %s left behind", k.browser.Profile())
	}
	if live := browsersLeft(); len(live) > 0 {
		t.Errorf("processes left behind: %v", live)
	}
}

// An interrupt during a step ends the run with the take kept: the run is
// cancelled once its pause has begun and a frame is in.
func TestInterruptKeepsTake(t *testing.T) {
	testenv.Need(t, "chromium")
	s := writeScript(t, `name: interrupt
serve: ./site
steps:
  - goto: ${serve.url}/index.html
  - pause: 2m
    timeout: 3m
`)
	take := filepath.Join(t.TempDir(), "take")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Run(ctx, s, RunOptions{TakeDir: take, Progress: func(p Progress) {
		if p.Step == 2 {
			go func() { // owned by the test: ends with one cancel
				deadline := time.Now().Add(time.Minute)
				for time.Now().Before(deadline) {
					if m, _ := filepath.Glob(filepath.Join(take, "frames", "*.jpg")); len(m) > 0 {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				cancel()
			}()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	tk, oerr := timeline.Open(take)
	if oerr != nil {
		t.Fatalf("take after interrupt: %v", oerr)
	}
	if tk.Timeline.Outcome != timeline.RunInterrupted || tk.Timeline.Capture.Frames.Delivered == 0 || res == nil {
		t.Errorf("outcome %q, delivered %d", tk.Timeline.Outcome, tk.Timeline.Capture.Frames.Delivered)
	}
	if n := len(tk.Timeline.Steps); n != 2 || tk.Timeline.Steps[1].Outcome == timeline.OutcomeOK {
		t.Errorf("steps: %+v, want the pause cut short", tk.Timeline.Steps)
	}
	if tk.Timeline.Cleanup == nil || tk.Timeline.Cleanup.Profile != "removed" {
		t.Errorf("cleanup: %+v", tk.Timeline.Cleanup)
	}
}

// killer is a Chromium a test kills mid-run: browser is the one launched,
// killed the kill's error.
type killer struct {
	browser *Browser
	killed  chan error
}

// killDuringStep sets o up so that Chromium is killed once step has begun
// and frames are flowing into take; the deadlines only bound a hang.
func killDuringStep(o *RunOptions, take string, step int) *killer {
	k := &killer{killed: make(chan error, 1)}
	begun := make(chan struct{})
	o.Progress = func(p Progress) {
		if p.Step == step {
			close(begun)
		}
	}
	o.OnLaunch = func(br *Browser) {
		k.browser = br
		go func() { // owned by the test: ends after one kill
			select {
			case <-begun:
			case <-time.After(2 * time.Minute):
			}
			deadline := time.Now().Add(time.Minute)
			for time.Now().Before(deadline) {
				if m, _ := filepath.Glob(filepath.Join(take, "frames", "*.jpg")); len(m) >= 15 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			k.killed <- br.Kill()
		}()
	}
	return k
}
