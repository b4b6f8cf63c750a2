package timeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A pruned take loses its pictures and nothing else: it verifies, with a
// warning that says what went and why; its frames say ErrPruned; what a
// prune stopped midway left behind still matches, an altered leftover or
// a lost timeline does not.
func TestPrune(t *testing.T) {
	dir := copyTake(t)
	before, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	frames, _ := os.ReadDir(filepath.Join(dir, FramesDir))
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	n, bytes, err := Prune(dir, "the script passed", at)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(frames) || n == 0 || bytes <= 0 {
		t.Errorf("pruned %d files (%d bytes), the take had %d pictures", n, bytes, len(frames))
	}
	if left, _ := os.ReadDir(filepath.Join(dir, FramesDir)); len(left) != 0 {
		t.Errorf("%d pictures left", len(left))
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != PrunedManifestVersion || m.Pruned == nil || len(m.Pruned.Files) != n || len(m.Files)+n != len(before.Files) || !m.Pruned.At.Equal(at) || m.Pruned.Why != "the script passed" {
		t.Fatalf("manifest after the prune: version %d, %d files, pruned %+v", m.Version, len(m.Files), m.Pruned)
	}
	v := Verify(dir)
	if err := v.Err(); err != nil {
		t.Fatal(err)
	}
	if len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "frame pictures were removed after the run") || !strings.Contains(v.Warnings[0], "the script passed") {
		t.Errorf("warnings %v", v.Warnings)
	}
	tk, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := tk.Summary(); err != nil || !strings.Contains(s.Pruned, "removed after the run") || !strings.Contains(s.Pruned, "the script passed") {
		t.Errorf("summary: %q, %v", s.Pruned, err)
	}
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tk.ReadFrame(fr); !errors.Is(err, ErrPruned) {
			t.Errorf("frame %d: %v, want ErrPruned", fr.Seq, err)
		}
		break
	}
	// A second prune has nothing to remove and changes nothing.
	if n, _, err := Prune(dir, "again", at); err != nil || n != 0 {
		t.Errorf("second prune: %d, %v", n, err)
	}

	// A picture left by a prune stopped midway matches; altered, it does
	// not.
	first := filepath.Join(dir, filepath.FromSlash(m.Pruned.Files[0].Path))
	orig, _ := os.ReadFile(filepath.Join(keptTake, filepath.FromSlash(m.Pruned.Files[0].Path)))
	os.WriteFile(first, orig, 0o644)
	if err := Verify(dir).Err(); err != nil {
		t.Errorf("an unaltered leftover: %v", err)
	}
	os.WriteFile(first, append(orig, 0), 0o644)
	if err := Verify(dir).Err(); err == nil || !strings.Contains(err.Error(), "pruned file left behind") {
		t.Errorf("an altered leftover: %v", err)
	}
	os.Remove(first)
	// Only frame pictures are pruned: a manifest that says another file
	// was is refused.
	m2 := *m
	m2.Pruned = &Pruning{At: at, Why: "x", Files: append([]Entry{{Path: JournalFile, Size: 1, SHA256: "00"}}, m.Pruned.Files...)}
	if err := m2.write(dir); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir).Err(); err == nil || !strings.Contains(err.Error(), "only frame pictures") {
		t.Errorf("a journal said pruned: %v", err)
	}
	if err := m.write(dir); err != nil {
		t.Fatal(err)
	}
	// The rest stays sealed.
	os.WriteFile(filepath.Join(dir, JournalFile), []byte("{}\n"), 0o644)
	if err := Verify(dir).Err(); err == nil || !strings.Contains(err.Error(), JournalFile) {
		t.Errorf("an altered journal in a pruned take: %v", err)
	}
}

// A manifest's version says whether it has pruned files: 1 never, 2
// always; other versions are refused.
func TestManifestVersions(t *testing.T) {
	p := &Pruning{}
	for _, c := range []struct {
		v      int
		pruned *Pruning
		ok     bool
	}{{1, nil, true}, {2, p, true}, {1, p, false}, {2, nil, false}, {3, p, false}, {0, nil, false}} {
		err := (&Manifest{Version: c.v, Pruned: c.pruned}).CheckVersion()
		if (err == nil) != c.ok {
			t.Errorf("version %d, pruned %v: %v", c.v, c.pruned != nil, err)
		}
	}
	// A take that is not sealed is not pruned.
	dir := copyTake(t)
	os.Remove(filepath.Join(dir, ManifestFile))
	if _, _, err := Prune(dir, "x", time.Now()); err == nil || !strings.Contains(err.Error(), "only a sealed take") {
		t.Errorf("prune without a manifest: %v", err)
	}
}
