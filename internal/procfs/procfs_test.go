package procfs

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A child started with exec.Command is listed with its parent once it has
// exec'd: until then it is a copy of the test binary, so the test waits
// for it to become sleep (a deadline that only bounds a hang).
func TestListFindsItselfAndAChild(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	isChild := func(p Proc) bool {
		return p.Pid == cmd.Process.Pid && p.PPid == os.Getpid() && p.Comm == "sleep" && strings.HasPrefix(p.Cmdline, "sleep 60") && !p.Zombie()
	}
	var self, child bool
	var seen Proc
	for deadline := time.Now().Add(30 * time.Second); !child && time.Now().Before(deadline); {
		self = false
		for _, p := range List() {
			if p.Pid == os.Getpid() && p.PPid == os.Getppid() && p.Pgid == syscall.Getpgrp() && !p.Zombie() {
				self = true
			}
			if p.Pid == cmd.Process.Pid {
				seen = p
				child = isChild(p)
			}
		}
		if !child {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if !self || !child {
		t.Errorf("self found %v, child found %v (last seen as %+v)", self, child, seen)
	}
	if p, ok := Read(cmd.Process.Pid); !ok || !isChild(p) {
		t.Errorf("Read(child) = %+v, %v", p, ok)
	}
	if _, ok := Read(-1); ok {
		t.Error("Read(-1) found a process")
	}
}

// Descendants follows parents down from a pid, however deep, and leaves
// out the pid itself, its ancestors and other trees.
func TestDescendants(t *testing.T) {
	ps := []Proc{
		{Pid: 1, PPid: 0}, {Pid: 10, PPid: 1}, // init, and this process
		{Pid: 11, PPid: 10}, {Pid: 12, PPid: 11}, {Pid: 13, PPid: 12}, // browser, zygote, renderer
		{Pid: 20, PPid: 1}, {Pid: 21, PPid: 20}, // another tree
	}
	var got []int
	for _, p := range Descendants(ps, 10) {
		got = append(got, p.Pid)
	}
	if fmt.Sprint(got) != "[11 12 13]" {
		t.Errorf("descendants of 10 = %v, want [11 12 13]", got)
	}
	if d := Descendants(ps, 13); len(d) != 0 {
		t.Errorf("a leaf has descendants: %v", d)
	}
}

// The probe gives positive costs: a page fault takes some time on any
// machine, and far less than a millisecond on any clapper runs on.
func TestPageFaultCost(t *testing.T) {
	f, err := PageFaultCost()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{f.Anon, f.Shared} {
		if d <= 0 || d >= time.Millisecond {
			t.Fatalf("a page fault costs %+v: want more than nothing and less than a millisecond", f)
		}
	}
	if f.Worst() != max(f.Anon, f.Shared) {
		t.Errorf("Worst of %+v is %v", f, f.Worst())
	}
}
