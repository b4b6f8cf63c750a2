package leases

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/clapper-dev/clapper/internal/procfs"
)

// Store keeps leases and the origin ledger under a state folder:
// DIR/leases/TAB.json and DIR/origins/TAB.json.
type Store struct {
	dir string
	// Alive reports whether a holder process still runs (tests replace
	// it); by default, /proc with the start time checked.
	Alive func(pid int, start uint64) bool
	// Now is the clock (tests replace it).
	Now func() time.Time
	// lockWait is how long lock waits for another holder of the store's
	// lock (0: defaultLockWait; tests shorten it).
	lockWait time.Duration
}

// Open returns the store under dir, making its folders.
func Open(dir string) (*Store, error) {
	for _, sub := range []string{"leases", "origins"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("state folder: %w", err)
		}
	}
	return &Store{dir: dir, Alive: ProcessAlive, Now: time.Now}, nil
}

// Dir is the state folder.
func (s *Store) Dir() string { return s.dir }

// ProcessAlive reports whether pid runs and is the process that started
// at start (a reused pid is another process).
func ProcessAlive(pid int, start uint64) bool {
	p, ok := procfs.Read(pid)
	return ok && !p.Zombie() && (start == 0 || p.Start == start)
}

// Self is this process as a caller, with token.
func Self(token string) Caller {
	c := Caller{Pid: os.Getpid(), Token: token}
	if p, ok := procfs.Read(c.Pid); ok {
		c.Start = p.Start
	}
	return c
}

func (s *Store) path(tab string) string { return filepath.Join(s.dir, "leases", tab+".json") }

// read reads a tab's lease: nil, nil when there is none; an
// *UnreadableError when the file is there but cannot be read.
func (s *Store) read(tab string) (*Lease, error) {
	p := s.path(tab)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &UnreadableError{Tab: tab, Path: p, Reason: errnoOf(err)}
	}
	var l Lease
	if json.Unmarshal(b, &l) != nil || l.Pid <= 0 || l.Nonce == "" || l.Tab != tab {
		return nil, &UnreadableError{Tab: tab, Path: p, Reason: "unparseable"}
	}
	return &l, nil
}

// errnoOf names an error's errno (EACCES, …), or says what it is.
func errnoOf(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		if name := errnoNames[en]; name != "" {
			return name
		}
		return en.Error()
	}
	return err.Error()
}

var errnoNames = map[syscall.Errno]string{
	syscall.EACCES: "EACCES", syscall.EPERM: "EPERM", syscall.EISDIR: "EISDIR",
	syscall.EIO: "EIO", syscall.ELOOP: "ELOOP", syscall.ENAMETOOLONG: "ENAMETOOLONG",
}

// Claim asks for a tab for caller c: a new lease when there is none, the
// same lease refreshed when c holds it, a reclaimed one (new nonce, so the
// old token is dead) when its holder is gone or it expired. A live holder
// gives a *ConflictError and an unreadable file an *UnreadableError; there
// is no force. l carries Tab, Browser, URL, Label, Tier and TTLMs; the
// rest is filled in. It returns the lease now held and, when one was
// reclaimed, the lease it replaced.
func (s *Store) Claim(l Lease, c Caller) (held Lease, reclaimed *Lease, err error) {
	now := s.Now().UTC()
	l.Pid, l.Start, l.Created, l.LastUsed = c.Pid, c.Start, now, now
	if l.TTLMs <= 0 {
		l.TTLMs = DefaultTTL.Milliseconds()
	}
	if l.Nonce, err = nonce(); err != nil {
		return Lease{}, nil, err
	}
	// The fast path needs no lock: a file made whole, then linked in
	// place, which fails when one is there (two claims cannot both win).
	switch err := s.create(l); {
	case err == nil:
		return l, nil, nil
	case !errors.Is(err, os.ErrExist):
		return Lease{}, nil, err
	}
	unlock, err := s.lock()
	if err != nil {
		return Lease{}, nil, err
	}
	defer unlock()
	cur, rerr := s.read(l.Tab)
	var un *UnreadableError
	if errors.As(rerr, &un) {
		return Lease{}, nil, un
	}
	alive := cur != nil && s.Alive(cur.Pid, cur.Start)
	switch Decide(cur, true, alive, c, now) {
	case Free: // released between the two looks
		return l, nil, s.create(l)
	case Yours:
		cur.LastUsed = now
		return *cur, nil, s.replace(*cur)
	case Reclaim:
		if err := os.Remove(s.path(l.Tab)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return Lease{}, nil, fmt.Errorf("reclaim lease on tab %s: %w", l.Tab, err)
		}
		if err := s.create(l); err != nil {
			if errors.Is(err, os.ErrExist) { // a fast claim won the gap
				other, _ := s.read(l.Tab)
				return Lease{}, nil, conflict(l.Tab, other)
			}
			return Lease{}, nil, err
		}
		return l, cur, nil
	}
	return Lease{}, nil, conflict(l.Tab, cur)
}

func conflict(tab string, l *Lease) error {
	if l == nil {
		return &ConflictError{Tab: tab, Holder: "another claim"}
	}
	return &ConflictError{Tab: tab, URL: l.URL, Holder: l.Label, Pid: l.Pid}
}

// Check is the choke point's lease check for using a tab: a tab nobody
// holds is refused to nobody (ok, nil lease), the caller's own lease is
// refreshed (every use counts), anything else is refused with the typed
// error: a healthy holder's (*ConflictError), one this caller held and
// lost (*LostError, when token names the tab), an unreadable file
// (*UnreadableError). A stale lease of someone else is reclaimable by a
// claim, not usable by a bare use.
func (s *Store) Check(tab string, c Caller) (*Lease, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := s.read(tab)
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC()
	alive := cur != nil && s.Alive(cur.Pid, cur.Start)
	switch Decide(cur, true, alive, c, now) {
	case Free:
		if strings.HasPrefix(c.Token, tab+":") {
			return nil, &LostError{Tab: tab}
		}
		return nil, nil
	case Yours:
		cur.LastUsed = now
		if c.URL != "" {
			cur.URL = c.URL
		}
		return cur, s.replace(*cur)
	}
	if strings.HasPrefix(c.Token, tab+":") {
		return nil, &LostError{Tab: tab, Now: cur}
	}
	return nil, conflict(tab, cur)
}

// Release gives a tab's lease back: released is true only when c held it
// (or it was stale, so anyone may end it) and it was removed. A release
// that did not happen (none there, someone else's healthy lease) reports
// false; a healthy lease of another holder is a *ConflictError.
func (s *Store) Release(tab string, c Caller) (released bool, was *Lease, err error) {
	unlock, err := s.lock()
	if err != nil {
		return false, nil, err
	}
	defer unlock()
	cur, err := s.read(tab)
	if err != nil || cur == nil {
		return false, nil, err
	}
	if strings.HasPrefix(c.Token, tab+":") && c.Token != cur.Token() {
		return false, cur, nil // lost (reclaimed since): no release happened, and nothing is refused
	}
	alive := s.Alive(cur.Pid, cur.Start)
	switch Decide(cur, true, alive, c, s.Now().UTC()) {
	case Yours, Reclaim:
		if err := os.Remove(s.path(tab)); err != nil {
			return false, cur, fmt.Errorf("release lease on tab %s: %w", tab, err)
		}
		return true, cur, nil
	}
	return false, cur, conflict(tab, cur)
}

// Drop removes a stale lease whose tab was just closed by reaping. It
// removes nothing that is not stale any more.
func (s *Store) Drop(tab, nonce string) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := s.read(tab)
	if err != nil || cur == nil || cur.Nonce != nonce {
		return err
	}
	if Staleness(*cur, s.Alive(cur.Pid, cur.Start), s.Now().UTC()) == "" {
		return nil // used again since it was judged stale
	}
	return os.Remove(s.path(tab))
}

// Row is one lease as a listing shows it: never the nonce.
type Row struct {
	Lease      Lease
	Unreadable string // errno or "unparseable"; the other fields are zero then
	Alive      bool
	Stale      string // DeadPid, Expired or ""
}

// List reads every lease. An unreadable file is a row of its own, never
// skipped and never stale.
func (s *Store) List() ([]Row, error) {
	ents, err := os.ReadDir(filepath.Join(s.dir, "leases"))
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC()
	var rows []Row
	for _, e := range ents {
		tab, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		l, err := s.read(tab)
		var un *UnreadableError
		switch {
		case errors.As(err, &un):
			rows = append(rows, Row{Lease: Lease{Tab: tab}, Unreadable: un.Reason})
		case l != nil:
			alive := s.Alive(l.Pid, l.Start)
			rows = append(rows, Row{Lease: *l, Alive: alive, Stale: Staleness(*l, alive, now)})
		}
	}
	return rows, nil
}

// create writes l to a temporary file and links it in place: the lease
// appears whole or not at all, and not over another one.
func (s *Store) create(l Lease) error {
	tmp, err := s.temp(l)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, s.path(l.Tab)); err != nil {
		if errors.Is(err, os.ErrExist) {
			return os.ErrExist
		}
		return fmt.Errorf("lease tab %s: %w", l.Tab, err)
	}
	return nil
}

// replace rewrites a lease held under the lock, atomically.
func (s *Store) replace(l Lease) error {
	tmp, err := s.temp(l)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path(l.Tab)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("refresh lease on tab %s: %w", l.Tab, err)
	}
	return nil
}

func (s *Store) temp(l Lease) (string, error) {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(filepath.Join(s.dir, "leases"), ".new-*")
	if err != nil {
		return "", fmt.Errorf("lease tab %s: %w", l.Tab, err)
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("lease tab %s: %w", l.Tab, werr)
	}
	return f.Name(), nil
}

// lock serialises the read-decide-write of leases between processes
// (flock on DIR/leases/.lock). A holder lets go within milliseconds, or
// within a tab's close (up to 30 s, session's browserCallLimit, for a
// browser slow to answer) when it closes one under the lock; one that has
// not after lockWait is stopped or hung (a clapper suspended with Ctrl-Z
// while it held it), and the caller gets an error saying so rather than
// waiting with it, so that a run can still end.
func (s *Store) lock() (func(), error) {
	path := filepath.Join(s.dir, "leases", ".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock leases: %w", err)
	}
	wait := cmp.Or(s.lockWait, defaultLockWait)
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock leases: %w", err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock leases: %s has been locked by another process for %v: a clapper stopped while it held it (Ctrl-Z), or a browser that no longer answers? Let it go on, or end it", path, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// defaultLockWait is how long lock waits for another holder of the
// store's lock.
const defaultLockWait = 2 * time.Minute

func nonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("lease nonce: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Peek checks, without changing anything, whether c could claim or use
// tab (url is its address now, for the error): nil when it is free, c's,
// or stale; the typed refusal otherwise. The claim or use that follows
// checks again, atomically.
func (s *Store) Peek(tab, url string, c Caller) error {
	cur, err := s.read(tab)
	if err != nil {
		return err
	}
	alive := cur != nil && s.Alive(cur.Pid, cur.Start)
	if Decide(cur, true, alive, c, s.Now().UTC()) == Conflict {
		e := conflict(tab, cur).(*ConflictError)
		if e.URL == "" {
			// The holder recorded none: the address now, to its origin
			// (it may hold the holder's secrets).
			e.URL = OriginOnly(url)
		}
		return e
	}
	return nil
}

// DropOthers removes the stale leases of browsers other than browser: a
// new host's browser has none of their tabs, so they can never be
// reaped or used again. Healthy ones (a live run attached to another
// browser with this state folder) and unreadable ones stay. It returns
// how many went.
func (s *Store) DropOthers(browser string) int {
	rows, _ := s.List()
	n := 0
	for _, r := range rows {
		if r.Unreadable == "" && r.Lease.Browser != browser && r.Stale != "" && s.Drop(r.Lease.Tab, r.Lease.Nonce) == nil {
			n++
		}
	}
	return n
}

// Leased reports whether tab has a lease file, readable or not.
func (s *Store) Leased(tab string) bool {
	_, err := os.Lstat(s.path(tab))
	return err == nil
}
