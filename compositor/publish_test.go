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
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reserve := func(p *publisher, out string, folder bool) string {
		t.Helper()
		tmp, err := p.reserve(out, folder)
		if err != nil {
			t.Fatalf("reserve %s: %v", out, err)
		}
		beside := filepath.Dir(out)
		if folder {
			beside = filepath.Dir(pngFolder(out))
		}
		if st, err := os.Stat(tmp); err != nil || st.IsDir() != folder || filepath.Dir(tmp) != beside {
			t.Fatalf("reserve %s (folder %v): %s, %v; want it made in %s", out, folder, tmp, err, beside)
		}
		return tmp
	}
	write(filepath.Join(shots, "keep.txt"), "mine")
	write(filepath.Join(shots, "notes.png"), "mine too")
	write(filepath.Join(shots, "000001.png"), "old")
	write(filepath.Join(shots, "000002.png"), "an earlier, longer render's")
	write(filepath.Join(dir, "a.mp4"), "old video")

	p := &publisher{}
	tmpDir := reserve(p, filepath.Join(dir, "shots.png"), true)
	write(filepath.Join(tmpDir, "000001.png"), "new")
	tmp := reserve(p, filepath.Join(dir, "a.mp4"), false)
	write(tmp, "new video")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.mp4")); string(b) != "old video" {
		t.Fatal("destination touched before commit")
	}
	if err := p.commit(); err != nil {
		t.Fatal(err)
	}
	p.abort() // after commit: nothing to remove
	for f, want := range map[string]string{"a.mp4": "new video", "shots/000001.png": "new", "shots/keep.txt": "mine", "shots/notes.png": "mine too"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("%s = %q (%v), want %q", f, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(shots, "000002.png")); !os.IsNotExist(err) {
		t.Errorf("an earlier render's frame is left among this render's: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "a.mp4")); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("published video: %v, %v; want mode 0644", st, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left in the folder: %v", ents)
	}

	// Abort removes what was reserved and not committed, and nothing else.
	p = &publisher{}
	tmp = reserve(p, filepath.Join(dir, "b.webm"), false)
	tmpDir = reserve(p, filepath.Join(dir, "f.png"), true)
	write(filepath.Join(tmpDir, "000001.png"), "frame")
	p.abort()
	for _, f := range []string{tmp, tmpDir} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s survives abort: %v", f, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("after abort, the folder holds %v, want a.mp4 and shots", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.mp4")); string(b) != "new video" {
		t.Errorf("abort touched a published file: %q", b)
	}
}

func TestFramePatternRE(t *testing.T) {
	for _, c := range []struct {
		pattern string
		yes, no []string
	}{
		{"%06d.png", []string{"000001.png", "1234567.png"}, []string{"notes.png", "000001.png.bak", "a000001.png", ".png", "000001.PNG"}},
		{"f%04d.png", []string{"f0001.png", "f12.png"}, []string{"0001.png", "f0001xpng", "g0001.png"}},
		{"shot-%d.png", []string{"shot-1.png", "shot-123.png"}, []string{"shot-.png", "shot-a.png"}},
		{"100%%-%03d.png", []string{"100%-001.png"}, []string{"100%%-001.png", "100-001.png"}},
		{"a.b%d.png", []string{"a.b1.png"}, []string{"axb1.png"}},
	} {
		re := framePatternRE(c.pattern)
		for _, n := range c.yes {
			if !re.MatchString(n) {
				t.Errorf("%s does not match %s", c.pattern, n)
			}
		}
		for _, n := range c.no {
			if re.MatchString(n) {
				t.Errorf("%s matches %s", c.pattern, n)
			}
		}
	}
}
