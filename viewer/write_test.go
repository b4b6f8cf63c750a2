package viewer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// Folder mode replaces a frames folder it wrote before, and refuses to
// remove one holding anything else.
// reportPlace opens the test take and makes a folder for its report, with
// the report's frames folder made.
func reportPlace(t *testing.T) (tk *timeline.Take, dir, out, frames string) {
	t.Helper()
	tk, err := timeline.Open("../timeline/testdata/v2")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	out = filepath.Join(dir, "report.html")
	frames = FramesDirFor(out)
	os.MkdirAll(frames, 0o755)
	return tk, dir, out, frames
}

func TestFolderModeReplacesOnlyItsOwnFolder(t *testing.T) {
	tk, _, out, frames := reportPlace(t)
	mine := filepath.Join(frames, "notes.txt")
	os.WriteFile(mine, []byte("mine"), 0o644)
	if _, err := Write(tk, out, Options{Frames: ModeFolder}); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("wrote over a folder clapper did not write: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Fatalf("the user's file is gone: %v", err)
	}
	os.Remove(mine)
	os.WriteFile(filepath.Join(frames, "000099.jpg"), []byte("old"), 0o644)
	res, err := Write(tk, out, Options{Frames: ModeFolder})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(frames, "000099.jpg")); !os.IsNotExist(err) || res.Frames == 0 {
		t.Errorf("the old frames folder was not replaced: %v", err)
	}
}

// A report that fails to write its page leaves the report and the frames
// folder it had: the new frames are staged, and put in place only with
// the page.
func TestFailedReportKeepsTheOldFrames(t *testing.T) {
	tk, _, out, frames := reportPlace(t)
	old := filepath.Join(frames, "000099.jpg")
	os.WriteFile(old, []byte("old"), 0o644)
	os.WriteFile(out, []byte("old report"), 0o644)
	os.MkdirAll(out+".tmp", 0o755) // the page cannot be written
	if _, err := Write(tk, out, Options{Frames: ModeFolder}); err == nil {
		t.Fatal("the report was written")
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "old" {
		t.Errorf("the old report's frames were replaced: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "old report" {
		t.Errorf("the old report was replaced: %q", b)
	}
	if _, err := os.Stat(frames + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("the staged frames are left: %v", err)
	}
}

func TestReplaceable(t *testing.T) {
	dir := t.TempDir()
	if err := replaceable(filepath.Join(dir, "none")); err != nil {
		t.Errorf("absent folder: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "000001.jpg"), nil, 0o644)
	if err := replaceable(dir); err != nil {
		t.Errorf("frames only: %v", err)
	}
	for _, name := range []string{"a.jpg", "000001.png", "sub"} {
		d := t.TempDir()
		if name == "sub" {
			os.Mkdir(filepath.Join(d, name), 0o755)
		} else {
			os.WriteFile(filepath.Join(d, name), nil, 0o644)
		}
		if err := replaceable(d); err == nil {
			t.Errorf("a folder holding %s would be removed", name)
		}
	}
}

// When the page cannot be put in place, the old frames come back.
func TestReportPageNotPlacedKeepsTheOldFrames(t *testing.T) {
	tk, _, out, frames := reportPlace(t)
	old := filepath.Join(frames, "000099.jpg")
	os.WriteFile(old, []byte("old"), 0o644)
	os.MkdirAll(filepath.Join(out, "in the way"), 0o755) // out is a folder: the page's rename fails
	if _, err := Write(tk, out, Options{Frames: ModeFolder}); err == nil {
		t.Fatal("the report was written")
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "old" {
		t.Errorf("the old frames did not come back: %v", err)
	}
	for _, p := range []string{frames + ".tmp", frames + ".old"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left: %v", p, err)
		}
	}
}

// A report stops when its context ends, and leaves the old one as it was.
func TestReportStopsWithItsContext(t *testing.T) {
	tk, dir, out, frames := reportPlace(t)
	os.Remove(frames)
	os.WriteFile(out, []byte("old report"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, mode := range []string{ModeEmbedded, ModeFolder} {
		if _, err := Write(tk, out, Options{Frames: mode, Context: ctx}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want it stopped", mode, err)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "old report" {
		t.Errorf("the old report was replaced: %q", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}
