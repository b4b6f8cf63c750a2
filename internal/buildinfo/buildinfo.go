// Package buildinfo names a clapper build: the version --version prints
// and a take records as its tool, and the full revision a take's manifest
// records, from Go's build info or what the linker was told.
package buildinfo

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Stamp is what the linker was told (-X): a release's name, and the VCS
// revision, commit time and whether the tree was modified.
type Stamp struct {
	Release        string
	Revision, Time string
	Modified       bool
}

// Read is this program's build info, nil when it has none.
func Read() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// Version names the build, in order of preference: a release
// stamped at link time; the module's version when it is a tagged release
// (go install …@v1.2.0); the VCS revision and commit date, from the build
// info or else from the stamp, as "0123456789ab (2026-01-02T03:04:05Z)";
// a pseudo-version (go install …@commit, which carries no VCS data but
// names the revision and date itself); and "dev" only when nothing says
// more. A modified tree adds "-dirty" to the revision or version. Pure.
func Version(st Stamp, bi *debug.BuildInfo) string {
	if st.Release != "" {
		return st.Release
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
	if rev == "" && st.Revision != "" {
		rev, at, modified = st.Revision, st.Time, st.Modified
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

// Revision returns the build info's vcs.revision, else the revision
// stamped at link time, with "-dirty" for a modified tree. Pure.
func Revision(st Stamp, bi *debug.BuildInfo) string {
	rev, modified := "", false
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if rev == "" {
		rev, modified = st.Revision, st.Modified
	}
	if rev != "" && modified {
		rev += "-dirty"
	}
	return rev
}
