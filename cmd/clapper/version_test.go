package main

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	vcs := func(mod string, kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/clapper-dev/clapper", Version: mod}}
		for i := 0; i+1 < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	const at = "2026-01-02T03:04:05Z"
	git := []string{"vcs", "git", "vcs.revision", rev, "vcs.time", at, "vcs.modified", "false"}
	gitDirty := []string{"vcs", "git", "vcs.revision", rev, "vcs.time", at, "vcs.modified", "true"}
	cases := []struct {
		name string
		st   stamp
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info at all", stamp{}, nil, "dev"},
		{"a local build without VCS data", stamp{}, vcs("(devel)"), "dev"},
		{"a release stamped at link time wins", stamp{release: "v1.4.0", revision: rev}, vcs("v1.3.0", git...), "v1.4.0"},
		{"go install at a tag", stamp{}, vcs("v1.2.0"), "v1.2.0"},
		{"a tag with build metadata", stamp{}, vcs("v2.0.0+incompatible"), "v2.0.0+incompatible"},
		{"a prerelease tag", stamp{}, vcs("v1.2.0-rc.1"), "v1.2.0-rc.1"},
		{"built at a tag, tree modified", stamp{}, vcs("v1.2.0+dirty", gitDirty...), "v1.2.0-dirty"},
		{"a clone: revision and date", stamp{}, vcs("(devel)", git...), "0123456789ab (" + at + ")"},
		{"a clone, modified", stamp{}, vcs("(devel)", gitDirty...), "0123456789ab-dirty (" + at + ")"},
		// Go 1.24 makes a pseudo-version from the VCS data: the revision
		// and date are shown as for any clone.
		{"a clone, Go's pseudo-version", stamp{}, vcs("v0.0.0-20260102030405-0123456789ab", git...), "0123456789ab (" + at + ")"},
		{"a clone, Go's pseudo-version, modified", stamp{}, vcs("v0.0.0-20260102030405-0123456789ab+dirty", gitDirty...), "0123456789ab-dirty (" + at + ")"},
		{"go install at a commit: the pseudo-version", stamp{}, vcs("v1.2.4-0.20260102030405-0123456789ab"), "v1.2.4-0.20260102030405-0123456789ab"},
		{"go install at a commit after a prerelease", stamp{}, vcs("v1.2.0-pre.0.20260102030405-0123456789ab"), "v1.2.0-pre.0.20260102030405-0123456789ab"},
		// The Makefile's stamp stands in where Go recorded no VCS data.
		{"a worktree: the Makefile's stamp", stamp{revision: rev, time: at}, vcs("(devel)"), "0123456789ab (" + at + ")"},
		{"a worktree, modified", stamp{revision: rev, time: at, modified: true}, vcs("(devel)"), "0123456789ab-dirty (" + at + ")"},
		{"the build info beats the stamp", stamp{revision: "fedcba9876543210", time: "1999-01-01T00:00:00Z", modified: true}, vcs("(devel)", git...), "0123456789ab (" + at + ")"},
		{"a stamp without a date", stamp{revision: "abc123"}, nil, "abc123"},
	}
	for _, c := range cases {
		if got := resolveVersion(c.st, c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

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
		stdout, stderr, code := runCLI(t, flag)
		if code != 0 || stdout != "clapper version "+want+"\n" {
			t.Errorf("clapper %s: exit %d, %q (stderr %q); want %q", flag, code, stdout, stderr, "clapper version "+want)
		}
	}
}
