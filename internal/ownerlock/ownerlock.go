// Package ownerlock names the owner of a folder in a lock file: a run's
// output folder, a browser profile. The file is linked into place whole
// and exclusively, so two claims cannot both win and none reads it half
// written; it names the owner's process (pid and start time, so a reused
// pid is not mistaken for it), host and start. A lock whose owner is gone
// may be taken over, by one claimant of those that find it (the file is
// removed under an flock on its folder, and only while it still names the
// dead owner); a live owner's never is.
package ownerlock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/internal/procfs"
)

// Owner is who holds a lock.
type Owner struct {
	Pid   int       `json:"pid"`
	Start uint64    `json:"start_ticks"` // the process's start, from /proc
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
	Label string    `json:"label,omitempty"` // what the owner is doing, for people
}

// Self is this process as an owner.
func Self(label string) Owner {
	host, _ := os.Hostname()
	o := Owner{Pid: os.Getpid(), Host: host, Since: time.Now().UTC().Truncate(time.Second), Label: label}
	if p, ok := procfs.Read(o.Pid); ok {
		o.Start = p.Start
	}
	return o
}

// Alive reports whether the owner's process still runs. An owner on
// another host cannot be checked and counts as alive.
func (o Owner) Alive() bool {
	if host, _ := os.Hostname(); o.Host != host {
		return true
	}
	p, ok := procfs.Read(o.Pid)
	return ok && !p.Zombie() && (o.Start == 0 || p.Start == o.Start)
}

func (o Owner) String() string {
	s := fmt.Sprintf("pid %d on %s since %s", o.Pid, o.Host, o.Since.Format(time.RFC3339))
	if o.Label != "" {
		s = o.Label + " (" + s + ")"
	}
	return s
}

// HeldError says a lock is held by a live owner.
type HeldError struct {
	Path  string
	Owner Owner
}

func (e *HeldError) Error() string { return fmt.Sprintf("%s is held by %s", e.Path, e.Owner) }

// Lock is a lock this process holds.
type Lock struct {
	path  string
	owner Owner
}

// Acquire takes the lock at path for this process. When the file names an
// owner that is gone, the lock is taken over and that owner returned; a
// live owner gives a *HeldError; an unreadable lock file is an error,
// never taken as free.
func Acquire(path, label string) (*Lock, *Owner, error) {
	me := Self(label)
	b, err := json.Marshal(me)
	if err != nil {
		return nil, nil, err
	}
	var stale *Owner
	for range 3 {
		made, err := create(path, append(b, '\n'))
		if err != nil {
			return nil, nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if made {
			return &Lock{path: path, owner: me}, stale, nil
		}
		raw, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read lock %s: %w", path, err)
		}
		o, rerr := parse(path, raw)
		if rerr != nil {
			return nil, nil, rerr
		}
		if o.Alive() {
			return nil, nil, &HeldError{Path: path, Owner: o}
		}
		// Gone: take it over. Another claimant may have found the same
		// dead owner: only one removes its file (takeOver), and the
		// other finds the first's lock in its place next round.
		stale = &o
		if err := takeOver(path, raw); err != nil {
			return nil, nil, fmt.Errorf("take over lock %s: %w", path, err)
		}
	}
	return nil, nil, fmt.Errorf("lock %s: taken and released by others while claiming it; try again", path)
}

// create makes the lock file at path holding b, unless it exists: b is
// written beside it and linked into place, so that the file is never seen
// empty or half written by another claimant reading it. Where hard links
// are not supported, the file is made exclusively and then written.
func create(path string, b []byte) (bool, error) {
	tmp := fmt.Sprintf("%s.%d-%d.new", path, os.Getpid(), rand.Uint64())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, os.ErrExist):
		return false, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return false, werr
	}
	return true, nil
}

// takeOver removes the lock file at path if it still holds was, the dead
// owner's record, under an flock on the lock's folder: of two claimants
// that found the same dead owner, the second finds the file gone or
// another's, and leaves it.
func takeOver(path string, was []byte) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	switch err := unix.Flock(int(d.Fd()), unix.LOCK_EX); {
	case err == nil:
		defer unix.Flock(int(d.Fd()), unix.LOCK_UN)
	case errors.Is(err, unix.EBADF), errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EINVAL):
		// A file system that cannot lock a folder (NFS emulates flock
		// with byte-range locks, which a folder opened to read cannot
		// take): the check below still leaves a lock that names another
		// owner, and only the race between two takeovers is open.
	default:
		return err
	}
	now, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(now, was) {
		return nil // another claimant's lock now
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Read reads who holds the lock at path.
func Read(path string) (Owner, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Owner{}, fmt.Errorf("read lock %s: %w", path, err)
	}
	return parse(path, b)
}

// parse reads the owner in lock file path's contents b.
func parse(path string, b []byte) (Owner, error) {
	var o Owner
	if err := json.Unmarshal(b, &o); err != nil || o.Pid <= 0 {
		return o, fmt.Errorf("lock %s is unreadable (%v): remove it only if no run is using this folder", path, err)
	}
	return o, nil
}

// Release gives the lock back, if this process still holds it.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	o, err := Read(l.path)
	if err != nil {
		return err
	}
	if o.Pid != l.owner.Pid || o.Start != l.owner.Start {
		return fmt.Errorf("lock %s was taken over by %s", l.path, o)
	}
	return os.Remove(l.path)
}

// Sweep removes the folders matching pattern whose lock file (name,
// inside each) names an owner that is gone, calling before(dir) first
// (to end what still runs from it). A folder whose owner lives, or that
// names no owner yet (being made), is never touched. It returns the
// folders removed.
func Sweep(pattern, name string, before func(dir string)) []string {
	dirs, _ := filepath.Glob(pattern)
	staged, _ := filepath.Glob(filepath.Join(filepath.Dir(pattern), stagePrefix+filepath.Base(pattern)))
	var removed []string
	for _, dir := range append(dirs, staged...) {
		o, err := Read(filepath.Join(dir, name))
		isStaged := strings.HasPrefix(filepath.Base(dir), stagePrefix)
		switch {
		case err == nil && o.Alive():
			continue
		case err != nil && !(isStaged && oldStage(dir)):
			// No owner to ask: a folder someone else made, or one being
			// staged this very moment.
			continue
		}
		if before != nil {
			before(dir)
		}
		if removeOwnerLast(dir, name) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// stagePrefix begins the name of a folder MkdirOwned is making: it gets its
// owner file before it is renamed into the pattern callers sweep.
const stagePrefix = ".new-"

// stageAge is how old a staged folder without a readable owner file must be
// before a sweep takes it for debris: MkdirOwned writes the file at once
// (microseconds after making the folder; a few seconds would be a very
// loaded machine), and a killed claimant's is then cleared by the next
// sweep but one.
const stageAge = 5 * time.Second

func oldStage(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && time.Since(st.ModTime()) > stageAge
}

// MkdirOwned makes a new folder in parent named prefix and a random suffix,
// owned by this process (its lock file name names it, label saying what
// for), and returns its path. The folder appears under that name with its
// owner file already whole: it is made and claimed under a staging name
// and renamed, so a process killed at any moment leaves no folder a sweep
// (Sweep of prefix*) cannot tell the owner of.
func MkdirOwned(parent, prefix, name, label string) (string, error) {
	stage, err := os.MkdirTemp(parent, stagePrefix+prefix)
	if err != nil {
		return "", err
	}
	if _, _, err := Acquire(filepath.Join(stage, name), label); err != nil {
		os.RemoveAll(stage)
		return "", err
	}
	for range 10 {
		dir := filepath.Join(parent, prefix+strconv.FormatUint(rand.Uint64()%1e12, 10))
		if _, err := os.Lstat(dir); err == nil {
			continue // taken
		}
		if err := os.Rename(stage, dir); err == nil {
			return dir, nil
		}
	}
	os.RemoveAll(stage)
	return "", fmt.Errorf("make a folder %s* in %s: no free name", prefix, parent)
}

// removeOwnerLast removes dir, its lock file name last: a process that
// is still dying can write into the folder while it goes, and a folder
// left half removed must keep naming its (gone) owner, or no later sweep
// would dare touch it. It tries a few times, briefly.
func removeOwnerLast(dir, name string) error {
	var err error
	for try := 0; try < 5; try++ {
		if try > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		entries, rerr := os.ReadDir(dir)
		if rerr != nil {
			if os.IsNotExist(rerr) {
				return nil
			}
			err = rerr
			continue
		}
		err = nil
		for _, e := range entries {
			if e.Name() != name {
				if rerr := os.RemoveAll(filepath.Join(dir, e.Name())); rerr != nil {
					err = rerr
				}
			}
		}
		if err == nil {
			if err = os.Remove(filepath.Join(dir, name)); err == nil || os.IsNotExist(err) {
				if err = os.Remove(dir); err == nil {
					return nil
				}
			}
		}
	}
	return err
}
