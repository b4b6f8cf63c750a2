package recorder

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// A tab's own virtual time. Each renderer keeps its virtual time apart:
// it starts at the renderer's TimeTicks when the tab is first paused
// (virtualTimeTicksBase in setVirtualTimePolicy's answer) and moves only
// by the budgets granted to that tab. Blink's animation clock reads that
// time between frames, and the begin-frame's frameTimeTicks at each
// frame; the two must be the same clock, or CSS animations and
// transitions step by the difference (a box animated at a steady speed
// was filmed moving slower and unevenly when frame times were the take's
// origin plus take time). So frame times are the tab's base plus what
// was granted to it, which is not the take time once a tab has been
// filmed, left and filmed again.
//
// Both are kept on a grid of pageTick (100 µs) from the base. Blink
// samples animations and transitions at times it coarsens to 100 µs,
// rounding each up or down by a threshold drawn from a secret random per
// renderer (the same jitter performance.now() has); a frame time between
// two ticks of that grid was therefore rounded one way in one run and
// the other way in the next, and two runs of one script drew a
// transition's edges a hair apart (two runs of the quickstart: 33 of its
// 55 stored frames identical). On the grid nothing is
// left to round: the page's time at frame k is k intervals rounded to the
// nearest 100 µs (at most 33 µs off at 60 fps, less than the jitter was),
// the same in every run, and the tab's virtual time, moved by budgets
// that are differences of grid times, never drifts from its frame times.
type tabTime struct {
	// frame is held by the pump while it makes one of this tab's frames
	// (begin-frame and the interval after it), and by Hold to change
	// held between two frames.
	frame sync.Mutex
	held  atomic.Bool

	mu      sync.Mutex
	base    int64         // virtualTimeTicksBase, whole µs; 0 until known
	granted time.Duration // take time run in the tab so far (the page's is onGrid of it)
}

// tabTimes holds the tab times of a run by target, on its virtual clock.
type tabTimes struct {
	mu     sync.Mutex
	tabs   map[string]*tabTime
	driven map[string]*driven // drive.go
}

// tab returns the tab time of target id, created on first use.
func (v *VirtualTime) tab(id string) *tabTime {
	v.tt.mu.Lock()
	defer v.tt.mu.Unlock()
	if v.tt.tabs == nil {
		v.tt.tabs = map[string]*tabTime{}
	}
	t := v.tt.tabs[id]
	if t == nil {
		t = &tabTime{}
		v.tt.tabs[id] = t
	}
	return t
}

// setBase records the tab's virtual time base the first time it is known.
func (t *tabTime) setBase(ms float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.base == 0 {
		t.base = int64(math.Round(ms * 1000))
	}
}

// ticks is the tab's virtual time now, in Chromium's TimeTicks (ms).
func (t *tabTime) ticks() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ticksMs(t.base, onGrid(t.granted))
}

// budget is the virtual time the page is to run for the next d of take
// time: from the grid time of what was granted so far to that of what
// will be.
func (t *tabTime) budget(d time.Duration) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return pageBudget(t.granted, d)
}

// grant notes that d more of take time ran in the tab (its page ran
// budget(d) of its own).
func (t *tabTime) grant(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.granted += d
}

// pageTick is the grid of page times: the 100 µs to which Blink coarsens
// the times it samples animations at.
const pageTick = 100 * time.Microsecond

// onGrid is take time d on the grid of page times, rounded to the
// nearest tick. Pure.
func onGrid(d time.Duration) time.Duration {
	return (d + pageTick/2) / pageTick * pageTick
}

// pageBudget is the page time that runs while the take time moves from
// granted to granted+d: the difference of their grid times. Pure.
func pageBudget(granted, d time.Duration) time.Duration {
	return onGrid(granted+d) - onGrid(granted)
}

// ticksMs is a frame time, base µs plus page time d, in the milliseconds
// begin-frame takes. Pure.
func ticksMs(baseUs int64, d time.Duration) float64 {
	return usToMs(baseUs + int64(d/time.Microsecond))
}

// budgetMs is a virtual time budget d (whole microseconds) in the
// milliseconds setVirtualTimePolicy takes. Pure.
func budgetMs(d time.Duration) float64 { return usToMs(int64(d / time.Microsecond)) }

// usToMs is a whole number of microseconds as the milliseconds Chromium
// takes. Chromium keeps times in whole microseconds and converts the
// double it is sent by truncation, and the double of a whole number of
// microseconds can fall a hair below it; a quarter microsecond more lands
// on the intended one whether the conversion truncates or rounds. Pure.
func usToMs(us int64) float64 { return (float64(us) + 0.25) / 1000 }

// Hold stops the virtual time of the tab of ctx (on) or lets it run again
// (off), between two of its frames. A held tab's page sees no time pass:
// timers, requestAnimationFrame, CSS animations and transitions all stand
// still, and go on from there when let go, with no jump. While the held
// tab is filmed the pump goes on advancing the take clock and repeats the
// last picture; other tabs are not affected, since each renderer keeps its
// own virtual time. Holding also pauses a tab's virtual time that was not
// on it yet (a tab never filmed), so its timers stop too.
func (v *VirtualTime) Hold(ctx context.Context, on bool) error {
	t := v.tab(tabID(ctx))
	t.frame.Lock()
	defer t.frame.Unlock()
	if on {
		if err := t.pause(ctx); err != nil {
			return err
		}
	}
	t.held.Store(on)
	return nil
}

// pause puts the tab of ctx, whose tab time t is, on paused virtual time
// and notes its base.
func (t *tabTime) pause(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, callLimit)
	defer cancel()
	res, err := chromedp.Call(cctx, emulation.SetVirtualTimePolicy, emulation.SetVirtualTimePolicyParams{Policy: emulation.VirtualTimePolicyPause})
	if err != nil {
		return fmt.Errorf("put the tab on virtual time: %w", err)
	}
	t.setBase(res.VirtualTimeTicksBase)
	return nil
}
