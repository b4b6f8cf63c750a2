package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
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
		st   Stamp
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info at all", Stamp{}, nil, "dev"},
		{"a local build without VCS data", Stamp{}, vcs("(devel)"), "dev"},
		{"a release stamped at link time wins", Stamp{Release: "v1.4.0", Revision: rev}, vcs("v1.3.0", git...), "v1.4.0"},
		{"go install at a tag", Stamp{}, vcs("v1.2.0"), "v1.2.0"},
		{"a tag with build metadata", Stamp{}, vcs("v2.0.0+incompatible"), "v2.0.0+incompatible"},
		{"a prerelease tag", Stamp{}, vcs("v1.2.0-rc.1"), "v1.2.0-rc.1"},
		{"built at a tag, tree modified", Stamp{}, vcs("v1.2.0+dirty", gitDirty...), "v1.2.0-dirty"},
		{"a clone: revision and date", Stamp{}, vcs("(devel)", git...), "0123456789ab (" + at + ")"},
		{"a clone, modified", Stamp{}, vcs("(devel)", gitDirty...), "0123456789ab-dirty (" + at + ")"},
		// Go 1.24 makes a pseudo-version from the VCS data: the revision
		// and date are shown as for any clone.
		{"a clone, Go's pseudo-version", Stamp{}, vcs("v0.0.0-20260102030405-0123456789ab", git...), "0123456789ab (" + at + ")"},
		{"a clone, Go's pseudo-version, modified", Stamp{}, vcs("v0.0.0-20260102030405-0123456789ab+dirty", gitDirty...), "0123456789ab-dirty (" + at + ")"},
		{"go install at a commit: the pseudo-version", Stamp{}, vcs("v1.2.4-0.20260102030405-0123456789ab"), "v1.2.4-0.20260102030405-0123456789ab"},
		{"go install at a commit after a prerelease", Stamp{}, vcs("v1.2.0-pre.0.20260102030405-0123456789ab"), "v1.2.0-pre.0.20260102030405-0123456789ab"},
		// The Makefile's stamp stands in where Go recorded no VCS data.
		{"a worktree: the Makefile's stamp", Stamp{Revision: rev, Time: at}, vcs("(devel)"), "0123456789ab (" + at + ")"},
		{"a worktree, modified", Stamp{Revision: rev, Time: at, Modified: true}, vcs("(devel)"), "0123456789ab-dirty (" + at + ")"},
		{"the build info beats the stamp", Stamp{Revision: "fedcba9876543210", Time: "1999-01-01T00:00:00Z", Modified: true}, vcs("(devel)", git...), "0123456789ab (" + at + ")"},
		{"a stamp without a date", Stamp{Revision: "abc123"}, nil, "abc123"},
	}
	for _, c := range cases {
		if got := Version(c.st, c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestRevision(t *testing.T) {
	bi := func(kv ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{}
		for i := 0; i+1 < len(kv); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return b
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	cases := []struct {
		st   Stamp
		bi   *debug.BuildInfo
		want string
	}{
		{Stamp{}, nil, ""},
		{Stamp{}, bi("vcs.revision", rev), rev},
		{Stamp{}, bi("vcs.revision", rev, "vcs.modified", "true"), rev + "-dirty"},
		{Stamp{Revision: rev}, bi(), rev},
		{Stamp{Revision: rev, Modified: true}, nil, rev + "-dirty"},
		{Stamp{Revision: "other"}, bi("vcs.revision", rev), rev},
	}
	for _, c := range cases {
		if got := Revision(c.st, c.bi); got != c.want {
			t.Errorf("Revision(%+v, %v) = %q, want %q", c.st, c.bi, got, c.want)
		}
	}
}
