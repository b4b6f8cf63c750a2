// Package testenv holds helpers shared by clapper's tests: the rule that
// integration tests skip when Chromium or ffmpeg is missing unless
// CLAPPER_REQUIRE_INTEGRATION=1 (CI) makes that a failure, and leak checks
// for browser profiles and processes.
package testenv

import (
	"errors"
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

// Required reports whether the integration tests are required: RequireEnv
// unset or empty means no, "1" means yes, and any other value is an error,
// so that a spelling such as "true" cannot quietly turn the requirement off.
func Required() (bool, error) { return required(os.Getenv(RequireEnv)) }

func required(v string) (bool, error) {
	switch v {
	case "":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: set it to 1 to require the integration tests, or leave it unset to let them skip", RequireEnv, v)
}

// Browsers are the names clapper looks for Chromium under, in order: the
// candidates of session.FindChromium, mirrored here because session's own
// tests import this package. A test keeps the two lists equal.
var Browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// Need skips (or, in CI, fails) the test unless every binary is on PATH.
// "chromium" stands for any name in Browsers, as it does for clapper.
func Need(t testing.TB, bins ...string) {
	t.Helper()
	req, err := Required()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bins {
		if _, err := lookBinary(b, exec.LookPath); err != nil {
			if req {
				t.Fatalf("%s is required (%s=1) but not found: %v; install what the tests need with \"make setup\" (the packages of .ci/debian-packages)", b, RequireEnv, err)
			}
			t.Skipf("%s not found (\"make setup\" installs what the integration tests need): %v", b, err)
		}
	}
}

// lookBinary finds name with look; "chromium" is found under any of
// Browsers' names.
func lookBinary(name string, look func(string) (string, error)) (string, error) {
	if name != "chromium" {
		return look(name)
	}
	for _, b := range Browsers {
		if p, err := look(b); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %s is on PATH", strings.Join(Browsers, ", "))
}

// NoSandbox reports whether Chromium must run without its sandbox here
// (as root). Tests make that choice explicitly, as users must.
func NoSandbox() bool { return os.Geteuid() == 0 }

// M is what Main runs: a *testing.M, or a wrapper around one that sets up
// and tears down inside the private temporary folder.
type M interface{ Run() int }

// Main runs a package's tests with a private temporary folder (TMPDIR), so
// that browser profiles, render work folders and processes this test binary
// leaves behind are told apart from those of test binaries running beside
// it. After the tests it fails the run on any clapper profile or work folder
// left in that folder, any live process naming it, and whatever the extra
// checks report. When the folder cannot be made, or RequireEnv holds a
// value other than 1, it fails before running anything: leak checks that
// cannot run must not pass.
func Main(m M, extra ...func() []string) { os.Exit(run(m, extra)) }

func run(m M, extra []func() []string) int {
	if _, err := Required(); err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 2
	}
	dir, err := os.MkdirTemp("", "clapper-test-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: cannot make the private temporary folder the leak checks need: %v\n", err)
		return 1
	}
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: cannot point TMPDIR at %s: %v\n", dir, err)
		os.Remove(dir)
		return 1
	}
	code := m.Run()
	var leaks []string
	var left []string
	for _, pattern := range leftPatterns {
		l, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			leaks = append(leaks, "cannot list the private temporary folder: "+err.Error())
		}
		left = append(left, l...)
	}
	for _, l := range left {
		leaks = append(leaks, "left behind: "+l)
	}
	for _, p := range liveNaming(dir) {
		leaks = append(leaks, "process left behind: "+p)
	}
	for _, f := range extra {
		leaks = append(leaks, f()...)
	}
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		leaks = append(leaks, "cannot remove the private temporary folder: "+err.Error())
	}
	for _, l := range leaks {
		fmt.Fprintln(os.Stderr, "leak:", l)
	}
	if len(leaks) > 0 && code == 0 {
		code = 1
	}
	return code
}

// leftPatterns name what must not be left in the private folder: clapper's
// profiles and work folders, and Chromium's own temporary folders (an owned
// Chromium is given a TMPDIR inside its profile; one that wrote here instead
// would leave them in the system's temporary folder on every run).
var leftPatterns = []string{"clapper-*", ".new-clapper-*", "org.chromium.Chromium.*"}

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
