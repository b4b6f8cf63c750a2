package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

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

// Proc is a process seen in /proc.
type Proc struct {
	Pid, PPid, Pgid int
	State           byte
	Cmdline         string
}

// Procs lists the processes on the machine (best effort).
func Procs() []Proc {
	ents, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces; split after ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) {
			continue
		}
		f := strings.Fields(string(stat[i+2:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, Proc{Pid: pid, PPid: ppid, Pgid: pgid, State: f[0][0], Cmdline: string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))})
	}
	return out
}

// browserProcs selects the processes of one owned browser: its process
// group, and anything whose command line names its profile (helpers that
// left the group keep their dump folder inside the profile).
func browserProcs(all []Proc, pgid int, profile string) []Proc {
	var out []Proc
	for _, p := range all {
		if p.Pgid == pgid || (profile != "" && strings.Contains(p.Cmdline, profile)) {
			out = append(out, p)
		}
	}
	return out
}

// killAndReap SIGKILLs the browser's processes and reaps those that are
// this process's children, waiting up to d for them to go.
func killAndReap(pgid int, profile string, d time.Duration) (killed int) {
	// Note the pids first: a zombie's command line is empty, so helpers
	// found by profile are remembered before they die.
	seen := map[int]bool{}
	for _, p := range browserProcs(Procs(), pgid, profile) {
		seen[p.Pid] = true
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(d)
	self := os.Getpid()
	for {
		live := 0
		var ours []Proc
		for _, p := range Procs() {
			if seen[p.Pid] || p.Pgid == pgid || (profile != "" && strings.Contains(p.Cmdline, profile)) {
				seen[p.Pid] = true
				ours = append(ours, p)
			}
		}
		for _, p := range ours {
			if p.State != 'Z' {
				live++
				if syscall.Kill(p.Pid, syscall.SIGKILL) == nil {
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
