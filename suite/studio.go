package suite

import (
	"context"
	"fmt"
	"sync"

	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// studioShells are the headless shells a suite lends its studio scripts'
// runs. A run borrows one launched as its script asks (device scale,
// sandbox), films in a browser context of its own there (cookies,
// storage and cache of its own, gone when the run ends), and gives it
// back; the worker's next studio script films in the same shell. So a
// suite launches a shell per worker, not per script, and a launch costs
// about as much as a short script. No two runs film in one shell at once:
// each has a worker's turn of it. A shell that died is dropped when given
// back (its crash fails the script filming in it, not the next); there
// are never more shells than workers: a launch closes an idle shell of
// another kind first.
type studioShells struct {
	workers int
	mu      sync.Mutex
	idle    []lentShell
	busy    int
	// launch launches a shell as kind asks (tests give their own).
	launch func(ctx context.Context, kind lent) (shell, error)
}

// shell is a launched browser, as the pool sees it (*session.Browser).
type shell interface {
	Endpoint() string
	Exited() <-chan struct{}
	Close() timeline.Cleanup
}

// lentShell is a shell and what it was launched as.
type lentShell struct {
	b    shell
	kind lent
}

// newStudioShells lends at most workers shells of the headless shell at
// path ("" to search, as a run does).
func newStudioShells(path string, workers int) *studioShells {
	return &studioShells{workers: workers, launch: func(ctx context.Context, kind lent) (shell, error) {
		found, err := session.FindShell(path)
		if err != nil {
			return nil, err
		}
		return session.Launch(ctx, session.StudioLaunch(found, kind.noSandbox, kind.scale))
	}}
}

// borrow returns an idle shell launched as kind asks, launching one when
// there is none (outside the lock: two workers launch at once).
func (p *studioShells) borrow(ctx context.Context, kind lent) (shell, error) {
	b, closing := p.take(kind)
	for _, c := range closing {
		c.Close()
	}
	if b != nil {
		return b, nil
	}
	b, err := p.launch(ctx, kind)
	if err != nil {
		p.mu.Lock()
		p.busy--
		p.mu.Unlock()
		return nil, fmt.Errorf("the suite's studio browser: %w", err)
	}
	return b, nil
}

// take counts a run in and hands it an idle shell of kind, or nil when it
// is to launch one; closing are the idle shells to close first: the dead
// ones, and those of another kind the launch would take past one shell a
// worker.
func (p *studioShells) take(kind lent) (b shell, closing []shell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy++
	for i, s := range p.idle {
		if s.kind == kind && !exited(s.b) {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			return s.b, nil
		}
	}
	var kept []lentShell
	for _, s := range p.idle {
		if exited(s.b) || p.busy+len(kept) >= p.workers {
			closing = append(closing, s.b)
			continue
		}
		kept = append(kept, s)
	}
	p.idle = kept
	return nil, closing
}

// giveBack makes b idle again for the next run launched as kind, or
// closes it when it has died.
func (p *studioShells) giveBack(b shell, kind lent) {
	if exited(b) {
		b.Close()
		p.mu.Lock()
		p.busy--
		p.mu.Unlock()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy--
	p.idle = append(p.idle, lentShell{b: b, kind: kind})
}

// close closes every idle shell (the suite's runs have given theirs back).
func (p *studioShells) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.idle {
		s.b.Close()
	}
	p.idle = nil
}

// exited says whether b's process has ended.
func exited(b shell) bool {
	select {
	case <-b.Exited():
		return true
	default:
		return false
	}
}
