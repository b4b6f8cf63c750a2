package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The CLI the tests run is built by make build, as a user builds it:
// --version names the checked-out revision, its commit date and whether the
// tree is modified, never "dev".
func TestVersionFlag(t *testing.T) {
	gitOut := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", "../.."}, args...)...)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	want := gitOut("rev-parse", "HEAD")[:12]
	if builtDirty {
		want += "-dirty"
	}
	want += " (" + gitOut("-c", "log.showSignature=false", "log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ") + ")"
	for _, flag := range []string{"--version", "-v"} {
		stdout, stderr, code := runBin(t, nil, flag)
		if code != 0 || stdout != "clapper version "+want+"\n" {
			t.Errorf("clapper %s: exit %d, %q (stderr %q); want %q", flag, code, stdout, stderr, "clapper version "+want)
		}
	}
}
