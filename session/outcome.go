package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto"

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

// navErr classifies a navigation on ctx that failed: a browser error reply
// is a rejection; when ctx ended (the step's timeout, an interrupt) the
// navigation's effect is unknown, and the error says why ctx ended.
func navErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%w)", err, cause)
		}
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	return &StepError{Outcome: timeline.OutcomeRejected, Err: err}
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
