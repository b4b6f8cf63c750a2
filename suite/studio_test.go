package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// fakeShell is a shell for the pool's rules: it dies, or hangs, when
// told.
type fakeShell struct {
	n      int
	exited chan struct{}
	hung   bool
	closed bool
}

func (f *fakeShell) Endpoint() string             { return fmt.Sprintf("ws://127.0.0.1:1/%d", f.n) }
func (f *fakeShell) Exited() <-chan struct{}      { return f.exited }
func (f *fakeShell) Answers(context.Context) bool { return !f.hung && !exited(f) }
func (f *fakeShell) StderrTail() string           { return "shell says goodbye" }
func (f *fakeShell) Close() timeline.Cleanup      { f.closed = true; return timeline.Cleanup{} }
func (f *fakeShell) die()                         { close(f.exited) }

// TestStudioShellsLend: the pool lends a shell of the kind asked, launches
// one only when none of that kind is idle, never holds more than one a
// worker (an idle one of another kind is closed first), drops the dead,
// and closes what is idle at the end.
func TestStudioShellsLend(t *testing.T) {
	ctx := context.Background()
	one, two := lent{scale: 1}, lent{scale: 2}
	pool := func(workers int) (*studioShells, *[]*fakeShell) {
		var launched []*fakeShell
		p := &studioShells{workers: workers, launch: func(_ context.Context, kind lent) (shell, error) {
			if kind.scale == 3 {
				return nil, errors.New("no such shell")
			}
			f := &fakeShell{n: len(launched) + 1, exited: make(chan struct{})}
			launched = append(launched, f)
			return f, nil
		}}
		return p, &launched
	}
	borrow := func(p *studioShells, kind lent) *fakeShell {
		t.Helper()
		b, err := p.borrow(ctx, kind)
		if err != nil {
			t.Fatal(err)
		}
		return b.(*fakeShell)
	}

	// One worker, one kind: one launch for every script.
	p, launched := pool(1)
	for range 3 {
		p.giveBack(borrow(p, one), one)
	}
	if len(*launched) != 1 {
		t.Errorf("three scripts in one worker launched %d shells, want 1", len(*launched))
	}
	// Another kind: the idle shell is closed first (one a worker).
	b := borrow(p, two)
	if len(*launched) != 2 || !(*launched)[0].closed || b.n != 2 {
		t.Errorf("a scale-2 script after scale 1 in one worker: launched %d, first closed %v", len(*launched), (*launched)[0].closed)
	}
	// A shell that died while lent is closed, not lent again, and the
	// run's log is told why with what it last printed.
	b.die()
	if why := p.giveBack(b, two); !b.closed || len(p.idle) != 0 || p.busy != 0 || !strings.Contains(why, "stopped answering") || !strings.Contains(why, "shell says goodbye") {
		t.Errorf("a dead shell given back: closed %v, idle %d, busy %d, said %q", b.closed, len(p.idle), p.busy, why)
	}
	// So is one that lives but no longer answers.
	h := borrow(p, two)
	h.hung = true
	if why := p.giveBack(h, two); !h.closed || len(p.idle) != 0 || why == "" {
		t.Errorf("a hung shell given back: closed %v, idle %d, said %q", h.closed, len(p.idle), why)
	}
	// A healthy one given back says nothing.
	if why := p.giveBack(borrow(p, two), two); why != "" || len(p.idle) != 1 {
		t.Errorf("a healthy shell given back: said %q, idle %d", why, len(p.idle))
	}
	p.close()

	// Two workers at once: two shells, each lent again after.
	p, launched = pool(2)
	x, y := borrow(p, one), borrow(p, one)
	p.giveBack(x, one)
	p.giveBack(y, one)
	x2, y2 := borrow(p, one), borrow(p, one)
	if len(*launched) != 2 || x2 == y2 {
		t.Errorf("two workers, twice: launched %d, the same shell lent twice %v", len(*launched), x2 == y2)
	}
	// With one lent and one idle, another kind may still not pass two.
	p.giveBack(y2, one)
	z := borrow(p, two)
	if len(*launched) != 3 || !y2.closed || x2.closed {
		t.Errorf("another kind beside a lent shell: launched %d, idle closed %v, lent closed %v", len(*launched), y2.closed, x2.closed)
	}
	p.giveBack(z, two)
	p.giveBack(x2, one)
	// An idle shell that died is not lent: another is launched.
	x2.die()
	if n := borrow(p, one); n == x2 || !x2.closed {
		t.Errorf("a dead idle shell was lent (%v) or left open (%v)", n == x2, !x2.closed)
	} else {
		p.giveBack(n, one)
	}
	// A launch that fails says so and holds no turn.
	if _, err := p.borrow(ctx, lent{scale: 3}); err == nil || !strings.Contains(err.Error(), "the suite's studio browser: no such shell") || p.busy != 0 {
		t.Errorf("a failed launch: err %v, busy %d", err, p.busy)
	}
	p.close()
	for _, f := range *launched {
		if !f.closed {
			t.Errorf("shell %d left open at the end", f.n)
		}
	}
}
