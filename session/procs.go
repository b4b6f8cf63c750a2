package session

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clapper-dev/clapper/internal/ownerlock"
	"github.com/clapper-dev/clapper/internal/procfs"

	"golang.org/x/sys/unix"
)

var subreaperOnce sync.Once

// becomeSubreaper makes this process the reaper of its orphaned
// descendants, so Chromium helpers that double-fork (crashpad) and children
// whose parent died are reparented here and can be reaped, not left as
// zombies or strays.
func becomeSubreaper() {
	subreaperOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// ofBrowser reports whether p belongs to one owned browser: its process
// group, or a command line naming its profile (helpers that left the group
// keep their dump folder inside the profile).
func ofBrowser(p procfs.Proc, pgid int, profile string) bool {
	return (pgid > 0 && p.Pgid == pgid) || (profile != "" && strings.Contains(p.Cmdline, profile))
}

// killAndReap SIGKILLs the browser's processes (its group when pgid > 0,
// and whatever names its profile) and reaps those that are this process's
// children, waiting up to d for them to go.
func killAndReap(pgid int, profile string, d time.Duration) (killed int) {
	// Note the pids first: a zombie's command line is empty, so helpers
	// found by profile are remembered before they die.
	seen := map[int]bool{}
	// A browser found by its profile takes its process group along: its
	// helpers (zygotes, the GPU and network services, renderers) do not
	// name the profile, yet write into it (a network service left alive
	// makes the profile's Default folder again after it is removed).
	groups := map[int]bool{}
	own := syscall.Getpgrp()
	for _, p := range procfs.List() {
		if ofBrowser(p, pgid, profile) {
			seen[p.Pid] = true
			if p.Pgid > 0 && p.Pgid != own {
				groups[p.Pgid] = true
			}
		}
	}
	for g := range groups {
		if g != pgid {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
	}
	if pgid > 0 { // 0 would be this process's own group
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(d)
	self := os.Getpid()
	hit := map[int]bool{}
	for {
		live := 0
		var ours []procfs.Proc
		for _, p := range procfs.List() {
			if seen[p.Pid] || ofBrowser(p, pgid, profile) || groups[p.Pgid] {
				seen[p.Pid] = true
				ours = append(ours, p)
			}
		}
		for _, p := range ours {
			if !p.Zombie() {
				live++
				if syscall.Kill(p.Pid, syscall.SIGKILL) == nil && !hit[p.Pid] {
					hit[p.Pid] = true
					killed++
				}
			}
			if p.PPid == self {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(p.Pid, &ws, unix.WNOHANG, nil)
			}
		}
		if live == 0 || time.Now().After(deadline) {
			return killed
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ownerFile, in an owned profile, names the run that made it (pid and
// start time); the next launch sweeps a profile whose owner is gone.
const ownerFile = "clapper-owner.json"

// profilePattern matches owned profiles in the temporary folder.
const profilePattern = "clapper-profile-*"

// sweepProfiles removes the profiles in tmp left by runs that are gone
// (killed before their cleanup ran), with the Chromium temporary folders
// inside them, after killing any process still running from one. A
// profile whose owner lives, or that names no owner yet (being made), is
// never touched. It returns the profiles removed.
func sweepProfiles(tmp string) []string {
	return ownerlock.Sweep(filepath.Join(tmp, profilePattern), ownerFile, func(dir string) { killAndReap(0, dir, 3*time.Second) })
}
