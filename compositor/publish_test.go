package compositor

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPublisher(t *testing.T) {
	dir := t.TempDir()
	shots := filepath.Join(dir, "shots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(shots, "keep.txt"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(shots, "000001.png"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.mp4"), []byte("old video"), 0o644)

	p := &publisher{}
	tmpDir, err := p.reserve(filepath.Join(dir, "shots.png"), true)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmpDir, "000001.png"), []byte("new"), 0o644)
	tmp, _ := p.reserve(filepath.Join(dir, "a.mp4"), false)
	os.WriteFile(tmp, []byte("new video"), 0o644)
	if b, _ := os.ReadFile(filepath.Join(dir, "a.mp4")); string(b) != "old video" {
		t.Fatal("destination touched before commit")
	}
	if err := p.commit(); err != nil {
		t.Fatal(err)
	}
	p.abort() // after commit: nothing to remove
	for f, want := range map[string]string{"a.mp4": "new video", "shots/000001.png": "new", "shots/keep.txt": "mine"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("%s = %q, want %q", f, b, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left in the folder: %v", ents)
	}

	p = &publisher{}
	tmp, _ = p.reserve(filepath.Join(dir, "b.webm"), false)
	tmpDir, _ = p.reserve(filepath.Join(dir, "f.png"), true)
	p.abort()
	for _, f := range []string{tmp, tmpDir} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s survives abort", f)
		}
	}
}
