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
	if _, err := FindPlaywright(t.TempDir()); err == nil || !strings.Contains(err.Error(), "npm install --prefix DIR playwright-core") {
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
		var a struct {
			Playwright, Chromium, URL, Dir, Text string
			Args                                 []string
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
		if got := strings.Join(a.Args, " "); got != map[bool]string{true: "--no-sandbox"}[noSandbox] {
			t.Errorf("no sandbox %v: Chromium's arguments %q", noSandbox, got)
		}
	}
}
