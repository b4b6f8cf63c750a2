// Package testenv holds helpers shared by clapper's tests: the rule that
// integration tests skip when Chromium or ffmpeg is missing unless
// CLAPPER_REQUIRE_INTEGRATION=1 (CI) makes that a failure, and leak checks
// for browser profiles and processes.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireEnv is the variable that turns a missing binary into a failure.
const RequireEnv = "CLAPPER_REQUIRE_INTEGRATION"

// Need skips (or, in CI, fails) the test unless every binary is on PATH.
func Need(t testing.TB, bins ...string) {
	t.Helper()
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			if os.Getenv(RequireEnv) == "1" {
				t.Fatalf("%s is required (%s=1) but not found: %v; install it with \"apt-get install chromium ffmpeg\"", b, RequireEnv, err)
			}
			t.Skipf("%s not found (install chromium and ffmpeg to run integration tests): %v", b, err)
		}
	}
}

// NoSandbox reports whether Chromium must run without its sandbox here
// (as root). Tests make that choice explicitly, as users must.
func NoSandbox() bool { return os.Geteuid() == 0 }

// Profiles lists clapper's browser profiles in the temp folder.
func Profiles() []string {
	m, _ := filepath.Glob(filepath.Join(os.TempDir(), "clapper-profile-*"))
	return m
}

// LiveBrowsers lists live (non-zombie) Chromium processes whose command
// line names a clapper profile.
func LiveBrowsers() []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmd), "clapper-profile-") {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

// CheckLeaks reports profiles or browser processes left behind, compared
// with what existed before (profiles from other runs on the machine).
func CheckLeaks(before []string) []string {
	seen := map[string]bool{}
	for _, p := range before {
		seen[p] = true
	}
	var leaks []string
	for _, p := range Profiles() {
		if !seen[p] {
			leaks = append(leaks, "profile left behind: "+p)
		}
	}
	for _, p := range LiveBrowsers() {
		leaks = append(leaks, "browser process left behind: "+p)
	}
	return leaks
}
