// Package testenv holds helpers shared by clapper's tests: the rule that
// integration tests skip when Chromium or ffmpeg is missing unless
// CLAPPER_REQUIRE_INTEGRATION=1 (CI) makes that a failure, and leak checks
// for browser profiles and processes.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/procfs"
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

// Main runs a package's tests with a private temporary folder (TMPDIR), so
// that browser profiles, render work folders and processes this test binary
// leaves behind are told apart from those of test binaries running beside
// it. After the tests it fails the run on any clapper profile or work folder
// left in that folder, any live process naming it, and whatever the extra
// checks report.
func Main(m *testing.M, extra ...func() []string) {
	dir, err := os.MkdirTemp("", "clapper-test-")
	if err == nil {
		os.Setenv("TMPDIR", dir)
	}
	code := m.Run()
	var leaks []string
	if dir != "" {
		left, _ := filepath.Glob(filepath.Join(dir, "clapper-*"))
		for _, l := range left {
			leaks = append(leaks, "left behind: "+l)
		}
		for _, p := range liveNaming(dir) {
			leaks = append(leaks, "process left behind: "+p)
		}
	}
	for _, f := range extra {
		leaks = append(leaks, f()...)
	}
	for _, l := range leaks {
		fmt.Fprintln(os.Stderr, "leak:", l)
	}
	if len(leaks) > 0 && code == 0 {
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// liveNaming lists live processes whose command line contains s.
func liveNaming(s string) []string {
	var out []string
	for _, p := range procfs.List() {
		if !p.Zombie() && strings.Contains(p.Cmdline, s) {
			out = append(out, fmt.Sprintf("%d: %s", p.Pid, p.Cmdline))
		}
	}
	return out
}

// Profiles lists clapper's browser profiles in the temp folder.
func Profiles() []string {
	m, _ := filepath.Glob(filepath.Join(os.TempDir(), "clapper-profile-*"))
	return m
}

// LiveBrowsers lists live (non-zombie) Chromium processes whose command
// line names a clapper profile in this binary's temp folder.
func LiveBrowsers() []string { return liveNaming(filepath.Join(os.TempDir(), "clapper-profile-")) }
