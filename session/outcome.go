package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// StepError is a step's failure with how far its effects may have gone.
type StepError struct {
	Outcome timeline.Outcome // undispatched, rejected or unknown
	Err     error
}

func (e *StepError) Error() string { return e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// undispatched marks an error after which nothing was sent to the page;
// an error already classified keeps its outcome.
func undispatched(err error) error {
	var se *StepError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &StepError{Outcome: timeline.OutcomeUndispatched, Err: err}
}

// dispatched marks an error that came after input was sent: the step's
// effect on the page is then unknown (a retry would repeat what was sent),
// unless the browser refused it.
func dispatched(err error) error {
	if err == nil {
		return nil
	}
	var se *StepError
	if errors.As(err, &se) && se.Outcome != timeline.OutcomeUndispatched {
		return err
	}
	return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
}

// dispatchErr classifies an error from a command that was sent: a protocol
// error reply means the browser refused it; anything else (a timeout, a
// lost connection) leaves its effect unknown.
func dispatchErr(err error) error {
	var ce *cdproto.Error
	if errors.As(err, &ce) {
		return &StepError{Outcome: timeline.OutcomeRejected, Err: err}
	}
	return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
}

// pageClosedError is the error of an input sent to a tab whose page
// closed before it answered: the browser detached the tab (the page
// closed itself, or was closed). last marks the step's last input (set by
// the step that sent it: lastInput).
type pageClosedError struct {
	tab  string
	last bool
	err  error
}

func (e *pageClosedError) Error() string {
	return fmt.Sprintf("the page of tab %q closed before it answered (%v)", e.tab, e.err)
}
func (e *pageClosedError) Unwrap() error { return e.err }

// closedPage classifies the error of an input to tab: a detach is a
// pageClosedError, anything else as it was.
func closedPage(tab string, err error) error {
	if errors.Is(err, chromedp.ErrTargetDetached) {
		return &pageClosedError{tab: tab, err: err}
	}
	return err
}

// lastInput marks err, the error of the last input a step sends, so that
// a page that closed in answer to it ends the step done (run.doneOnClose).
func lastInput(err error) error {
	var pc *pageClosedError
	if errors.As(err, &pc) {
		pc.last = true
	}
	return err
}

// navErr classifies a navigation on ctx that failed: a browser error reply
// is a rejection; when ctx ended (the step's timeout, an interrupt) the
// navigation's effect is unknown (the step's error then says why ctx
// ended: causeOf).
func navErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ended(ctx, err) {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	return &StepError{Outcome: timeline.OutcomeRejected, Err: err}
}

// ended says err came with ctx's end: ctx is done, or err is a context's.
func ended(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// causeOf names why a step's context ctx ended (its timeout, an
// interrupt) in err when it came with that end and does not say so
// already: a command the deadline cut short answers only "context
// deadline exceeded". The outcome stays as classified. Every step's error
// passes here (run.attempt).
func causeOf(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	if err == nil || cause == nil || errors.Is(err, cause) || !ended(ctx, err) {
		return err
	}
	var se *StepError
	if errors.As(err, &se) {
		return &StepError{Outcome: se.Outcome, Err: fmt.Errorf("%w (%w)", se.Err, cause)}
	}
	return fmt.Errorf("%w (%w)", err, cause)
}

// outcomeOf is the outcome a step's error records.
func outcomeOf(err error) timeline.Outcome {
	var se *StepError
	if errors.As(err, &se) {
		return se.Outcome
	}
	if errors.Is(err, ErrBrowserGone) {
		return timeline.OutcomeUnknown
	}
	return timeline.OutcomeUndispatched
}
