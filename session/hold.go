package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// holdFrame is how long a hold lets the page paint between stopping its
// animations and pausing its scripts: one frame, so the last state shows.
const holdFrame = 20 * time.Millisecond

// hold freezes a tab for presentation, as measured on Chromium 156: stop
// CSS animations (playback rate 0), let one frame pass, then pause the
// script debugger so timers and requestAnimationFrame stop. It returns a
// receipt that resume consumes. Input and reads on the tab are refused
// until then. Every command is bounded by the step's context.
func (r *run) hold(ctx context.Context, name string, rec *timeline.Step) error {
	rec.Target = name
	t, ok := r.tabs[name]
	if !ok {
		return undispatched(fmt.Errorf("no tab %q is open", name))
	}
	if t.held != "" {
		return undispatched(fmt.Errorf("tab %q is already held", name))
	}
	c, stop := onTab(ctx, t.ctx)
	defer stop()
	rate, err := chromedp.Call(c, animation.GetPlaybackRate, cdp.Empty{})
	if err != nil {
		return undispatched(fmt.Errorf("hold %s: read playback rate: %w", name, err))
	}
	if _, err := chromedp.Call(c, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: 0}); err != nil {
		return dispatchErr(err)
	}
	if err := sleep(c, holdFrame); err != nil {
		r.thaw(t, rate.PlaybackRate)
		return dispatchErr(err)
	}
	if _, err := chromedp.Call(c, debugger.Enable, debugger.EnableParams{}); err != nil {
		r.thaw(t, rate.PlaybackRate)
		return dispatchErr(err)
	}
	if _, err := chromedp.Call(c, debugger.Pause, cdp.Empty{}); err != nil {
		r.thaw(t, rate.PlaybackRate)
		return dispatchErr(err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	t.held = hex.EncodeToString(b[:])
	t.rate = rate.PlaybackRate
	r.tl.Holds = append(r.tl.Holds, timeline.Hold{Tab: name, Receipt: t.held, Start: r.clock.Now(), End: -1})
	r.jr.Append(timeline.JournalHold, r.tl.Holds[len(r.tl.Holds)-1])
	return nil
}

// thaw undoes a half-made hold: the animations run again and the debugger
// lets go, so a failed hold leaves no part of itself behind.
func (r *run) thaw(t *Tab, rate float64) {
	c, cancel := afterwards(t.ctx)
	defer cancel()
	_, _ = chromedp.Call(c, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: rate})
	_, _ = chromedp.Call(c, debugger.Disable, cdp.Empty{})
}

// resume thaws a held tab, consuming its hold receipt.
func (r *run) resume(ctx context.Context, name string, rec *timeline.Step) error {
	rec.Target = name
	t, ok := r.tabs[name]
	if !ok {
		return undispatched(fmt.Errorf("no tab %q is open", name))
	}
	if t.held == "" {
		return undispatched(fmt.Errorf("tab %q is open but not held: resume needs an earlier hold", name))
	}
	c, stop := onTab(ctx, t.ctx)
	defer stop()
	// An idle page has not reached the pause yet (it waits for the next
	// script to run): then there is nothing to resume, and disabling the
	// debugger below drops the pending pause.
	if t.events.isPaused() {
		if _, err := chromedp.Call(c, debugger.Resume, debugger.ResumeParams{}); err != nil {
			return dispatchErr(err)
		}
	}
	if _, err := chromedp.Call(c, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: t.rate}); err != nil {
		return dispatchErr(err)
	}
	if _, err := chromedp.Call(c, debugger.Disable, cdp.Empty{}); err != nil {
		return dispatchErr(err)
	}
	for i := range r.tl.Holds {
		if h := &r.tl.Holds[i]; h.Receipt == t.held {
			h.End = r.clock.Now()
			r.jr.Append(timeline.JournalHoldEnd, timeline.HoldEnd{Receipt: h.Receipt, End: h.End})
		}
	}
	t.held = ""
	return nil
}
