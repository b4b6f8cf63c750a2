package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/session"
)

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
	_, ffmpegAdvice := film.LookFFmpeg(filepath.Join(dir, "no-such-ffmpeg"))
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
