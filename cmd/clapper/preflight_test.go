package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
)

func TestPreflight(t *testing.T) {
	errChromium := errors.New("chromium not found: install it")
	errFFmpeg := errors.New("ffmpeg not found: install it")
	look := func(have bool, err error, seen *string) func(string) (string, error) {
		return func(p string) (string, error) {
			*seen = p
			if have {
				return "/usr/bin/x", nil
			}
			return "", err
		}
	}
	cases := []struct {
		name             string
		n                runNeeds
		euid             int
		chromium, ffmpeg bool
		want             error
		code             int
	}{
		{"all there", runNeeds{launch: true, render: true}, 1000, true, true, nil, 0},
		{"root with the choice", runNeeds{launch: true, noSandbox: true, render: true}, 0, true, true, nil, 0},
		{"root without the choice", runNeeds{launch: true, render: true}, 0, true, true, session.ErrRootNeedsNoSandbox, exitUsage},
		{"root without the choice, and no Chromium: the sandbox is said first", runNeeds{launch: true}, 0, false, true, session.ErrRootNeedsNoSandbox, exitUsage},
		{"no Chromium", runNeeds{launch: true, render: true}, 1000, false, true, errChromium, exitFailed},
		{"no ffmpeg", runNeeds{launch: true, render: true}, 1000, true, false, errFFmpeg, exitFailed},
		{"no ffmpeg, nothing rendered", runNeeds{launch: true}, 1000, true, false, nil, 0},
		{"attached: no Chromium and root need nothing", runNeeds{render: true}, 0, false, true, nil, 0},
		{"attached, no ffmpeg", runNeeds{render: true}, 0, false, false, errFFmpeg, exitFailed},
	}
	for _, c := range cases {
		var seenC, seenF string
		c.n.chromium, c.n.ffmpeg = "/opt/chrome", "/opt/ffmpeg"
		err := preflight(c.n, c.euid, look(c.chromium, errChromium, &seenC), look(c.ffmpeg, errFFmpeg, &seenF))
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) || exitCode(t.Context(), err) != c.code {
			t.Errorf("%s: %v (exit %d), want %v (exit %d)", c.name, err, exitCode(t.Context(), err), c.want, c.code)
		}
		if seenC != "" && seenC != "/opt/chrome" || seenF != "" && seenF != "/opt/ffmpeg" {
			t.Errorf("%s: looked up %q and %q, not the paths the run was given", c.name, seenC, seenF)
		}
	}
}

// The flag overrides the script's Chromium; a script that attaches
// launches none; --no-video or a script without videos renders nothing.
func TestNeedsOf(t *testing.T) {
	s := loadTestScript(t, "name: n\nbrowser: {chromium: /script/chrome, sandbox: false}\nsteps:\n  - goto: about:blank\n")
	if n := needsOf(s, runOptions{}, "ff"); !n.launch || n.chromium != "/script/chrome" || !n.noSandbox || !n.render || n.ffmpeg != "ff" {
		t.Errorf("script's own: %+v", n)
	}
	if n := needsOf(s, runOptions{chromium: "/flag/chrome", noVideo: true}, "ff"); n.chromium != "/flag/chrome" || n.render {
		t.Errorf("flags: %+v", n)
	}
	a := loadTestScript(t, "name: n\nbrowser: {attach: \"ws://127.0.0.1:9222/devtools/browser/x\"}\nsteps:\n  - goto: about:blank\n")
	if n := needsOf(a, runOptions{noSandbox: true}, ""); n.launch {
		t.Errorf("attached: %+v", n)
	}
}

func loadTestScript(t *testing.T, src string) *scripts.Script {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadScript(path, nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A run without Chromium, or without ffmpeg when it has videos to render,
// stops before anything is launched or written, with the one line of
// advice clapper doctor gives as the fix (exit 1).
func TestRunSaysWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "demo.yaml")
	os.WriteFile(script, []byte("name: demo\nsteps:\n  - goto: about:blank\n"), 0o644)
	launched := filepath.Join(dir, "launched")
	fake := filepath.Join(dir, "fake-chromium")
	os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+launched+"\nexit 1\n"), 0o755)
	_, chromiumAdvice := session.FindChromium(filepath.Join(dir, "no-such-chromium"))
	_, ffmpegAdvice := lookFFmpeg(filepath.Join(dir, "no-such-ffmpeg"))
	for _, c := range []struct {
		name   string
		args   []string
		advice error
	}{
		{"no Chromium", []string{"--chromium", filepath.Join(dir, "no-such-chromium")}, chromiumAdvice},
		{"no ffmpeg", []string{"--chromium", fake, "--ffmpeg", filepath.Join(dir, "no-such-ffmpeg")}, ffmpegAdvice},
	} {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
		_, stderr, code := runCLI(t, append([]string{"run", script, "-o", out, "-q", "--no-sandbox"}, c.args...)...)
		if want := "clapper: " + c.advice.Error() + "\n"; code != exitFailed || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.name, code, stderr, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: output folder made before the check", c.name)
		}
		if _, err := os.Stat(launched); err == nil {
			t.Errorf("%s: Chromium launched", c.name)
		}
	}
	if !strings.Contains(chromiumAdvice.Error(), "apt-get install chromium") || !strings.Contains(ffmpegAdvice.Error(), "apt-get install ffmpeg") {
		t.Errorf("advice without the fix: %v; %v", chromiumAdvice, ffmpegAdvice)
	}
}
