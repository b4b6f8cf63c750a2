package recorder

import (
	"errors"
	"math/rand"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// offer is one frame offered to a ledger: its source time and whether it
// is usable.
type offer struct {
	src timeline.Time
	ok  bool
}

func ok(srcs ...timeline.Time) []offer {
	out := make([]offer, len(srcs))
	for i, s := range srcs {
		out[i] = offer{s, true}
	}
	return out
}

func TestLedgerStreams(t *testing.T) {
	A, L, D, R := Accept, Late, Duplicate, Reject
	cases := []struct {
		name     string
		inFlight int
		stream   []offer
		stopAt   int // Stop before this index; -1 never
		want     []Verdict
		clockErr bool
	}{
		{"in order", 0, ok(1, 2, 3, 4), -1, []Verdict{A, A, A, A}, false},
		{"first frame negative time", 0, ok(-5, -1, 0, 1), -1, []Verdict{A, A, A, A}, false},
		{"out of order by one", 0, ok(1, 3, 2, 4), -1, []Verdict{A, A, L, A}, false},
		{"out of order by two", 0, ok(1, 4, 2, 3, 5), -1, []Verdict{A, A, L, L, A}, false},
		{"out of order by in-flight limit", 0, ok(1, 5, 2, 3, 4, 6), -1, []Verdict{A, A, L, L, L, A}, false},
		{"late behind an older delivered frame", 0, ok(1, 2, 3, 2), -1, []Verdict{A, A, A, L}, false},
		{"equal timestamps", 0, ok(1, 2, 2, 3, 3, 3), -1, []Verdict{A, A, D, A, D, D}, false},
		{"equal to an older frame is late", 0, ok(1, 2, 3, 1), -1, []Verdict{A, A, A, L}, false},
		{"unusable frames are rejected and change nothing", 0, []offer{{1, true}, {9, false}, {2, true}, {2, false}, {3, true}}, -1, []Verdict{A, R, A, R, A}, false},
		{"frames after stop", 0, ok(1, 2, 3, 4), 2, []Verdict{A, A, R, R}, false},
		{"stop before anything", 0, ok(1, 2), 0, []Verdict{R, R}, false},
		{"an accepted frame ends a late run", 0, ok(10, 1, 2, 3, 11, 4, 5, 6, 12), -1, []Verdict{A, L, L, L, A, L, L, L, A}, false},
		{"clock goes backwards: more late frames than in flight", 0, ok(10, 1, 2, 3, 4, 5, 11), -1, []Verdict{A, L, L, L, L, R, R}, true},
		{"duplicates do not hide a backwards clock", 0, ok(10, 1, 10, 2, 3, 10, 4, 11), -1, []Verdict{A, L, D, L, L, D, L, R}, true},
		{"rejects do not hide a backwards clock", 0, []offer{{10, true}, {1, true}, {2, true}, {0, false}, {3, true}, {4, true}, {11, true}}, -1, []Verdict{A, L, L, R, L, L, R}, true},
		{"in-flight 1 allows one late frame", 1, ok(5, 4, 6), -1, []Verdict{A, L, A}, false},
		{"in-flight 1 ends on two", 1, ok(5, 4, 3, 6), -1, []Verdict{A, L, L, R}, true},
		{"in-flight 6 allows six", 6, ok(9, 1, 2, 3, 4, 5, 6, 10), -1, []Verdict{A, L, L, L, L, L, L, A}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := Ledger{InFlight: c.inFlight}
			var got []Verdict
			for i, o := range c.stream {
				if i == c.stopAt {
					l.Stop()
				}
				got = append(got, l.Offer(o.src, o.ok))
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("frame %d (src %d): got %v, want %v (all: %v)", i, c.stream[i].src, got[i], c.want[i], got)
				}
			}
			var ce *ClockError
			if gotErr := errors.As(l.Err(), &ce); gotErr != c.clockErr {
				t.Fatalf("clock error %v, want %v", l.Err(), c.clockErr)
			}
			if ce != nil && (ce.Run <= ce.Limit || ce.Limit != l.limit()) {
				t.Errorf("clock error %+v: run must exceed the limit %d", ce, l.limit())
			}
			if c.clockErr != l.Stopped() && c.stopAt < 0 {
				t.Errorf("Stopped() = %v after clock error %v", l.Stopped(), c.clockErr)
			}
			// Every accepted frame is pending until the buffer settles it.
			n := map[Verdict]int64{}
			for _, v := range got {
				n[v]++
			}
			if l.Pending() != n[Accept] {
				t.Errorf("pending %d, accepted %d", l.Pending(), n[Accept])
			}
			l.Delivered(l.Pending())
			a := l.Accounting()
			if a.Received != int64(len(c.stream)) || a.Delivered != n[Accept] || a.Late != n[Late] || a.Duplicates != n[Duplicate] || a.Rejected != n[Reject] || a.Overflow != 0 {
				t.Errorf("accounting %+v, verdicts %v", a, n)
			}
			if !a.Balanced() || a.Upstream != "unknown" {
				t.Errorf("accounting %+v does not balance or claims upstream drops", a)
			}
		})
	}
}

func TestLedgerSettlesPendingFrames(t *testing.T) {
	var l Ledger
	for i := 1; i <= 10; i++ {
		if v := l.Offer(timeline.Time(i), true); v != Accept {
			t.Fatalf("frame %d: %v", i, v)
		}
	}
	l.Overflowed(3)
	l.Delivered(5)
	l.Dropped(2)
	a := l.Accounting()
	if l.Pending() != 0 || a.Overflow != 3 || a.Delivered != 5 || a.Rejected != 2 || !a.Balanced() {
		t.Errorf("pending %d, accounting %+v", l.Pending(), a)
	}
	if a.Discarded() != 5 {
		t.Errorf("discarded %d, want 5", a.Discarded())
	}
}

// TestLedgerProperty drives the ledger and a bounded buffer with random
// streams (jittered, reordered, repeated, unusable frames, a stop, a slow
// or failing spool) and checks the contract on each: the equations hold,
// every frame lands in exactly one bucket, delivered source times strictly
// increase, and every omitted sequence number is a discarded frame.
func TestLedgerProperty(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		l := Ledger{InFlight: 1 + rng.Intn(4)}
		type item struct {
			seq int64
			src timeline.Time
		}
		buf := Buffer[item]{MaxItems: 1 + rng.Intn(8), MaxBytes: int64(100 + rng.Intn(400))}
		if rng.Intn(4) == 0 {
			buf.MaxBytes = 0
		}
		fate := map[int64]string{}
		var delivered []item
		spoolFailed := false
		n := 50 + rng.Intn(400)
		stopAt := -1
		if rng.Intn(3) == 0 {
			stopAt = rng.Intn(n)
		}
		var clock timeline.Time
		settle := func(max int) {
			for i := 0; i < max; i++ {
				it, ok := buf.Pop()
				if !ok {
					return
				}
				if spoolFailed {
					l.Dropped(1)
					fate[it.seq] = "rejected"
					continue
				}
				l.Delivered(1)
				fate[it.seq] = "delivered"
				delivered = append(delivered, it)
			}
		}
		for seq := int64(0); seq < int64(n); seq++ {
			if int(seq) == stopAt {
				l.Stop()
			}
			clock += timeline.Time(rng.Intn(3)) // 0 makes duplicates
			src := clock
			switch rng.Intn(10) {
			case 0:
				src -= timeline.Time(1 + rng.Intn(4)) // reordered
			case 1:
				src -= timeline.Time(rng.Intn(1000)) // clock jump backwards
			}
			usable := rng.Intn(25) != 0
			switch l.Offer(src, usable) {
			case Accept:
				for _, ev := range buf.Push(item{seq, src}, int64(10+rng.Intn(120))) {
					l.Overflowed(1)
					fate[ev.seq] = "overflow"
				}
			case Late:
				fate[seq] = "late"
			case Duplicate:
				fate[seq] = "duplicate"
			case Reject:
				fate[seq] = "rejected"
			}
			if rng.Intn(20) == 0 && !spoolFailed && rng.Intn(10) == 0 {
				spoolFailed = true
			}
			settle(rng.Intn(3))
		}
		settle(1 << 30)
		a := l.Accounting()
		if !a.Balanced() || l.Pending() != 0 || a.Received != int64(n) {
			t.Fatalf("seed %d: accounting %+v pending %d for %d frames", seed, a, l.Pending(), n)
		}
		count := map[string]int64{}
		for _, f := range fate {
			count[f]++
		}
		if int64(len(fate)) != a.Received || count["delivered"] != a.Delivered || count["overflow"] != a.Overflow ||
			count["late"] != a.Late || count["duplicate"] != a.Duplicates || count["rejected"] != a.Rejected {
			t.Fatalf("seed %d: fates %v (%d frames) disagree with accounting %+v", seed, count, len(fate), a)
		}
		for i := 1; i < len(delivered); i++ {
			if delivered[i].src <= delivered[i-1].src || delivered[i].seq <= delivered[i-1].seq {
				t.Fatalf("seed %d: delivered %+v after %+v", seed, delivered[i], delivered[i-1])
			}
			for s := delivered[i-1].seq + 1; s < delivered[i].seq; s++ {
				if f := fate[s]; f == "delivered" || f == "" {
					t.Fatalf("seed %d: sequence gap at %d, fate %q", seed, s, f)
				}
			}
		}
	}
}

// A seed taken while screencast frames are in flight makes those frames
// late, but they are not evidence of the clock going backwards: only frames
// older than the last screencast frame are.
func TestLedgerSeedDoesNotFakeAClockError(t *testing.T) {
	var l Ledger
	for _, s := range []timeline.Time{10, 20, 30} {
		if v := l.Offer(s, true); v != Accept {
			t.Fatalf("frame %v: %v", s, v)
		}
	}
	if v, at := l.OfferSeed(100, true); v != Accept || at != 100 {
		t.Fatalf("seed: %v at %v", v, at)
	}
	// Five screencast frames produced before the seed, after frame 30.
	for _, s := range []timeline.Time{40, 50, 60, 70, 80} {
		if v := l.Offer(s, true); v != Late {
			t.Fatalf("frame %v: %v, want late", s, v)
		}
	}
	if l.Err() != nil {
		t.Fatalf("clock error from frames newer than the last screencast frame: %v", l.Err())
	}
	// Frames older than the last screencast frame still count.
	for _, s := range []timeline.Time{1, 2, 3, 4} {
		l.Offer(s, true)
	}
	var ce *ClockError
	if !errors.As(l.Err(), &ce) {
		t.Fatalf("no clock error after 4 frames older than the last screencast frame: %v", l.Err())
	}
	if a := l.Accounting(); a.Received != 13 || a.Late != 9 || a.Received != a.Delivered+a.Discarded()+l.Pending() {
		t.Errorf("accounting %+v pending %d", a, l.Pending())
	}
}

// A seed at or behind the last frame is kept just after it; an
// undecodable one is rejected where it is stamped.
func TestLedgerSeedBehindIsKeptAfter(t *testing.T) {
	var l Ledger
	if v, at := l.OfferSeed(50, true); v != Accept || at != 50 {
		t.Fatalf("first seed: %v at %v", v, at)
	}
	l.Offer(60, true)
	for _, src := range []timeline.Time{10, 60} {
		want := l.last + 1
		if v, at := l.OfferSeed(src, true); v != Accept || at != want {
			t.Errorf("seed at %v behind %v: %v at %v, want accepted at %v", src, want-1, v, at, want)
		}
	}
	if v, at := l.OfferSeed(5, false); v != Reject || at != 5 {
		t.Errorf("undecodable seed: %v at %v", v, at)
	}
	if a := l.Accounting(); a.Received != 5 || a.Late != 0 || a.Rejected != 1 {
		t.Errorf("accounting %+v", a)
	}
}

// During a hand-over two screencasts send the same frames, each in its
// own time: the new one's frames behind the old one's are late (or
// duplicates), but no evidence of the clock going backwards until they
// fall behind the new session's own last accepted frame.
func TestLedgerHandOverIsNoClockError(t *testing.T) {
	var l Ledger
	for _, s := range []timeline.Time{10, 20, 30, 40, 50} {
		if v := l.OfferFrom(0, s, true); v != Accept {
			t.Fatalf("frame %v: %v", s, v)
		}
	}
	// The new session catches up from 10: all behind 50.
	for _, s := range []timeline.Time{10, 20, 30, 40} {
		if v := l.OfferFrom(1, s, true); v != Late {
			t.Fatalf("new session's frame %v: %v, want late", s, v)
		}
	}
	if v := l.OfferFrom(1, 50, true); v != Duplicate {
		t.Fatalf("new session's frame 50: %v, want duplicate", v)
	}
	if l.Err() != nil {
		t.Fatalf("clock error from a hand-over: %v", l.Err())
	}
	// A last frame of the old session, behind the new one's 60 but newer
	// than its own 50: late, and no evidence.
	if v := l.OfferFrom(1, 60, true); v != Accept {
		t.Fatalf("frame 60: %v", v)
	}
	if v := l.OfferFrom(0, 55, true); v != Late || l.Err() != nil {
		t.Fatalf("old session's 55: %v, %v", v, l.Err())
	}
	// Behind the new session's own frames, more than in flight: the clock.
	for _, s := range []timeline.Time{1, 2, 3, 4} {
		l.OfferFrom(1, s, true)
	}
	var ce *ClockError
	if !errors.As(l.Err(), &ce) {
		t.Fatalf("no clock error after 4 frames behind the session's own: %v", l.Err())
	}
	l.Delivered(l.Pending())
	if a := l.Accounting(); !a.Balanced() || a.Received != 16 {
		t.Errorf("accounting %+v", a)
	}
}
