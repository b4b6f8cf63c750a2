package recorder

import (
	"context"
	"fmt"
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
// transitions step by the difference (measured: a box animated at
// 150 px/s filmed at 53-130 px/s when frame times were the take's
// origin plus take time). So frame times are the tab's base plus what
// was granted to it, which is not the take time once a tab has been
// filmed, left and filmed again.
type tabTime struct {
	// frame is held by the pump while it makes one of this tab's frames
	// (begin-frame and the interval after it), and by Hold to change
	// held between two frames.
	frame sync.Mutex
	held  atomic.Bool

	mu      sync.Mutex
	base    float64       // virtualTimeTicksBase, ms; 0 until known
	granted time.Duration // virtual time run in the tab so far
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
		t.base = ms
	}
}

// ticks is the tab's virtual time now, in Chromium's TimeTicks (ms).
func (t *tabTime) ticks() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.base + float64(t.granted)/float64(time.Millisecond)
}

func (t *tabTime) grant(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.granted += d
}

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
