package ownerlock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestAcquireRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	l, stale, err := Acquire(path, "first")
	if err != nil || stale != nil {
		t.Fatalf("Acquire: %v %v", stale, err)
	}
	// A second claim while the owner (this process) lives is refused,
	// naming the holder.
	_, _, err = Acquire(path, "second")
	var held *HeldError
	if !errors.As(err, &held) || held.Owner.Pid != os.Getpid() || !strings.Contains(err.Error(), "first (pid") {
		t.Fatalf("second Acquire: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("lock left after Release: %v", err)
	}
}

// A lock whose owner has exited is taken over, and the old owner named;
// one whose pid was reused by another process (another start time) too.
func TestTakeOverFromTheDead(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := Self("dead run")
	dead.Pid = cmd.Process.Pid
	reused := Self("a run whose pid was reused")
	reused.Start++ // this process's pid, another start
	for name, o := range map[string]Owner{"dead": dead, "reused": reused} {
		path := filepath.Join(dir, name)
		b := []byte(`{"pid":` + strconv.Itoa(o.Pid) + `,"start_ticks":` + strconv.FormatUint(o.Start, 10) + `,"host":"` + o.Host + `","since":"2026-01-01T00:00:00Z","label":"` + o.Label + `"}`)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if o.Alive() {
			t.Fatalf("%s owner counts as alive", name)
		}
		l, stale, err := Acquire(path, "new")
		if err != nil || stale == nil || stale.Label != o.Label {
			t.Fatalf("%s: take over: %v %v", name, stale, err)
		}
		l.Release()
	}
	// An unreadable lock is never taken as free.
	path := filepath.Join(dir, "garbage")
	os.WriteFile(path, []byte("not json"), 0o644)
	if _, _, err := Acquire(path, "new"); err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Errorf("unreadable lock: %v", err)
	}
	// Another host's owner cannot be checked: alive.
	other := Self("remote")
	other.Host = "elsewhere.invalid"
	other.Pid = dead.Pid
	if !other.Alive() {
		t.Error("an owner on another host counts as dead")
	}
}

// Sweep removes the folders of owners that are gone, and only those.
func TestSweep(t *testing.T) {
	tmp := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, o *Owner) string {
		dir := filepath.Join(tmp, name)
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		if o != nil {
			b := []byte(`{"pid":` + strconv.Itoa(o.Pid) + `,"start_ticks":` + strconv.FormatUint(o.Start, 10) + `,"host":"` + o.Host + `","since":"2026-01-01T00:00:00Z"}`)
			os.WriteFile(filepath.Join(dir, "owner"), b, 0o644)
		}
		return dir
	}
	dead, live := Self("dead"), Self("live")
	dead.Pid = cmd.Process.Pid
	deadDir, liveDir, bareDir := mk("w-dead", &dead), mk("w-live", &live), mk("w-bare", nil)
	var before []string
	removed := Sweep(filepath.Join(tmp, "w-*"), "owner", func(dir string) { before = append(before, dir) })
	if len(removed) != 1 || removed[0] != deadDir || len(before) != 1 || before[0] != deadDir {
		t.Errorf("removed %v (before %v), want only %s", removed, before, deadDir)
	}
	for _, d := range []string{liveDir, bareDir} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was swept: %v", d, err)
		}
	}
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Errorf("%s is still there", deadDir)
	}
}
