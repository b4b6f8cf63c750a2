package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Playwright finds its ffmpeg under the revision its browsers.json names.
func TestFFmpegRevision(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"browsers":[{"name":"chromium","revision":"1255"},{"name":"ffmpeg","revision":"1013"}]}`, "1013"},
		{`{"browsers":[{"name":"chromium","revision":"1255"}]}`, "error"},
		{`{"browsers":[{"name":"ffmpeg"}]}`, "error"},
		{`not json`, "error"},
	} {
		got, err := ffmpegRevision([]byte(c.in))
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("ffmpegRevision(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// --playwright takes the package folder or a folder holding it in
// node_modules, and says how to install it when neither is there.
func TestFindPlaywright(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "playwright-core")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"playwright-core","version":"1.65.2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, pkg} {
		got, err := FindPlaywright(d)
		if err != nil || got != pkg {
			t.Errorf("FindPlaywright(%s) = %q, %v; want %s", d, got, err, pkg)
		}
	}
	if v := playwrightVersion(pkg); v != "1.65.2" {
		t.Errorf("version %q, want 1.65.2", v)
	}
	empty := t.TempDir()
	if _, err := FindPlaywright(empty); err == nil || !strings.Contains(err.Error(), "npm install --prefix "+empty+" playwright-core@"+PlaywrightVersion) {
		t.Errorf("an empty folder: %v, want how to install playwright-core", err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "package.json"), []byte(`{"name":"playwright"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindPlaywright(other); err == nil {
		t.Error("another package was taken for playwright-core")
	}
}

// The Playwright script gets the scenario's own text, delay and scroll,
// and --no-sandbox only when asked for.
func TestPlaywrightArgs(t *testing.T) {
	for _, noSandbox := range []bool{false, true} {
		b, err := playwrightArgs(RunOptions{W: 1280, H: 720, FPS: 60, NoSandbox: noSandbox}, "/pw", "/usr/bin/chromium", "http://127.0.0.1:1/", "/out")
		if err != nil {
			t.Fatal(err)
		}
		// Playwright refuses "args": null: the list is there, empty.
		if !strings.Contains(string(b), `"args":[]`) {
			t.Errorf("no empty list of Chromium arguments: %s", b)
		}
		var a struct {
			Playwright, Chromium, URL, Dir, Text string
			Args                                 []string
			NoSandbox                            bool `json:"no_sandbox"`
			Width, Height, FPS                   int
			TypeDelayMs                          int `json:"type_delay_ms"`
			ScrollBy                             int `json:"scroll_by"`
			ScrollMs                             int `json:"scroll_ms"`
		}
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		if a.Playwright != "/pw" || a.Chromium != "/usr/bin/chromium" || a.URL != "http://127.0.0.1:1/" || a.Dir != "/out" || a.Width != 1280 || a.Height != 720 || a.FPS != 60 ||
			a.Text != scenarioText || a.TypeDelayMs != 60 || a.ScrollBy != scenarioScrollBy || a.ScrollMs != 600 {
			t.Errorf("arguments %s", b)
		}
		if a.NoSandbox != noSandbox || len(a.Args) != 0 {
			t.Errorf("no sandbox %v: told %v, Chromium's arguments %q", noSandbox, a.NoSandbox, a.Args)
		}
	}
}

// A series with no take reports from its video alone, and says so; the
// CPU per second of the page's footage leaves out a padded end.
func TestNoTakeLine(t *testing.T) {
	r := scenarioRun{NoTake: true, CPUS: 30, CPUBy: map[string]float64{"gpu": 10, "bench": 1}, CPUPerVideoS: 2, CPUPerFootageS: 2.5}
	r.Footage.Coverage, r.Footage.Distinct, r.Footage.Painted, r.Footage.SpanMs = 0.9, 90, 100, 10000
	line := r.line()
	for _, want := range []string{"no take; in the video alone: coverage 0.900 (90 of 100)", "gpu 10.0, bench 1.0", "2.00 CPU-s per second of video, 2.50 per second of the page in it", "the page painting 10.0 frames a second"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	for _, not := range []string{"settled pictures", "screencast restarts", "ran late"} {
		if strings.Contains(line, not) {
			t.Errorf("line %q speaks of %q, which a series with no take does not have", line, not)
		}
	}
}

// The series side by side: each figure's median, and its worst run
// (the most for times, CPU, freezes and drift; the least for coverage).
func TestSideBySide(t *testing.T) {
	run := func(wall, cpu, cov, freeze float64) scenarioRun {
		r := scenarioRun{WallS: wall, ScenarioS: 10, CPUPerFootageS: cpu}
		r.Footage.Coverage, r.Footage.LongestFreezeMs = cov, freeze
		return r
	}
	live := scenarioMode{Mode: RunMode{Capture: "live", SettledBy: "frame"}, Runs: []scenarioRun{run(20, 2.5, 0.96, 150), run(26, 2.8, 0.75, 267), run(19, 2.4, 0.99, 100)}}
	pw := scenarioMode{Mode: PlaywrightMode, Runs: []scenarioRun{run(19, 2.2, 0.89, 267), run(20, 2.3, 0.87, 283), run(17, 2.1, 0.90, 250)}}
	for _, m := range []*scenarioMode{&live, &pw} {
		m.Median = medianScenario(m.Runs)
	}
	got := sideBySide([]scenarioMode{live, pw})
	for _, want := range []string{
		"live, settled by frame", "playwright recordVideo",
		"wall time, launch to video           20.00 s (26.00 s)",
		"19.00 s (20.00 s)",
		"2.50 (2.80)", "2.20 (2.30)",
		"0.960 (0.750)", "0.890 (0.870)",
		"150 ms (267 ms)", "267 ms (283 ms)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("side by side lacks %q:\n%s", want, got)
		}
	}
	if sideBySide([]scenarioMode{live}) != "" {
		t.Error("one series has no side to be by")
	}
}
