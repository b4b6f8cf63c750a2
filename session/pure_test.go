package session

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}

func TestChromiumArgsGolden(t *testing.T) {
	cases := map[string]LaunchOptions{
		"chromium_headless_nosandbox.golden": {Headless: true, NoSandbox: true, Width: 1280, Height: 720},
		"chromium_sandbox_extra.golden":      {Headless: false, Width: 1920, Height: 1080, Args: []string{"--lang=fr"}},
	}
	for name, o := range cases {
		golden(t, name, strings.Join(ChromiumArgs(o, "/tmp/clapper-profile-X"), "\n")+"\n")
	}
}

func TestChromiumArgsSandboxIsExplicit(t *testing.T) {
	for _, a := range ChromiumArgs(LaunchOptions{Headless: true}, "/p") {
		if a == "--no-sandbox" {
			t.Fatal("--no-sandbox present without the choice")
		}
	}
}

func TestCheckEndpoint(t *testing.T) {
	ok := []string{"ws://127.0.0.1:9222/devtools/browser/abc", "ws://localhost:9222/x", "ws://[::1]:9222/x", "ws://127.1.2.3:1/x"}
	bad := []string{"wss://127.0.0.1:9222/x", "http://127.0.0.1:9222/", "ws://10.0.0.1:9222/x", "ws://example.com:9222/x",
		"ws://user:pw@127.0.0.1:9222/x", "ws://127.0.0.1:9222/x?token=1", "ws://127.0.0.1:9222/x#f", "::::"}
	for _, e := range ok {
		if err := CheckEndpoint(e); err != nil {
			t.Errorf("%s refused: %v", e, err)
		}
	}
	for _, e := range bad {
		if err := CheckEndpoint(e); err == nil {
			t.Errorf("%s accepted", e)
		}
	}
}

func TestPointerPath(t *testing.T) {
	tick := time.Second / 60
	cases := []struct{ x0, y0, x1, y1, speed float64 }{
		{0, 0, 640, 360, 1400}, {640, 360, 0, 0, 1400}, {10, 10, 12, 11, 1400},
		{0, 0, 5000, 0, 1400}, {100, 100, 100, 400, 0}, {0, 0, 300, 300, 100000},
	}
	for _, c := range cases {
		pts := PointerPath(c.x0, c.y0, c.x1, c.y1, c.speed, tick)
		last := pts[len(pts)-1]
		if last.X != c.x1 || last.Y != c.y1 {
			t.Errorf("%v: ends at (%v,%v)", c, last.X, last.Y)
		}
		if d := last.At; d < 120*time.Millisecond || d > 1200*time.Millisecond {
			t.Errorf("%v: lasts %v, want 120ms..1.2s", c, d)
		}
		dist := math.Hypot(c.x1-c.x0, c.y1-c.y0)
		prev := time.Duration(0)
		prevProg := -1.0
		for _, p := range pts {
			if p.At <= prev && p != pts[0] {
				t.Fatalf("%v: time does not advance at %v", c, p)
			}
			prev = p.At
			// Progress along the line never goes back.
			prog := ((p.X-c.x0)*(c.x1-c.x0) + (p.Y-c.y0)*(c.y1-c.y0)) / (dist * dist)
			if prog < prevProg-1e-9 {
				t.Fatalf("%v: goes back at %v", c, p)
			}
			prevProg = prog
			// The arc stays within 40 px of the straight line.
			off := math.Abs((p.X-c.x0)*(c.y1-c.y0)-(p.Y-c.y0)*(c.x1-c.x0)) / dist
			if off > 40.001 {
				t.Fatalf("%v: %v px off the line", c, off)
			}
		}
	}
	if pts := PointerPath(5, 5, 5.2, 5.1, 1400, tick); len(pts) != 1 {
		t.Errorf("no movement should be one point, got %d", len(pts))
	}
}

func TestModifierMaskAndKeys(t *testing.T) {
	m, err := ModifierMask([]string{"Control", "Shift", "Alt", "Meta"})
	if err != nil || m != 15 {
		t.Errorf("mask %d, %v", m, err)
	}
	if _, err := ModifierMask([]string{"Hyper"}); err == nil {
		t.Error("unknown modifier accepted")
	}
	for _, k := range []string{"Enter", "Tab", "Escape", "Backspace", "ArrowDown", "a", "A", "1", "Space", "F5", "PageDown"} {
		if _, err := KeyFor(k); err != nil {
			t.Errorf("key %s: %v", k, err)
		}
	}
	if _, err := KeyFor("Enterr"); err == nil {
		t.Error("misspelt key accepted")
	}
}
