package timeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keptTake is a take written by clapper in the current format (regenerate
// it with the script in testdata/src). It must keep opening and verifying
// as the format moves on.
const keptTake = "testdata/v2"

func TestKeptTakeOpensAndVerifies(t *testing.T) {
	tk, err := Open(keptTake)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Timeline.Outcome != RunFailed || len(tk.Timeline.Steps) != 7 || len(tk.Timeline.Boundaries) < 3 {
		t.Errorf("kept take: outcome %s, %d steps, %d boundaries", tk.Timeline.Outcome, len(tk.Timeline.Steps), len(tk.Timeline.Boundaries))
	}
	v := Verify(keptTake)
	if err := v.Err(); err != nil {
		t.Fatal(err)
	}
	if v.Manifest == nil || len(v.Warnings) != 0 || v.Manifest.Chromium == "" || v.Manifest.Capture == "" {
		t.Errorf("manifest %+v, warnings %v", v.Manifest, v.Warnings)
	}
}

// copyTake copies the kept take into a temporary folder.
func copyTake(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "take")
	err := filepath.WalkDir(keptTake, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(keptTake, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editTimeline rewrites timeline.json through fn, as raw JSON.
func editTimelineJSON(t *testing.T, dir string, fn func(map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, TimelineFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// remanifest rewrites the manifest so that only the corruption under test
// is found.
func remanifest(t *testing.T, dir string) {
	t.Helper()
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tl Timeline
	b, _ := os.ReadFile(filepath.Join(dir, TimelineFile))
	_ = json.Unmarshal(b, &tl)
	if _, err := WriteManifest(dir, &tl, ManifestInfo{Revision: m.Revision, Chromium: m.Chromium}); err != nil {
		t.Fatal(err)
	}
}

// Each corruption is one clear problem naming the file and what is wrong.
func TestVerifyFindsEachCorruption(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		file   string
		what   string
	}{
		{"unknown version", func(t *testing.T, dir string) {
			editTimelineJSON(t, dir, func(m map[string]any) { m["version"] = 99 })
			remanifest(t, dir)
		}, TimelineFile, "version 99 is not supported"},
		{"missing frame", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "frames/000002.jpg"))
			remanifest(t, dir)
		}, "frames/000002.jpg", "missing: frames.jsonl lists it"},
		{"missing file in manifest", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "script.yaml"))
		}, "script.yaml", "missing: the manifest lists it"},
		{"extra file", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi"), 0o644)
		}, "notes.txt", "extra: the manifest does not list it"},
		{"altered file, same size", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "frames/000005.jpg")
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}, "frames/000005.jpg", "altered: its SHA-256 does not match"},
		{"altered file, other size", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "render.json")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b, ' '), 0o644)
		}, "render.json", "altered: "},
		{"broken accounting", func(t *testing.T, dir string) {
			editTimelineJSON(t, dir, func(m map[string]any) {
				m["capture"].(map[string]any)["frames"].(map[string]any)["received"] = 1000
			})
			remanifest(t, dir)
		}, TimelineFile, "frame accounting does not balance"},
		{"step time backwards", func(t *testing.T, dir string) {
			editTimelineJSON(t, dir, func(m map[string]any) {
				st := m["steps"].([]any)[3].(map[string]any)
				st["end"] = st["start"].(float64) - 1
			})
			remanifest(t, dir)
		}, TimelineFile, "step 4 ends"},
		{"steps out of order", func(t *testing.T, dir string) {
			editTimelineJSON(t, dir, func(m map[string]any) {
				m["steps"].([]any)[2].(map[string]any)["start"] = 0
			})
			remanifest(t, dir)
		}, TimelineFile, "step 3 starts"},
		{"frame index shorter than the accounting", func(t *testing.T, dir string) {
			p := filepath.Join(dir, FramesFile)
			b, _ := os.ReadFile(p)
			lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
			os.WriteFile(p, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)
			remanifest(t, dir)
		}, FramesFile, "the accounting in timeline.json says"},
		{"frame source times backwards", func(t *testing.T, dir string) {
			p := filepath.Join(dir, FramesFile)
			b, _ := os.ReadFile(p)
			lines := strings.SplitAfter(string(b), "\n")
			lines[3], lines[4] = lines[4], lines[3]
			os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644)
			remanifest(t, dir)
		}, FramesFile, "does not follow"},
		{"frame file wrong size", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "frames/000001.jpg"), []byte("x"), 0o644)
			remanifest(t, dir)
		}, "frames/000001.jpg", "frames.jsonl says"},
		{"frame file not indexed", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "frames/999999.jpg"), []byte("x"), 0o644)
			remanifest(t, dir)
		}, "frames/999999.jpg", "not in frames.jsonl"},
		{"extra file named .tmp", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "payload.tmp"), []byte("hi"), 0o644)
		}, "payload.tmp", "extra: the manifest does not list it"},
		{"extra file named .tmp in a folder", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "x"), 0o755)
			os.WriteFile(filepath.Join(dir, "x/evil.tmp"), []byte("hi"), 0o644)
		}, "x/evil.tmp", "extra: the manifest does not list it"},
		{"temporary manifest left in a sealed take", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ManifestFile+".tmp"), []byte("hi"), 0o644)
		}, ManifestFile + ".tmp", "extra: the manifest does not list it"},
		{"manifest not JSON", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{"), 0o644)
		}, ManifestFile, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyTake(t)
			c.break_(t, dir)
			v := Verify(dir)
			if v.OK() {
				t.Fatal("the broken take verified")
			}
			found := false
			for _, p := range v.Problems {
				if p.File == c.file && strings.Contains(p.What, c.what) {
					found = true
				}
			}
			if !found {
				t.Errorf("want a problem in %s saying %q; got %v", c.file, c.what, v.Problems)
			}
			if err := v.Err(); err == nil || !strings.Contains(err.Error(), c.file+": ") {
				t.Errorf("error does not name %s: %v", c.file, err)
			}
		})
	}
}

// A take written before manifests verifies with a warning.
func TestVerifyWithoutManifestWarns(t *testing.T) {
	dir := copyTake(t)
	os.Remove(filepath.Join(dir, ManifestFile))
	v := Verify(dir)
	if err := v.Err(); err != nil {
		t.Fatal(err)
	}
	if len(v.Warnings) != 1 || v.Warnings[0] != NoManifestWarning {
		t.Errorf("warnings %v", v.Warnings)
	}
}

// The manifest lists every file but itself, sorted, and is rewritten
// atomically (no temporary file left).
func TestWriteManifest(t *testing.T) {
	dir := copyTake(t)
	tk, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := WriteManifest(dir, tk.Timeline, ManifestInfo{Revision: "abc", Chromium: "Chrome/1"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Revision != "abc" || m.Chromium != "Chrome/1" || m.Viewport.Width != 640 || m.Started.IsZero() || m.Capture != "screencast/jpeg" {
		t.Errorf("manifest %+v", m)
	}
	seen := map[string]bool{}
	for i, e := range m.Files {
		if e.Path == ManifestFile || len(e.SHA256) != 64 || (i > 0 && m.Files[i-1].Path >= e.Path) {
			t.Errorf("entry %d: %+v", i, e)
		}
		seen[e.Path] = true
	}
	for _, want := range []string{TimelineFile, FramesFile, ScriptFile, "frames/000000.jpg"} {
		if !seen[want] {
			t.Errorf("%s not listed", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile+".tmp")); !os.IsNotExist(err) {
		t.Errorf("temporary manifest left: %v", err)
	}
	if v := Verify(dir); !v.OK() {
		t.Error(v.Err())
	}
}

func TestCheckEntryPath(t *testing.T) {
	for p, ok := range map[string]bool{
		"timeline.json": true, "frames/000001.jpg": true,
		"": false, "/etc/passwd": false, "../x": false, "frames/../../x": false, "a//b": false, "./a": false, `a\b`: false, "frames/": false,
	} {
		if err := checkEntryPath(p); (err == nil) != ok {
			t.Errorf("checkEntryPath(%q) = %v", p, err)
		}
	}
}

// The kept take records what its page said, errors first in the summary.
func TestKeptTakePageLog(t *testing.T) {
	tk, err := Open(keptTake)
	if err != nil {
		t.Fatal(err)
	}
	s := SummarizePage(tk.Timeline.Page, tk.Timeline.Start)
	if s == nil || s.Exceptions != 1 || s.ConsoleErrors != 1 || s.FailedRequests < 1 || len(s.Errors) != s.Exceptions+s.ConsoleErrors+s.FailedRequests {
		t.Fatalf("page summary %+v", s)
	}
	for i := 1; i < len(s.Errors); i++ {
		if s.Errors[i].AtMs < s.Errors[i-1].AtMs {
			t.Errorf("errors out of order")
		}
	}
	if SummarizePage(nil, 0) != nil {
		t.Error("a take without a page log summarises one")
	}
}

func TestPageEventBad(t *testing.T) {
	for e, want := range map[PageEvent]bool{
		{Kind: PageConsole, Level: "error"}: true, {Kind: PageConsole, Level: "warning"}: false,
		{Kind: PageException}: true, {Kind: PageRequest, Status: 200}: false, {Kind: PageRequest, Status: 404}: true,
		{Kind: PageRequest, Failed: "net::ERR"}: true, {Kind: "other"}: false,
	} {
		if e.Bad() != want {
			t.Errorf("%+v.Bad() = %v", e, !want)
		}
	}
}

// A run into the folder of an earlier take removes that take's manifest
// before anything else: if the run is killed, its take has no manifest (and
// opens with a warning) rather than one sealing the files of the run
// before.
func TestCreateTakeRemovesTheOldManifest(t *testing.T) {
	dir := copyTake(t)
	os.WriteFile(filepath.Join(dir, ManifestFile+".tmp"), []byte("{"), 0o644)
	log, err := CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	for _, name := range []string{ManifestFile, ManifestFile + ".tmp"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s kept after CreateTake: %v", name, err)
		}
	}
	if _, err := ReadManifest(dir); !os.IsNotExist(err) {
		t.Errorf("ReadManifest after CreateTake: %v", err)
	}
}

// Only clapper's own temporary names at the take's root are left out of a
// manifest being built.
func TestSkipFile(t *testing.T) {
	for rel, want := range map[string]bool{
		ManifestFile: true, ManifestFile + ".tmp": true, TimelineFile + ".tmp": true,
		"payload.tmp": false, "x/manifest.json.tmp": false, "frames/000001.jpg.tmp": false, TimelineFile: false,
	} {
		if got := skipFile(rel); got != want {
			t.Errorf("skipFile(%q) = %v, want %v", rel, got, want)
		}
	}
}
