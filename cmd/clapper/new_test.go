package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// inDir runs the built clapper in dir, as a user does in their folder.
func inDir(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(clapperBin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// clapper new demo && clapper run demo.yaml gives a video of the starter
// site, every step passing, and the take records the version --version
// prints.
func TestNewThenRun(t *testing.T) {
	testenv.Need(t, "chromium", "ffmpeg", "ffprobe")
	dir := t.TempDir()
	if stdout, stderr, code := inDir(t, dir, "new", "demo"); code != 0 || !strings.Contains(stdout, "wrote demo.yaml\n") {
		t.Fatalf("new: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"demo.yaml", "demo-site/index.html", "demo-site/thanks.html", "clapper.schema.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("new wrote no %s: %v", f, err)
		}
	}
	if stdout, stderr, code := inDir(t, dir, "validate", "demo.yaml"); code != 0 || stdout != "demo.yaml: ok\n" {
		t.Fatalf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, stderr, code := inDir(t, dir, append([]string{"run", "demo.yaml", "-q"}, sandboxArgs()...)...); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	video := filepath.Join(dir, "out", "demo", "demo.mp4")
	probe, dur := ffprobe(t, video)
	w, _ := strconv.Atoi(probe["width"])
	h, _ := strconv.Atoi(probe["height"])
	if probe["codec_name"] != "h264" || w != 1280 || h != 720 || dur < 1 {
		t.Fatalf("video: %v, %.2fs", probe, dur)
	}
	if n := distinctColours(decodeFrame(t, video, dur/2, w, h)); n < 10 {
		t.Errorf("the middle frame has %d colours: blank?", n)
	}
	tk, err := timeline.Open(filepath.Join(dir, "out", "demo", "take"))
	if err != nil {
		t.Fatal(err)
	}
	tl := tk.Timeline
	if tl.Outcome != timeline.RunOK || len(tl.Steps) != 9 {
		t.Errorf("take: outcome %s, %d steps", tl.Outcome, len(tl.Steps))
	}
	for _, s := range tl.Steps {
		if s.Outcome != "ok" {
			t.Errorf("step %+v", s)
		}
	}
	v, _, _ := runCLI(t, "--version")
	if want := "clapper " + strings.TrimSpace(strings.TrimPrefix(v, "clapper version ")); tl.Tool != want || strings.HasSuffix(want, " dev") {
		t.Errorf("the take records tool %q, want %q", tl.Tool, want)
	}
}

// new never overwrites: a script or a site folder of that name already
// there is refused (exit 1) and nothing is written; an existing schema is
// kept as it is.
func TestNewRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "demo.yaml"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "clapper.schema.json"), []byte("{}\n"), 0o644)
	_, stderr, code := inDir(t, dir, "new", "demo")
	if code != exitFailed || !strings.Contains(stderr, "demo.yaml already exists: nothing written") {
		t.Errorf("new over a script: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "demo.yaml")); string(b) != "mine\n" {
		t.Errorf("demo.yaml overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo-site")); !os.IsNotExist(err) {
		t.Errorf("a site folder was written beside the refused script: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "tour-site"), 0o755)
	if _, stderr, code := inDir(t, dir, "new", "tour"); code != exitFailed || !strings.Contains(stderr, "tour-site already exists") {
		t.Errorf("new over a site folder: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "tour.yaml")); !os.IsNotExist(err) {
		t.Errorf("tour.yaml written though its site folder exists: %v", err)
	}
	stdout, stderr, code := inDir(t, dir, "new", "other")
	if code != 0 || !strings.Contains(stdout, "kept clapper.schema.json as it is") {
		t.Errorf("new beside a schema: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "clapper.schema.json")); string(b) != "{}\n" {
		t.Errorf("clapper.schema.json overwritten")
	}
	for _, bad := range []string{"", "-x", "a b", "sub/.hidden", "x/"} {
		if _, stderr, code := inDir(t, dir, "new", "--", bad); code != exitUsage {
			t.Errorf("new %q: exit %d (%s), want 2", bad, code, stderr)
		}
	}
	if _, stderr, code := inDir(t, dir, "new", "web", "--url", "example.com"); code != exitUsage || !strings.Contains(stderr, "whole address") {
		t.Errorf("new --url without a scheme: exit %d, %s", code, stderr)
	}
}
