package main

import "github.com/clapper-dev/clapper/internal/buildinfo"

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

// version is what --version prints and what a take records as its tool;
// revision is the full VCS revision, recorded in each take's manifest (""
// when the build says none).
var (
	buildStamp = buildinfo.Stamp{Release: releaseVersion, Revision: vcsRevision, Time: vcsTime, Modified: vcsModified == "true"}
	version    = buildinfo.Version(buildStamp, buildinfo.Read())
	revision   = buildinfo.Revision(buildStamp, buildinfo.Read())
)
