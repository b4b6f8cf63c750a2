package procfs

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestListFindsItselfAndAChild(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var self, child bool
	for _, p := range List() {
		if p.Pid == os.Getpid() && p.PPid == os.Getppid() && !p.Zombie() {
			self = true
		}
		if p.Pid == cmd.Process.Pid && p.PPid == os.Getpid() && p.Comm == "sleep" && strings.HasPrefix(p.Cmdline, "sleep 5") {
			child = true
		}
	}
	if !self || !child {
		t.Errorf("self found %v, child found %v", self, child)
	}
	if _, ok := Read(-1); ok {
		t.Error("Read(-1) found a process")
	}
}
