package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/timeline"
)

// Journal collects input receipts on the take clock. Safe for concurrent use.
type Journal struct {
	mu       sync.Mutex
	clock    *recorder.Clock
	receipts []timeline.Receipt
	step     int
	// take, when set, receives each receipt as it is made (the take's
	// write-ahead journal); mask, when set, masks its strings first.
	take *timeline.Journal
	mask func(string) string
}

// NewJournal returns an empty journal on clock.
func NewJournal(clock *recorder.Clock) *Journal { return &Journal{clock: clock} }

// Receipts returns a copy of the receipts so far.
func (j *Journal) Receipts() []timeline.Receipt {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]timeline.Receipt(nil), j.receipts...)
}

func (j *Journal) setStep(i int) { j.mu.Lock(); j.step = i; j.mu.Unlock() }

// sentIn says whether step sent an input (a shape read sends none).
func (j *Journal) sentIn(step int) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.receipts) - 1; i >= 0 && j.receipts[i].Step >= step; i-- {
		if j.receipts[i].Step == step && j.receipts[i].Kind != timeline.PointerShape {
			return true
		}
	}
	return false
}

// note records an observation that sent no command (a PointerShape):
// stamped with the step and the time, sent and acked at once.
func (j *Journal) note(r timeline.Receipt) {
	j.mu.Lock()
	r.Step = j.step
	r.Sent = j.clock.Now()
	r.Acked = r.Sent
	j.receipts = append(j.receipts, r)
	j.mu.Unlock()
	j.take.Append(timeline.JournalReceipt, r)
}

// ready gives p's page its turn and the rest of the beat before a timed
// part of the current step (a pointer path, a scroll, typing), as send
// does before the step's first input, so that the part's schedule starts
// after them instead of losing its first slots to them.
func (j *Journal) ready(ctx context.Context, p *pace) error {
	if err := p.before(ctx, j.currentStep()); err != nil {
		return undispatched(err)
	}
	return nil
}

// currentStep is the index of the step whose inputs are being sent.
func (j *Journal) currentStep() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.step
}

// send runs one input command, stamping the receipt with the interval
// [sent, acked] and the step that sent it, after p (the tab's pace, or
// nil) has given the page its time. It returns a classified error.
func (j *Journal) send(ctx context.Context, p *pace, r timeline.Receipt, do func() error) error {
	r.Step = j.currentStep()
	if err := p.before(ctx, r.Step); err != nil {
		return undispatched(err)
	}
	defer p.after(ctx, r.Step)
	if pageGone(ctx) {
		// Nothing to send it to: no receipt (a receipt is of an input sent).
		return undispatched(&pageClosedError{tab: r.Tab, err: fmt.Errorf("%w: before the input was sent", chromedp.ErrTargetDetached)})
	}
	r.Sent = j.clock.Now()
	done := func() {}
	if v := j.clock.Virtual; v != nil {
		// Input lands between the same two frames each run. A pointer
		// move is taken at the page's next animation frame and answered
		// at once or within two frames: the pump makes those frames as
		// soon as the move is on its way, then waits for the answer
		// (holding for one frame only made the product tour slower:
		// docs/internals.md).
		if r.Kind == timeline.InputMove {
			done = v.BusyFrames(2)
		} else {
			done = v.Busy()
		}
	}
	err := closedPage(r.Tab, do())
	done()
	r.Acked = j.clock.Now()
	meter(ctx).input(time.Duration(r.Acked - r.Sent))
	var pc *pageClosedError
	switch {
	case errors.As(err, &pc):
		r.Closed = true // no answer can come: not an error of the input
	case err != nil:
		r.Error = err.Error()
	}
	if j.mask != nil { // the receipt is masked where it is made
		r.Key, r.Error = j.mask(r.Key), j.mask(r.Error)
	}
	j.mu.Lock()
	j.receipts = append(j.receipts, r)
	j.mu.Unlock()
	j.take.Append(timeline.JournalReceipt, r)
	if err != nil {
		return dispatchErr(err)
	}
	return nil
}
