package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// HandoffRequest is what a handoff step asks of the person at the
// browser's window.
type HandoffRequest struct {
	Tab     string
	Message string        // the script's words, secrets masked
	Until   string        // what the run waits for, for people
	Timeout time.Duration // how long it waits
}

// handoff gives the tab to a person (to log in, to solve a captcha): the
// script pauses, the person is told what to do, and the run goes on when
// the page shows what until says, or fails when the timeout passes. Only
// headed runs have a window to work in; scripts refuses a handoff in a
// headless one before anything launches, and this refuses it again. The
// interval is cut from the video (the step's Cut trait) and kept in the
// take. clapper sends nothing to the page meanwhile, so a handoff that
// times out is undispatched.
func (r *run) handoff(ctx context.Context, tab *Tab, a scripts.Handoff, rec *timeline.Step) error {
	if r.s.Browser.Headless && !r.o.headlessHandoff {
		return undispatched(errors.New("handoff needs a window a person can use, and this run is headless: set browser: {headless: false} or run with --headed"))
	}
	w := scripts.Wait{URL: a.URL}
	until := fmt.Sprintf("the address matches %q", a.URL)
	if a.Visible != nil {
		w = scripts.Wait{Target: a.Visible, State: "visible"}
		until = fmt.Sprintf("%s is visible", a.Visible)
	}
	rec.Target, rec.Text = r.s.Mask(until), r.s.Mask(a.Message)
	req := HandoffRequest{Tab: tab.Name, Message: r.s.Mask(a.Message), Until: r.s.Mask(until), Timeout: a.Timeout}
	if r.o.Handoff != nil {
		r.o.Handoff(req)
	} else {
		r.logf("handoff in tab %q: %s (going on when %s; failing after %v)", req.Tab, req.Message, req.Until, req.Timeout)
	}
	hc, cancel := context.WithTimeoutCause(ctx, a.Timeout, fmt.Errorf("handoff timeout %v", a.Timeout))
	defer cancel()
	if err := r.wait(hc, tab, w); err != nil {
		return undispatched(fmt.Errorf("handoff: the page did not show that the person was done (%s) within %v: %w", until, a.Timeout, err))
	}
	return nil
}
