package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A take's render.json names outputs that render only creates: a frame
// pattern that matches files beside the take, a name that is the take
// folder itself, or a video that already exists are refused, naming the
// file, and nothing beside the take is removed or overwritten.
func TestRenderTakeNamesOnlyMakeNewFiles(t *testing.T) {
	for _, c := range []struct {
		name, video string
		existing    []string
		refused     string
	}{
		{"frame pattern over photos", "IMG_%04d.png", []string{"IMG_0001.png", "IMG_2024.png", "IMG_123456.png"}, "already exists"},
		{"the take folder", "take.png", nil, "take already exists"},
		{"an existing video", "v.mp4", []string{"v.mp4"}, "v.mp4 already exists"},
		{"a new name", "w.mp4", []string{"x.mp4"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			takeDir := writeTestTake(t, dir)
			os.WriteFile(filepath.Join(takeDir, "render.json"), []byte(`{"video": ["`+c.video+`"]}`), 0o644)
			for _, e := range c.existing {
				os.WriteFile(filepath.Join(dir, e), []byte("the user's "+e), 0o644)
			}
			before := snapshotDir(t, dir)
			_, stderr, code := runCLI(t, "render", takeDir, "-q")
			if c.refused == "" {
				if code != exitOK {
					t.Fatalf("render to a new name: exit %d: %s", code, stderr)
				}
				if st, err := os.Stat(filepath.Join(dir, c.video)); err != nil || st.Size() == 0 {
					t.Errorf("%s was not made: %v", c.video, err)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, "x.mp4")); string(b) != "the user's x.mp4" {
					t.Errorf("x.mp4 was changed: %q", b)
				}
				return
			}
			if code != exitFailed || !strings.Contains(stderr, c.refused) || !strings.Contains(stderr, "-o ") {
				t.Errorf("render: exit %d, stderr %q; want exit %d naming %q", code, stderr, exitFailed, c.refused)
			}
			if after := snapshotDir(t, dir); after != before {
				t.Errorf("render of a hostile take changed the folder beside it:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// Text from a page or a take reaches the terminal with its control
// characters escaped visibly: inspect never emits an escape sequence.
func TestInspectEscapesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	takeDir := writeTestTake(t, dir)
	p := filepath.Join(takeDir, "timeline.json")
	b, _ := os.ReadFile(p)
	hostile := `\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;ZXZpbA==\u0007`
	b = []byte(strings.Replace(string(b), `"step 4 (expect) failed"`, `"step 4 failed `+hostile+`"`, 1))
	b = []byte(strings.Replace(string(b), `"Open the form"`, `"Open `+hostile+`"`, 1))
	os.WriteFile(p, b, 0o644)
	stdout, stderr, code := runCLI(t, "inspect", takeDir)
	if code != exitOK && code != exitFailed {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stdout+stderr, "\x1b\x07") {
		t.Errorf("inspect printed a raw control character:\n%q", stdout)
	}
	if !strings.Contains(stdout, `\x1b[2J`) || !strings.Contains(stdout, `\x1b]0;pwned\x07`) {
		t.Errorf("inspect does not show the escaped sequence:\n%s", stdout)
	}
}
