package session

import (
	"errors"
	"fmt"
)

// The rules of holds, as pure decisions over what the run knows of a tab
// (docs/ARCHITECTURE.md, "Holds"). hold.go gathers the facts and carries
// out what these decide; nothing here talks to a browser.

// tabFacts is what the run knows of a tab when a step wants it.
type tabFacts struct {
	Name string
	// Open: the tab is one of the run's tabs; Closed: its target went
	// away (closed, detached); Crashed: its renderer crashed.
	Open, Closed, Crashed bool
	// Navs counts the main frame's navigations so far.
	Navs int64
	// Fenced says why the tab's state is unknown ("" when it is known).
	Fenced string
	// Held is the tab's hold, nil when it is not held.
	Held *receiptFacts
}

// receiptFacts is what a hold receipt was issued against.
type receiptFacts struct {
	Receipt string
	// Tab is the identity of the tab held (its Tab value), so a tab closed
	// and opened again under the same name is not the one held.
	Tab any
	// Navs is the tab's navigation count when it was held.
	Navs int64
}

// ErrHeld is wrapped by the refusal of a step on a held tab.
var ErrHeld = errors.New("held")

// FencedError is a tab whose state is unknown after a hold or resume
// failed half way. The run fails with outcome unknown and never acts on
// the tab again.
type FencedError struct {
	Tab string
	Op  string // hold or resume
	Err error
}

func (e *FencedError) Error() string {
	return fmt.Sprintf("tab %q is fenced: its %s failed half way, so its state is unknown: %v", e.Tab, e.Op, e.Err)
}

func (e *FencedError) Unwrap() error { return e.Err }

// stepRefusal decides whether a step may run on a tab: a fenced tab takes
// nothing; a held tab takes only presentation steps (input, waits and
// reads would block on the paused page or see a page the hold changed).
// nil means go ahead.
func stepRefusal(f tabFacts, presentation bool) error {
	switch {
	case f.Fenced != "":
		return fmt.Errorf("tab %q is fenced (%s): nothing more is sent to it", f.Name, f.Fenced)
	case f.Held != nil && !presentation:
		return fmt.Errorf("tab %q is %w (receipt %s): resume it before input, waits or reads on it", f.Name, ErrHeld, f.Held.Receipt)
	}
	return nil
}

// holdRefusal decides whether a tab may be held now.
func holdRefusal(f tabFacts) error {
	switch {
	case !f.Open:
		return fmt.Errorf("no tab %q is open", f.Name)
	case f.Fenced != "":
		return fmt.Errorf("tab %q is fenced (%s): it cannot be held", f.Name, f.Fenced)
	case f.Closed || f.Crashed:
		return fmt.Errorf("tab %q is %s: it cannot be held", f.Name, gone(f))
	case f.Held != nil:
		return fmt.Errorf("tab %q is already held (receipt %s): resume it first", f.Name, f.Held.Receipt)
	}
	return nil
}

// resumeRefusal decides whether receipt r may be consumed to resume the
// tab of f. tab is the identity of the tab open under that name now (nil
// when none is). A stale receipt (the tab navigated, crashed or closed
// since the hold) or a foreign one (another tab's, or one already
// consumed) is refused: resuming it would claim a state nobody knows.
func resumeRefusal(f tabFacts, r *receiptFacts, tab any) error {
	switch {
	case r == nil:
		return fmt.Errorf("tab %q is not held: resume needs an earlier hold", f.Name)
	case f.Fenced != "":
		return fmt.Errorf("tab %q is fenced (%s): its hold cannot be resumed", f.Name, f.Fenced)
	case !f.Open || tab != r.Tab:
		return fmt.Errorf("receipt %s is stale: the tab %q it held was closed", r.Receipt, f.Name)
	case f.Held == nil || f.Held.Receipt != r.Receipt:
		return fmt.Errorf("receipt %s is not the hold of tab %q now: it was consumed already", r.Receipt, f.Name)
	case f.Closed || f.Crashed:
		return fmt.Errorf("receipt %s is stale: tab %q is %s", r.Receipt, f.Name, gone(f))
	case f.Navs != r.Navs:
		return fmt.Errorf("receipt %s is stale: tab %q navigated while held, so the page it froze is gone", r.Receipt, f.Name)
	}
	return nil
}

func gone(f tabFacts) string {
	if f.Crashed {
		return "crashed"
	}
	return "closed"
}

// holdStage is how far a hold or resume got before it failed.
type holdStage int

const (
	// stageNothing: nothing was sent, or the browser refused the first
	// command that would change the page: the tab is as it was.
	stageNothing holdStage = iota
	// stagePartial: part of the freeze or thaw was applied, or a command
	// that changes the page went unanswered: the tab's state is unknown.
	stagePartial
)

// fences decides whether a failed hold or resume leaves its tab fenced.
func fences(s holdStage) bool { return s == stagePartial }
