package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Holds, as measured on Chromium 156 (docs/ARCHITECTURE.md, "Holds"): no
// single command freezes a page and lets it go again cleanly. A hold stops
// CSS animations (playback rate 0), lets one frame paint, then pauses the
// page's scripts in the debugger, so timers and requestAnimationFrame stop
// and no frames come. A resume lets the debugger go, waits for one real
// animation frame with the animations still at rate 0 (so Blink's document
// timeline catches up with the time that passed, and the animations go on
// from where they stopped instead of jumping ahead by the hold), and only
// then restores the rate the hold found. The rules (who may hold, which
// receipt may resume, what a held tab refuses) are in holdrules.go; all
// hold state changes under run.holdMu, because a bounded hold resumes
// itself from a goroutine of its own.

// holdFrame is how long a hold lets the page paint between stopping its
// animations and pausing its scripts: one frame, so the last state shows.
const holdFrame = 20 * time.Millisecond

// pauseReached bounds the wait for the debugger to pause a held page. The
// pause comes when a script next runs, so the hold nudges one (a timer in
// clapper's world); a page that still does not pause in time is idle, and
// pauses when it next runs a script.
const pauseReached = time.Second

// framesDrained is how long a held, filmed page must send no frame for the
// frames already on their way (drawn from what was committed before the
// pause; a loaded machine draws them late) to count as arrived;
// drainLimit bounds that wait.
const (
	framesDrained = 100 * time.Millisecond
	drainLimit    = time.Second
)

// resumeFrame bounds the wait for the first animation frame after the
// debugger lets a page go.
const resumeFrame = 2 * time.Second

// holdState is a tab's hold while it lasts.
type holdState struct {
	receiptFacts
	tab   *Tab
	rate  float64 // the playback rate in force before the hold
	index int     // the hold's record in run.tl.Holds
	// stop ends the bound's goroutine (nil without a bound).
	stop chan struct{}
}

// faultPoint names a place in a hold or resume where a test can make the
// browser fail (RunOptions.fault).
type faultPoint string

const (
	faultFreeze faultPoint = "hold: after the animations stopped"
	faultPaused faultPoint = "hold: after the pause was asked for"
	faultAck    faultPoint = "resume: after the debugger let go"
)

// fault returns the failure a test injects at p, nil otherwise.
func (r *run) fault(p faultPoint) error {
	if r.o.fault == nil {
		return nil
	}
	return r.o.fault(p)
}

// facts gathers what the run knows of the tab called name. Callers hold
// holdMu.
func (r *run) facts(name string) tabFacts {
	f := tabFacts{Name: name}
	t, ok := r.tabs[name]
	if !ok {
		return f
	}
	f.Open, f.Fenced = true, t.fenced
	f.Closed, f.Crashed = t.gone()
	f.Closed = f.Closed || t.ctx.Err() != nil
	f.Navs = t.events.navigations()
	if t.hold != nil {
		f.Held = &t.hold.receiptFacts
	}
	return f
}

// refusal is the hold rules' answer for a step on tab, before anything
// is sent to it.
func (r *run) refusal(tab *Tab, presentation bool) error {
	r.holdMu.Lock()
	defer r.holdMu.Unlock()
	return stepRefusal(r.facts(tab.Name), presentation)
}

// hold freezes a tab for presentation and records its receipt, which
// resume consumes. With max > 0 the tab resumes itself after max. Every
// command is bounded by the step's context.
func (r *run) hold(ctx context.Context, name string, max time.Duration, rec *timeline.Step) error {
	rec.Target = name
	r.holdMu.Lock()
	defer r.holdMu.Unlock()
	if err := holdRefusal(r.facts(name)); err != nil {
		return undispatched(err)
	}
	t := r.tabs[name]
	c, stop := onTab(ctx, t.ctx)
	defer stop()
	rate := animation.GetPlaybackRateResult{PlaybackRate: 1}
	var stage holdStage
	var err error
	if r.virt == nil {
		// Read before anything changes: a failure leaves the tab as it was.
		rate, err = chromedp.Call(c, animation.GetPlaybackRate, cdp.Empty{})
		if err != nil {
			return undispatched(fmt.Errorf("hold %s: read playback rate: %w", name, err))
		}
	}
	// No screencast is started anew from here on (its first picture would
	// be a frame inside the hold); one under way is waited for.
	t.frozen.Store(true)
	if r.filmed == t && r.capture != nil {
		r.capture.SyncRestarts()
	}
	if r.virt != nil {
		stage, err = r.freezeStudio(c)
	} else {
		stage, err = r.freeze(c, t)
		if err == nil {
			r.drain(c, t)
		}
	}
	if err != nil {
		if fences(stage) {
			now := r.clock.Now()
			hr := timeline.Hold{Tab: name, Start: now, End: now, Max: max, Ended: timeline.HoldFenced}
			err = r.fence(t, "hold", err, nil)
			hr.Error = r.s.Mask(err.Error())
			r.tl.Holds = append(r.tl.Holds, hr)
			r.jr.Append(timeline.JournalHold, hr)
			r.jr.Append(timeline.JournalHoldEnd, timeline.HoldEnd{End: now, Ended: hr.Ended, Error: hr.Error})
			return err
		}
		t.frozen.Store(false) // nothing changed
		return dispatchErr(fmt.Errorf("hold %s: %w", name, err))
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	h := &holdState{receiptFacts: receiptFacts{Receipt: hex.EncodeToString(b[:]), Tab: t, Navs: t.events.navigations()},
		tab: t, rate: rate.PlaybackRate, index: len(r.tl.Holds)}
	t.hold = h
	t.epoch++
	r.holds = append(r.holds, h)
	rec.Text = h.Receipt
	hr := timeline.Hold{Tab: name, Receipt: h.Receipt, Start: r.clock.Now(), End: -1, Max: max}
	if h.rate != 1 {
		hr.Rate = h.rate
	}
	r.tl.Holds = append(r.tl.Holds, hr)
	r.jr.Append(timeline.JournalHold, hr)
	if max > 0 {
		h.stop = make(chan struct{})
		r.bounds.Add(1)
		// The bound's timer is set here, not in its goroutine: on virtual
		// time the clock may run on before that goroutine starts.
		due, done := r.takeAlarm(max)
		go r.bound(h, h.stop, max, due, done)
	}
	return nil
}

// freeze stops the animations, lets one frame paint and pauses the page's
// scripts. It says how far it got when it fails.
func (r *run) freeze(c context.Context, t *Tab) (holdStage, error) {
	if _, err := chromedp.Call(c, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: 0}); err != nil {
		var ce *cdproto.Error
		if errors.As(err, &ce) {
			return stageNothing, err // refused: nothing changed
		}
		return stagePartial, err
	}
	if err := r.fault(faultFreeze); err != nil {
		return stagePartial, err
	}
	if err := sleep(c, holdFrame); err != nil {
		return stagePartial, err
	}
	// The nudge runs before the pause is asked for: a call into the page
	// once it is asked would itself be paused.
	if _, err := callHelper[bool](c, t.helpers, "nudge"); err != nil {
		return stagePartial, err
	}
	if _, err := chromedp.Call(c, debugger.Enable, debugger.EnableParams{}); err != nil {
		return stagePartial, err
	}
	if _, err := chromedp.Call(c, debugger.Pause, cdp.Empty{}); err != nil {
		return stagePartial, err
	}

	// Wait briefly for the pause to be reached (the next script to run):
	// the hold's start is then when the page stopped.
	pc, cancel := context.WithTimeout(c, pauseReached)
	defer cancel()
	_ = poll(pc, "the debugger to pause", 5*time.Millisecond, func(context.Context) (bool, string, error) {
		return t.events.isPaused(), "", nil
	})
	err := c.Err() // the step's time ran out, or the run was stopped
	if ferr := r.fault(faultPaused); ferr != nil {
		err = ferr
	}
	if err != nil {
		// The pause was asked for: the page may be paused, whatever the
		// wait saw. Not "nothing changed".
		return stagePartial, err
	}
	return stageNothing, nil
}

// drain waits, when t is filmed, until its frames on their way have come:
// the hold starts once nothing more arrives. A page that keeps sending
// past drainLimit (or a step whose time is up) is held all the same: the
// freeze is done.
func (r *run) drain(c context.Context, t *Tab) {
	if r.filmed != t || r.capture == nil {
		return
	}
	dc, cancel := context.WithTimeout(c, drainLimit)
	defer cancel()
	last, since := r.capture.Snapshot().Received, time.Now()
	_ = poll(dc, "the last frames", 10*time.Millisecond, func(context.Context) (bool, string, error) {
		if n := r.capture.Snapshot().Received; n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= framesDrained, "", nil
	})
}

// resume thaws a held tab, consuming the receipt of its hold.
func (r *run) resume(ctx context.Context, name string, rec *timeline.Step) error {
	rec.Target = name
	r.holdMu.Lock()
	defer r.holdMu.Unlock()
	f := r.facts(name)
	h := r.issued(name)
	if h != nil && h.tab.hold == nil && r.tl.Holds[h.index].Ended == timeline.HoldBound {
		// The hold ended at its bound: this resume has nothing left to do.
		rec.Text = h.Receipt + " (resumed at its bound)"
		return nil
	}
	var rf *receiptFacts
	if h != nil {
		rf = &h.receiptFacts
	}
	var open any
	if t, ok := r.tabs[name]; ok {
		open = t
	}
	if err := resumeRefusal(f, rf, open); err != nil {
		return undispatched(err)
	}
	rec.Text = h.Receipt
	c, stop := onTab(ctx, h.tab.ctx)
	defer stop()
	return r.thaw(c, h, timeline.HoldResumed)
}

// issued returns the last hold receipt issued for the tab called name, nil
// when none was. Callers hold holdMu.
func (r *run) issued(name string) *holdState {
	for i := len(r.holds) - 1; i >= 0; i-- {
		if r.holds[i].tab.Name == name {
			return r.holds[i]
		}
	}
	return nil
}

// thaw lets a held tab go (see the top of this file) and ends its hold's
// record with why. A failure once the debugger was told to let go fences
// the tab. Callers hold holdMu.
func (r *run) thaw(c context.Context, h *holdState, why string) error {
	t := h.tab
	if h.stop != nil {
		close(h.stop)
		h.stop = nil
	}
	if r.virt != nil {
		return r.thawStudio(c, h, why)
	}
	// An idle page has not reached the pause yet (it waits for the next
	// script to run): then there is nothing to resume, and disabling the
	// debugger below drops the pending pause.
	if t.events.isPaused() {
		if _, err := chromedp.Call(c, debugger.Resume, debugger.ResumeParams{}); err != nil {
			return r.fence(t, "resume", err, h)
		}
	}
	if err := r.fault(faultAck); err != nil {
		return r.fence(t, "resume", err, h)
	}
	if _, err := chromedp.Call(c, debugger.Disable, cdp.Empty{}); err != nil {
		return r.fence(t, "resume", err, h)
	}
	if !r.o.resumeWithJump {
		// One real frame at rate 0, from clapper's own world: the page's
		// animation clock moves on past the hold before the animations do.
		fc, cancel := context.WithTimeout(c, resumeFrame)
		_, err := callHelper[bool](fc, t.helpers, "nextFrame")
		cancel()
		if err != nil {
			return r.fence(t, "resume", fmt.Errorf("no animation frame came after the debugger let go: %w", err), h)
		}
	}
	if _, err := chromedp.Call(c, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: h.rate}); err != nil {
		return r.fence(t, "resume", err, h)
	}
	r.endHold(h, why, "")
	return nil
}

// endHold closes a hold's record. Callers hold holdMu.
func (r *run) endHold(h *holdState, why, msg string) {
	if h.tab.hold == h {
		h.tab.hold = nil
		h.tab.frozen.Store(false)
	}
	h.tab.epoch++
	hr := &r.tl.Holds[h.index]
	if hr.End >= 0 {
		return
	}
	hr.End, hr.Ended, hr.Error = r.clock.Now(), why, r.s.Mask(msg)
	r.jr.Append(timeline.JournalHoldEnd, timeline.HoldEnd{Receipt: hr.Receipt, End: hr.End, Ended: why, Error: hr.Error})
}

// fence marks a tab whose hold or resume failed half way as uncertain: no
// receipt is issued or consumed, nothing is rolled back or retried, and
// nothing more is sent to the tab. The error fails the run with outcome
// unknown. Callers hold holdMu.
func (r *run) fence(t *Tab, op string, err error, h *holdState) error {
	fe := &FencedError{Tab: t.Name, Op: op, Err: err}
	t.fenced = op + " failed half way"
	if h != nil {
		r.endHold(h, timeline.HoldFenced, fe.Error())
	}
	r.logf("%v", fe)
	return &StepError{Outcome: timeline.OutcomeUnknown, Err: fe}
}

// bound resumes a hold when it reaches its max, unless it ended before.
// It runs on a goroutine of its own, started by hold and waited for by
// endHolds.
// due is closed at the bound, on the take's clock (virtual time in
// studio mode); done is called once the bound's work is over.
func (r *run) bound(h *holdState, stop <-chan struct{}, max time.Duration, due <-chan struct{}, done func()) {
	defer r.bounds.Done()
	defer done()
	select {
	case <-stop:
		return
	case <-due:
	}
	r.holdMu.Lock()
	defer r.holdMu.Unlock()
	if h.tab.hold != h || h.stop == nil {
		return // resumed, or ended, meanwhile
	}
	c, cancel := afterwards(h.tab.ctx)
	defer cancel()
	if err := r.thaw(c, h, timeline.HoldBound); err != nil {
		r.logf("tab %q: the hold did not resume at its bound: %v", h.tab.Name, err)
		return
	}
	r.logf("tab %q resumed at its bound (%v)", h.tab.Name, max)
}

// endHolds ends the holds the run leaves behind, as it finishes: a held
// tab is let go (the final frame and cleanup need a live page) and its
// hold recorded as ended by the run; a fenced tab is left as it is (no
// hidden resume) for cleanup to close.
func (r *run) endHolds() {
	r.holdMu.Lock()
	for _, t := range r.tabs {
		h := t.hold
		if h == nil {
			continue
		}
		f := r.facts(t.Name)
		if t.fenced != "" || f.Closed || f.Crashed || r.browser == nil || r.browserDead() {
			r.endHold(h, timeline.HoldRun, "")
			continue
		}
		if r.leasedTab(t.Name) != nil {
			// The lease was lost: the tab is another holder's now, and
			// nothing is sent to it.
			r.endHold(h, timeline.HoldRun, "")
			continue
		}
		c, cancel := context.WithTimeout(t.ctx, 5*time.Second)
		if err := r.thaw(c, h, timeline.HoldRun); err != nil {
			r.logf("tab %q: could not let go of its hold at the end of the run: %v", t.Name, err)
		}
		cancel()
	}
	for i := range r.tl.Holds {
		if hr := &r.tl.Holds[i]; hr.End < 0 {
			hr.End, hr.Ended = r.clock.Now(), timeline.HoldRun
		}
	}
	for _, h := range r.holds {
		if h.stop != nil {
			close(h.stop)
			h.stop = nil
		}
	}
	r.holdMu.Unlock()
	r.bounds.Wait()
}

// fencedTabs names the tabs whose state is unknown.
func (r *run) fencedTabs() []string {
	r.holdMu.Lock()
	defer r.holdMu.Unlock()
	var out []string
	for _, t := range r.tabs {
		if t.fenced != "" {
			out = append(out, t.Name)
		}
	}
	return out
}
