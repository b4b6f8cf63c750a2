// Package procfs reads the process table from Linux's /proc: what clapper
// needs to find, reap and measure the processes it starts (Chromium and its
// helpers, ffmpeg), and what a page fault costs here (fault.go), which
// sets how fast Chromium captures. It imports nothing of clapper's.
package procfs

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Proc is a process seen in /proc.
type Proc struct {
	Pid, PPid, Pgid int
	State           byte   // R, S, Z, …
	Comm            string // the executable's short name
	Cmdline         string // arguments joined with spaces; empty for zombies
	// CPU is the user + system time it has used.
	CPU time.Duration
	// Start is when it started, in clock ticks since boot: with the pid,
	// it names a process even after the pid is reused.
	Start uint64
}

// Zombie reports whether the process has exited and waits to be reaped.
func (p Proc) Zombie() bool { return p.State == 'Z' }

// clockTick is USER_HZ, 100 on every Linux clapper runs on.
const clockTick = 10 * time.Millisecond

// List returns the processes on the machine (best effort: a process that
// exits while it is read is left out).
func List() []Proc {
	ents, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Read(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// Descendants are the processes of ps below pid. Pure.
func Descendants(ps []Proc, pid int) []Proc {
	parent := map[int]int{}
	for _, p := range ps {
		parent[p.Pid] = p.PPid
	}
	var out []Proc
	for _, p := range ps {
		for a, hops := parent[p.Pid], 0; a != 0 && hops < 64; a, hops = parent[a], hops+1 {
			if a == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// Read reads one process.
func Read(pid int) (Proc, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return Proc{}, false
	}
	// pid (comm) state ppid pgrp … utime(14) stime(15): comm may hold
	// spaces and parentheses, so split after the last ')'.
	open, close := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || close < open || close+2 >= len(stat) {
		return Proc{}, false
	}
	f := strings.Fields(string(stat[close+2:]))
	if len(f) < 20 {
		return Proc{}, false
	}
	p := Proc{Pid: pid, State: f[0][0], Comm: string(stat[open+1 : close])}
	p.PPid, _ = strconv.Atoi(f[1])
	p.Pgid, _ = strconv.Atoi(f[2])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	p.CPU = time.Duration(u+s) * clockTick
	p.Start, _ = strconv.ParseUint(f[19], 10, 64)
	cmd, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	p.Cmdline = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	return p, true
}
