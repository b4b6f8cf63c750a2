package leases

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary play a second OS process: with
// CLAPPER_LEASE_HELPER=claim it claims a tab in the store named by
// CLAPPER_LEASE_DIR, prints the lease and exits (leaving the lease as a
// run killed would).
func TestMain(m *testing.M) {
	if os.Getenv("CLAPPER_LEASE_HELPER") == "claim-and-hold" {
		os.Exit(claimAndHold())
	}
	if os.Getenv("CLAPPER_LEASE_HELPER") == "claim" {
		s, err := Open(os.Getenv("CLAPPER_LEASE_DIR"))
		if err == nil {
			var l Lease
			l, _, err = s.Claim(Lease{Tab: os.Getenv("CLAPPER_LEASE_TAB"), Browser: "B", Label: "helper", Tier: Automatic}, Self(""))
			if err == nil {
				_ = json.NewEncoder(os.Stdout).Encode(l)
				os.Exit(0)
			}
		}
		fmt.Fprintln(os.Stdout, "ERR", err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func helperClaim(t *testing.T, dir, tab string) (Lease, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CLAPPER_LEASE_HELPER=claim", "CLAPPER_LEASE_DIR="+dir, "CLAPPER_LEASE_TAB="+tab)
	out, _ := cmd.Output()
	var l Lease
	if err := json.Unmarshal(out, &l); err != nil {
		return Lease{}, string(out)
	}
	return l, ""
}

func store(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func claimArgs(tab string, tier Tier) Lease {
	return Lease{Tab: tab, Browser: "B", URL: "https://app.test/", Label: "run one", Tier: tier}
}

func TestClaimCheckRelease(t *testing.T) {
	s := store(t)
	me := Self("")
	l, re, err := s.Claim(claimArgs("T1", Explicit), me)
	if err != nil || re != nil || l.Nonce == "" || l.Pid != me.Pid || l.Start != me.Start || l.TTL() != DefaultTTL {
		t.Fatalf("Claim = %+v, %v, %v", l, re, err)
	}
	// Explicit: even this process needs the token.
	if _, err := s.Check("T1", me); err == nil {
		t.Error("explicit lease used without its token")
	}
	other := Caller{Pid: me.Pid + 100000, Start: 1}
	_, err = s.Check("T1", other)
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Tab != "T1" || ce.Holder != "run one" || ce.URL != "https://app.test/" {
		t.Fatalf("other process: %v", err)
	}
	// A use with the token refreshes the lease.
	later := time.Now().Add(10 * time.Minute)
	s.Now = func() time.Time { return later }
	mine := me
	mine.Token = l.Token()
	got, err := s.Check("T1", mine)
	if err != nil || !got.LastUsed.Equal(later.UTC()) {
		t.Fatalf("Check with token = %+v, %v", got, err)
	}
	// Ten more minutes: 20 since the claim, 10 since the last use: healthy.
	s.Now = func() time.Time { return later.Add(10 * time.Minute) }
	if _, err := s.Check("T1", other); !errors.As(err, &ce) {
		t.Errorf("refreshed lease not held: %v", err)
	}
	// Someone else cannot release it.
	if ok, _, err := s.Release("T1", other); ok || !errors.As(err, &ce) {
		t.Errorf("other's Release = %v, %v", ok, err)
	}
	if ok, _, err := s.Release("T1", mine); !ok || err != nil {
		t.Errorf("Release = %v, %v", ok, err)
	}
	// Twice is a release that did not happen.
	if ok, _, err := s.Release("T1", mine); ok || err != nil {
		t.Errorf("second Release = %v, %v", ok, err)
	}
	if _, err := s.Check("T1", mine); err == nil {
		t.Error("a released token still works")
	}
}

func TestAutomaticOwnedByProcess(t *testing.T) {
	s := store(t)
	me := Self("")
	if _, _, err := s.Claim(claimArgs("T1", Automatic), me); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check("T1", me); err != nil {
		t.Errorf("own process refused: %v", err)
	}
	reused := me
	reused.Start++
	if _, err := s.Check("T1", reused); err == nil {
		t.Error("a process with this pid and another start passed")
	}
}

// Expiry: a lease unused past its TTL is reclaimed with a new nonce; the
// old holder's token is then refused as lost, and its release is one that
// did not happen.
func TestReclaimExpired(t *testing.T) {
	s := store(t)
	me := Self("")
	first, _, err := s.Claim(claimArgs("T1", Explicit), me)
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return time.Now().Add(16 * time.Minute) }
	other := Caller{Pid: me.Pid + 100000, Start: 1}
	s.Alive = func(pid int, start uint64) bool { return true }
	args := claimArgs("T1", Explicit)
	args.Label = "run two"
	second, was, err := s.Claim(args, other)
	if err != nil || was == nil || was.Nonce != first.Nonce || second.Nonce == first.Nonce {
		t.Fatalf("reclaim = %+v, was %+v, %v", second, was, err)
	}
	old := me
	old.Token = first.Token()
	var lost *LostError
	if _, err := s.Check("T1", old); !errors.As(err, &lost) || lost.Now == nil || lost.Now.Label != "run two" {
		t.Errorf("old token: %v", err)
	}
	if ok, _, err := s.Release("T1", old); ok || err != nil {
		t.Errorf("old holder's release = %v, %v: must not happen", ok, err)
	}
}

// A lease left by a real process that exited is reclaimable, with a new
// nonce.
func TestReclaimFromExitedProcess(t *testing.T) {
	s := store(t)
	left, msg := helperClaim(t, s.Dir(), "T9")
	if msg != "" {
		t.Fatalf("helper: %s", msg)
	}
	if ProcessAlive(left.Pid, left.Start) {
		t.Fatal("helper still alive")
	}
	rows, _ := s.List()
	if len(rows) != 1 || rows[0].Stale != DeadPid || rows[0].Alive {
		t.Fatalf("List = %+v", rows)
	}
	l, was, err := s.Claim(claimArgs("T9", Automatic), Self(""))
	if err != nil || was == nil || was.Pid != left.Pid || l.Nonce == left.Nonce {
		t.Fatalf("reclaim = %+v, was %+v, %v", l, was, err)
	}
}

// claimAndHold is a helper process that claims a tab, says how it went
// on one line (WON, CONFLICT or ERR), and stays alive, holding whatever it
// won, until its stdin closes.
func claimAndHold() int {
	s, err := Open(os.Getenv("CLAPPER_LEASE_DIR"))
	if err == nil {
		_, _, err = s.Claim(Lease{Tab: os.Getenv("CLAPPER_LEASE_TAB"), Browser: "B", Label: "helper " + fmt.Sprint(os.Getpid()), Tier: Automatic}, Self(""))
	}
	var ce *ConflictError
	switch {
	case err == nil:
		fmt.Println("WON")
	case errors.As(err, &ce):
		fmt.Println("CONFLICT", ce.Holder)
	default:
		fmt.Println("ERR", err)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// Two claims at once cannot both win: real processes racing for one tab,
// each alive and holding what it got until all have tried.
func TestExclusiveClaim(t *testing.T) {
	s := store(t)
	const n = 6
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
	}
	var procs []proc
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "CLAPPER_LEASE_HELPER=claim-and-hold", "CLAPPER_LEASE_DIR="+s.Dir(), "CLAPPER_LEASE_TAB=T1")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, proc{cmd, stdin, bufio.NewReader(stdout)})
	}
	answers := map[string]int{}
	for _, p := range procs {
		line, err := p.out.ReadString('\n')
		if err != nil {
			t.Errorf("helper: %v", err)
		}
		verdict, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		answers[verdict]++
		if verdict == "ERR" {
			t.Errorf("helper: %s", line)
		}
	}
	// All have tried, and all still live: exactly one holds the tab.
	rows, err := s.List()
	if err != nil || len(rows) != 1 || rows[0].Unreadable != "" || !rows[0].Alive {
		t.Errorf("List = %+v, %v", rows, err)
	}
	for _, p := range procs {
		p.stdin.Close()
		_ = p.cmd.Wait()
	}
	if answers["WON"] != 1 || answers["CONFLICT"] != n-1 {
		t.Errorf("answers %v, want one WON and %d CONFLICT", answers, n-1)
	}
	var wg sync.WaitGroup
	// Live claimants in one process: exactly one wins, the others get the
	// conflict naming it.
	s2 := store(t)
	s2.Alive = func(int, uint64) bool { return true }
	var mu sync.Mutex
	wins, conflicts := 0, 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := claimArgs("T2", Automatic)
			args.Label = fmt.Sprint("claimant ", i)
			_, _, err := s2.Claim(args, Caller{Pid: 1000 + i, Start: 1})
			var ce *ConflictError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.As(err, &ce) && strings.HasPrefix(ce.Holder, "claimant "):
				conflicts++
			default:
				t.Errorf("claim: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 || conflicts != 19 {
		t.Errorf("%d won, %d refused; want 1 and 19", wins, conflicts)
	}
}

// An unreadable lease file is reported with its reason and never free.
func TestUnreadable(t *testing.T) {
	s := store(t)
	if err := os.WriteFile(s.path("BAD"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(s.path("DIR"), 0o700); err != nil { // reading it fails with EISDIR
		t.Fatal(err)
	}
	rows, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, r := range rows {
		reasons[r.Lease.Tab] = r.Unreadable
		if r.Stale != "" {
			t.Errorf("unreadable row %s is stale %q", r.Lease.Tab, r.Stale)
		}
	}
	if reasons["BAD"] != "unparseable" || reasons["DIR"] != "EISDIR" {
		t.Errorf("reasons = %v", reasons)
	}
	for _, tab := range []string{"BAD", "DIR"} {
		var un *UnreadableError
		if _, _, err := s.Claim(claimArgs(tab, Automatic), Self("")); !errors.As(err, &un) {
			t.Errorf("Claim(%s) over an unreadable lease: %v", tab, err)
		}
		if _, err := s.Check(tab, Self("")); !errors.As(err, &un) {
			t.Errorf("Check(%s): %v", tab, err)
		}
	}
	if b, _ := os.ReadFile(s.path("BAD")); string(b) != "{not json" {
		t.Error("the unreadable lease was changed")
	}
}

func TestOrigins(t *testing.T) {
	s := store(t)
	for _, tab := range []string{"A", "B"} {
		if err := s.RecordOrigin(Origin{Tab: tab, Browser: "X", Label: "run"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordOrigin(Origin{Tab: "C", Browser: "Y"}); err != nil {
		t.Fatal(err)
	}
	if !s.Opened("A", "X") || s.Opened("A", "Y") || s.Opened("Z", "X") {
		t.Error("Opened answers wrong")
	}
	// The ledger outlives the lease: a claim and release leave it.
	me := Self("")
	l, _, _ := s.Claim(claimArgs("A", Automatic), me)
	me.Token = l.Token()
	s.Release("A", me)
	if !s.Opened("A", "X") {
		t.Error("release dropped the origin record")
	}
	// Pruning drops only this browser's gone tabs, and not one recorded
	// since the pages were listed (its tab may be missing from the list
	// because it was opened after it).
	listed := time.Now()
	if err := s.RecordOrigin(Origin{Tab: "E", Browser: "X", Created: listed.Add(time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	if n := s.PruneOrigins("X", map[string]bool{"A": true}, listed); n != 1 {
		t.Errorf("pruned %d, want 1", n)
	}
	if !s.Opened("A", "X") || s.Opened("B", "X") || !s.Opened("C", "Y") || !s.Opened("E", "X") {
		t.Error("pruning dropped the wrong records")
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "origins", "D.json"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s.Opened("D", "X") {
		t.Error("an unreadable origin counts as opened")
	}
}

// Drop removes only a lease still stale with the nonce it was judged by;
// DropOthers only other browsers' stale leases.
func TestDrop(t *testing.T) {
	s := store(t)
	alive := map[int]bool{1: true, 2: false, 3: false, 4: true}
	s.Alive = func(pid int, _ uint64) bool { return alive[pid] }
	claim := func(tab, browser string, pid int) Lease {
		l, _, err := s.Claim(Lease{Tab: tab, Browser: browser, Label: tab, Tier: Automatic}, Caller{Pid: pid, Start: 1})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	healthy := claim("HEALTHY", "B", 1)
	dead := claim("DEAD", "B", 2)
	claim("OTHERDEAD", "A", 3)
	claim("OTHERLIVE", "A", 4)
	s.Drop("HEALTHY", healthy.Nonce)
	s.Drop("DEAD", "wrong nonce")
	if rows, _ := s.List(); len(rows) != 4 {
		t.Fatalf("Drop removed a healthy lease or one by a wrong nonce: %+v", rows)
	}
	s.Drop("DEAD", dead.Nonce)
	if n := s.DropOthers("B"); n != 1 {
		t.Errorf("DropOthers removed %d, want 1", n)
	}
	var left []string
	rows, _ := s.List()
	for _, r := range rows {
		left = append(left, r.Lease.Tab)
	}
	if strings.Join(left, ",") != "HEALTHY,OTHERLIVE" {
		t.Errorf("left %v", left)
	}
}

// The store's lock waits for another holder, and gives up with an error
// naming the lock when that holder does not let go (a stopped process).
func TestLockGivesUpOnAStuckHolder(t *testing.T) {
	s := store(t)
	s.lockWait = 200 * time.Millisecond
	unlock, err := s.lock()
	if err != nil {
		t.Fatal(err)
	}
	// Another holder (another open file: flock is per open file) waits,
	// then gives up.
	if _, err := s.lock(); err == nil || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("second lock: %v, want it to give up", err)
	}
	// Let go during the wait: the waiter gets it.
	s.lockWait = time.Minute
	go func() { time.Sleep(50 * time.Millisecond); unlock() }()
	u2, err := s.lock()
	if err != nil {
		t.Fatalf("lock after the holder let go: %v", err)
	}
	u2()
}
