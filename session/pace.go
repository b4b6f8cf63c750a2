package session

import (
	"context"
	"time"
)

// A person never acts within the same millisecond twice: between one
// input and the next the page runs what the first made it queue (a field
// focused in a 0 ms timer after a double click, a framework's model
// updated in a timer after each key), and between two steps a person
// takes a beat. pace gives one tab's page that time, on the step's clock,
// so in studio mode the footage shows it too.

// turnLimit bounds the page's turn: a page busy for longer gets the next
// input anyway, as a person's keys would queue behind a busy page.
const turnLimit = 500 * time.Millisecond

// pace spaces the input of one tab. Its methods run on the run's
// goroutine.
type pace struct {
	// turnIn lets a document's page run the tasks it has queued, with the
	// page helper named (js/turn.js: "turn", its queued tasks and then an
	// animation frame, or "tasks", the queued tasks only); errors are
	// ignored: the turn is a courtesy, never a failure.
	turnIn func(ctx context.Context, d *doc, helper string)
	// doc is the document input goes to now (the last one a step aimed
	// at); nil: the tab's own.
	doc  *doc
	beat time.Duration
	// lastStep is the step that sent the tab's last input (-1: none yet),
	// lastAt when it was acknowledged on the step's clock.
	lastStep int
	lastAt   time.Duration
	// readyFor is the step that has had its turn and beat before its
	// first input (-1: none).
	readyFor int
}

func newPace(turnIn func(context.Context, *doc, string), beat time.Duration) *pace {
	return &pace{turnIn: turnIn, beat: beat, lastStep: -1, readyFor: -1}
}

// focus makes d the document whose page gets the turns.
func (p *pace) focus(d *doc) {
	if p != nil {
		p.doc = d
	}
}

// turn gives the page its turn, bounded by turnLimit.
func (p *pace) turn(ctx context.Context) { p.give(ctx, "turn") }

// give runs the page helper named, bounded by turnLimit.
func (p *pace) give(ctx context.Context, helper string) {
	if p == nil || p.turnIn == nil {
		return
	}
	c, cancel := context.WithTimeout(ctx, turnLimit)
	defer cancel()
	p.turnIn(c, p.doc, helper)
}

// betweenKeys gives the page its turn between two typed keys. Filming
// live, the page runs the tasks the key queued (a field that moves the
// focus on in a 0 ms timer gets it before the next key) but the
// animation frame is not waited for: a page painting at 23 Hz takes most
// of a frame per turn, which stretched a 1.4 s typing step to 3 s on the
// bench page, and a live page paints on its own. In studio capture time
// waits for the page, so the turn is whole there, as between steps.
func (p *pace) betweenKeys(ctx context.Context) {
	p.give(ctx, keyTurn(virtualOf(ctx) != nil))
}

// keyTurn is the page helper of the turn between keys: the whole turn on
// virtual time, the queued tasks only live. Pure.
func keyTurn(virtual bool) string {
	if virtual {
		return "turn"
	}
	return "tasks"
}

// before is called before an input of step is sent: the first input of
// a step after another step's input waits for the page's turn and the
// rest of the beat. It returns an error only when ctx ends meanwhile.
func (p *pace) before(ctx context.Context, step int) error {
	if p == nil || p.lastStep < 0 || p.lastStep == step || p.readyFor == step {
		return nil
	}
	p.turn(ctx)
	if err := sleep(ctx, p.lastAt+p.beat-clockNow(ctx)); err != nil {
		return err
	}
	p.readyFor = step
	return nil
}

// after records an input of step acknowledged.
func (p *pace) after(ctx context.Context, step int) {
	if p == nil {
		return
	}
	p.lastStep, p.lastAt = step, clockNow(ctx)
}
