package main

import "runtime/debug"

// revision is the full VCS revision this clapper was built from, recorded
// in each take's manifest ("" when the build says none).
var revision = resolveRevision(stamp{releaseVersion, vcsRevision, vcsTime, vcsModified == "true"}, readBuildInfo())

// resolveRevision returns the build info's vcs.revision, else the revision
// stamped at link time, with "-dirty" for a modified tree. Pure.
func resolveRevision(st stamp, bi *debug.BuildInfo) string {
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
		rev, modified = st.revision, st.modified
	}
	if rev != "" && modified {
		rev += "-dirty"
	}
	return rev
}
