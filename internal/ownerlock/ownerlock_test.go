package ownerlock

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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
	dead := deadOwner(t, "dead run")
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

// A folder made by MkdirOwned appears with its owner file whole, and a
// sweep clears what a process killed while staging one left: a staged
// folder whose owner is gone, or, without an owner file, one older than a
// claim ever takes; a fresh one may be mid-claim and stays.
func TestMkdirOwned(t *testing.T) {
	tmp := t.TempDir()
	dir, err := MkdirOwned(tmp, "w-", "owner", "test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), "w-") {
		t.Errorf("made %s, want a name beginning w-", dir)
	}
	if o, err := Read(filepath.Join(dir, "owner")); err != nil || !o.Alive() || o.Label != "test" {
		t.Errorf("owner %+v, %v: want this process", o, err)
	}
	if staged, _ := filepath.Glob(filepath.Join(tmp, stagePrefix+"*")); len(staged) != 0 {
		t.Errorf("staging folders left: %v", staged)
	}

	dead := deadOwner(t, "dead")
	b, _ := json.Marshal(dead)
	deadStage := filepath.Join(tmp, stagePrefix+"w-1")
	os.MkdirAll(deadStage, 0o755)
	os.WriteFile(filepath.Join(deadStage, "owner"), b, 0o644)
	freshStage, oldStage := filepath.Join(tmp, stagePrefix+"w-2"), filepath.Join(tmp, stagePrefix+"w-3")
	os.MkdirAll(freshStage, 0o755)
	os.MkdirAll(oldStage, 0o755)
	long := time.Now().Add(-2 * stageAge)
	if err := os.Chtimes(oldStage, long, long); err != nil {
		t.Fatal(err)
	}
	removed := Sweep(filepath.Join(tmp, "w-*"), "owner", nil)
	slices.Sort(removed)
	if want := []string{deadStage, oldStage}; !slices.Equal(removed, want) {
		t.Errorf("swept %v, want %v", removed, want)
	}
	for _, d := range []string{dir, freshStage} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was swept: %v", d, err)
		}
	}
}

// Of many claimants that find the same dead owner at once, exactly one
// takes the lock over; the others find it held. (A takeover removes the
// dead owner's file only if it still names that owner.)
func TestTakeOverRaceHasOneWinner(t *testing.T) {
	dead := deadOwner(t, "dead run")
	b, err := json.Marshal(dead)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for round := range 300 {
		path := filepath.Join(dir, "lock"+strconv.Itoa(round))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		const claimants = 6
		var wg sync.WaitGroup
		start := make(chan struct{})
		wins := make(chan *Lock, claimants)
		for range claimants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				l, _, err := Acquire(path, "claimant")
				var held *HeldError
				switch {
				case err == nil:
					wins <- l
				case !errors.As(err, &held) && !strings.Contains(err.Error(), "taken and released by others"):
					t.Errorf("round %d: %v", round, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		close(wins)
		if n := len(wins); n != 1 {
			t.Fatalf("round %d: %d claimants took the lock over, want 1", round, n)
		}
		(<-wins).Release()
	}
}

// deadOwner is an owner whose process has exited: this host's, a child's
// pid that is gone.
func deadOwner(t *testing.T, label string) Owner {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	o := Self(label)
	o.Pid = cmd.Process.Pid
	return o
}
