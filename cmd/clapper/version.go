package main

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Values a build may set with -ldflags "-X main.NAME=VALUE", for builds
// whose Go build info cannot say what they are built from:
//
//   - releaseVersion names a release (the container image passes it: its
//     build context holds no repository);
//   - vcsRevision, vcsTime and vcsModified ("true") are the facts Go stamps
//     as vcs.revision, vcs.time and vcs.modified, passed by the Makefile
//     because Go stamps none in a git worktree or with -buildvcs=false.
var (
	releaseVersion string
	vcsRevision    string
	vcsTime        string
	vcsModified    string
)

// version is what --version prints and what a take records as its tool.
var version = resolveVersion(stamp{releaseVersion, vcsRevision, vcsTime, vcsModified == "true"}, readBuildInfo())

func readBuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// stamp is what the linker was told (-X).
type stamp struct {
	release        string
	revision, time string
	modified       bool
}

// resolveVersion names the build, in order of preference: a release
// stamped at link time; the module's version when it is a tagged release
// (go install …@v1.2.0); the VCS revision and commit date, from the build
// info or else from the stamp, as "0123456789ab (2026-01-02T03:04:05Z)";
// a pseudo-version (go install …@commit, which carries no VCS data but
// names the revision and date itself); and "dev" only when nothing says
// more. A modified tree adds "-dirty" to the revision or version. Pure.
func resolveVersion(st stamp, bi *debug.BuildInfo) string {
	if st.release != "" {
		return st.release
	}
	var mod string
	var rev, at string
	modified := false
	if bi != nil {
		mod = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if mod == "(devel)" {
		mod = ""
	}
	// Go marks a version built from a modified tree "+dirty".
	if m, ok := strings.CutSuffix(mod, "+dirty"); ok {
		mod, modified = m, true
	}
	dirty := func(s string) string {
		if modified {
			return s + "-dirty"
		}
		return s
	}
	if mod != "" && !isPseudoVersion(mod) {
		return dirty(mod)
	}
	if rev == "" && st.revision != "" {
		rev, at, modified = st.revision, st.time, st.modified
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v := dirty(rev)
		if at != "" {
			v += " (" + at + ")"
		}
		return v
	}
	if mod != "" {
		return dirty(mod)
	}
	return "dev"
}

// pseudoVersion matches Go's pseudo-versions (v0.0.0-20260102030405-
// 0123456789ab, v1.2.4-0.20260102030405-0123456789ab, v1.2.3-pre.0.…): a
// version Go made up from a commit, not a release.
var pseudoVersion = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+-(.*[.-])?[0-9]{14}-[0-9a-f]{12}(\+.*)?$`)

func isPseudoVersion(v string) bool { return pseudoVersion.MatchString(v) }
