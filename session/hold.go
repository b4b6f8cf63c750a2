package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// hold freezes a tab for presentation, as measured on Chromium 156: stop
// CSS animations (playback rate 0), let one frame pass, then pause the
// script debugger so timers and requestAnimationFrame stop. It returns a
// receipt that resume consumes. Input and reads on the tab are refused
// until then.
func (r *run) hold(ctx context.Context, name string, rec *timeline.Step) error {
	t, ok := r.tabs[name]
	if !ok {
		return undispatched(fmt.Errorf("no tab %q is open", name))
	}
	rec.Target = name
	if t.held != "" {
		return undispatched(fmt.Errorf("tab %q is already held", name))
	}
	rate, err := chromedp.Call(t.ctx, animation.GetPlaybackRate, cdp.Empty{})
	if err != nil {
		return undispatched(fmt.Errorf("hold %s: read playback rate: %w", name, err))
	}
	if _, err := chromedp.Call(t.ctx, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: 0}); err != nil {
		return dispatchErr(err)
	}
	time.Sleep(20 * time.Millisecond) // one frame, so the last animation state is painted
	if _, err := chromedp.Call(t.ctx, debugger.Enable, debugger.EnableParams{}); err != nil {
		return dispatchErr(err)
	}
	if _, err := chromedp.Call(t.ctx, debugger.Pause, cdp.Empty{}); err != nil {
		return dispatchErr(err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	t.held = hex.EncodeToString(b[:])
	t.rate = rate.PlaybackRate
	r.tl.Holds = append(r.tl.Holds, timeline.Hold{Tab: name, Receipt: t.held, Start: r.clock.Now(), End: -1})
	return nil
}

// resume thaws a held tab, consuming its hold receipt.
func (r *run) resume(ctx context.Context, name string, rec *timeline.Step) error {
	t, ok := r.tabs[name]
	if !ok {
		return undispatched(fmt.Errorf("no tab %q is open", name))
	}
	rec.Target = name
	if t.held == "" {
		return undispatched(fmt.Errorf("tab %q is not held", name))
	}
	// An idle page never reached the pause (it waits for the next script
	// to run): Chromium then says it is not paused, and disabling the
	// debugger below drops the pending pause.
	if _, err := chromedp.Call(t.ctx, debugger.Resume, debugger.ResumeParams{}); err != nil && !strings.Contains(err.Error(), "while paused") {
		return dispatchErr(err)
	}
	if _, err := chromedp.Call(t.ctx, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: t.rate}); err != nil {
		return dispatchErr(err)
	}
	_, _ = chromedp.Call(t.ctx, debugger.Disable, cdp.Empty{})
	for i := range r.tl.Holds {
		if h := &r.tl.Holds[i]; h.Receipt == t.held {
			h.End = r.clock.Now()
		}
	}
	t.held = ""
	return nil
}
