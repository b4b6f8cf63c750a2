package suite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// studioShells are the headless shells a suite lends its studio scripts'
// runs. A run borrows an idle shell launched as its own would be (device
// scale, viewport, sandbox), or launches one; it films there in a browser
// context of its own (cookies, storage and cache of its own, gone when
// the run ends), and gives the shell back for the next studio script of
// that kind. So a suite launches about a shell a worker, not one a
// script, and a launch costs about as much as a short script. No two runs
// film in one shell at once. A shell given back that no longer answers
// (it died, or hangs) is closed, not lent again: its failure fails the
// script filming in it, not the next. There are never more shells than
// workers, but for a moment while one launches: an idle shell of another
// kind is closed first.
type studioShells struct {
	workers int
	mu      sync.Mutex
	idle    []lentShell
	busy    int
	// launch launches a shell as kind asks (Options.launchShell).
	launch func(ctx context.Context, kind lent) (shell, error)
}

// shell is a launched browser, as the pool sees it (*session.Browser).
type shell interface {
	Endpoint() string
	Exited() <-chan struct{}
	Answers(ctx context.Context) bool
	StderrTail() string
	Close() timeline.Cleanup
}

// lentShell is a shell and what it was launched as.
type lentShell struct {
	b    shell
	kind lent
}

// answerWithin bounds the check of a shell given back.
const answerWithin = 5 * time.Second

// newStudioShells lends at most workers shells of the headless shell at
// path ("" to search, as a run does), launched by launch when set.
func newStudioShells(path string, workers int, launch func(ctx context.Context, kind lent) (shell, error)) *studioShells {
	if launch == nil {
		launch = func(ctx context.Context, kind lent) (shell, error) {
			found, err := session.FindShell(path)
			if err != nil {
				return nil, err
			}
			return session.Launch(ctx, session.StudioLaunch(found, kind.noSandbox, kind.scale, kind.width, kind.height))
		}
	}
	return &studioShells{workers: workers, launch: launch}
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

// giveBack makes b idle again for the next run launched as kind when it
// still answers; else it closes it and says why, with what the shell last
// printed, for the log of the run that had it.
func (p *studioShells) giveBack(b shell, kind lent) (dropped string) {
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	ok := !exited(b) && b.Answers(ctx)
	cancel()
	if !ok {
		b.Close()
		dropped = "the suite's studio browser stopped answering and was closed; the next studio script launches another"
		if tail := strings.TrimSpace(b.StderrTail()); tail != "" {
			dropped += "; its last output:\n" + tail
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy--
	if ok {
		p.idle = append(p.idle, lentShell{b: b, kind: kind})
	}
	return dropped
}

// close closes every idle shell (the suite's runs have given theirs back).
func (p *studioShells) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, s := range idle {
		s.b.Close()
	}
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
