package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// inspect's text output for a take the test writes itself, against
// testdata/inspect.golden (go test -run TestInspectText -update rewrites
// it). Three runs print the same bytes.
func TestInspectText(t *testing.T) {
	takeDir := writeTestTake(t, t.TempDir())
	golden := filepath.Join("testdata", "inspect.golden")
	for run := 0; run < 3; run++ {
		stdout, stderr, code := runCLI(t, "inspect", takeDir)
		if code != 0 {
			t.Fatalf("inspect: exit %d: %s", code, stderr)
		}
		if *update && run == 0 {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run the test with -update to write it)", err)
		}
		if stdout != string(want) {
			t.Fatalf("run %d: inspect printed\n%s\nwant (%s)\n%s", run+1, stdout, golden, want)
		}
	}
}

// inspect --check passes a sound take and fails (exit 1, naming the frame)
// a take whose frame files do not match the index, which plain inspect
// does not read.
func TestInspectCheck(t *testing.T) {
	if _, stderr, code := runCLI(t, "inspect", "--check", writeTestTake(t, t.TempDir())); code != 0 {
		t.Fatalf("sound take: exit %d: %s", code, stderr)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.jpg")
	cases := []struct {
		name   string
		break_ func(t *testing.T, takeDir string)
		want   string
	}{
		{"missing frame", func(t *testing.T, takeDir string) {
			os.Remove(filepath.Join(takeDir, timeline.FramePath(2)))
		}, "take check failed: frame 2: missing file frames/000002.jpg"},
		{"resized frame", func(t *testing.T, takeDir string) {
			os.WriteFile(filepath.Join(takeDir, timeline.FramePath(1)), []byte("short"), 0o644)
		}, "take check failed: frame 1: frames/000001.jpg has 5 bytes"},
		{"symlinked frame", func(t *testing.T, takeDir string) {
			p := filepath.Join(takeDir, timeline.FramePath(3))
			b, _ := os.ReadFile(p)
			os.WriteFile(outside, b, 0o644)
			os.Remove(p)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
		}, "take check failed: frames/000003.jpg is a symbolic link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			takeDir := writeTestTake(t, t.TempDir())
			c.break_(t, takeDir)
			if _, stderr, code := runCLI(t, "inspect", takeDir); code != 0 {
				t.Fatalf("plain inspect: exit %d: %s (it reads no frame files)", code, stderr)
			}
			_, stderr, code := runCLI(t, "inspect", "--check", takeDir)
			if code != exitFailed || !strings.Contains(stderr, c.want) {
				t.Errorf("inspect --check: exit %d, stderr %q; want 1 and %q", code, stderr, c.want)
			}
		})
	}
}

// A render that fails in ffmpeg exits 1 with ffmpeg's own words, keeps the
// take as it was, and leaves no partial video.
func TestRenderFailureExitCode(t *testing.T) {
	dir := t.TempDir()
	takeDir := writeTestTake(t, dir)
	fake := filepath.Join(dir, "fake-ffmpeg")
	os.WriteFile(fake, []byte("#!/bin/sh\ncat >/dev/null\necho 'Error: fake encoder exploded' >&2\nexit 3\n"), 0o755)
	before := snapshotDir(t, takeDir)
	outDir := filepath.Join(dir, "videos")
	os.Mkdir(outDir, 0o755)
	_, stderr, code := runCLI(t, "render", takeDir, "-o", filepath.Join(outDir, "x.mp4"), "--ffmpeg", fake, "-q")
	if code != exitFailed || !strings.Contains(stderr, "fake encoder exploded") || !strings.Contains(stderr, "is kept") {
		t.Errorf("render with a failing ffmpeg: exit %d, stderr %q; want 1 naming ffmpeg's error", code, stderr)
	}
	if after := snapshotDir(t, takeDir); after != before {
		t.Error("the take changed in a failed render")
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
		t.Errorf("left after a failed render: %v", ents)
	}
}

// A hostile take that names a program in render.json is refused by
// render, and nothing is executed.
func TestRenderRefusesATakeThatNamesAProgram(t *testing.T) {
	dir := t.TempDir()
	takeDir := writeTestTake(t, dir)
	marker := filepath.Join(dir, "ran")
	evil := filepath.Join(dir, "evil")
	os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\nexec ffmpeg \"$@\"\n"), 0o755)
	os.WriteFile(filepath.Join(takeDir, "render.json"), []byte(`{"video": ["v.mp4"], "options": {"ffmpeg": "`+evil+`"}}`), 0o644)
	_, stderr, code := runCLI(t, "render", takeDir, "-q")
	if code == exitOK || !strings.Contains(stderr, "output.ffmpeg: the ffmpeg program is chosen on the command line") {
		t.Errorf("render of a take naming a program: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the program the take named was run")
	}
	if _, err := os.Stat(filepath.Join(dir, "v.mp4")); err == nil {
		t.Error("a video was made from a refused take")
	}
}
