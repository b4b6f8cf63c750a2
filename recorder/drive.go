package recorder

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/headlessexperimental"
	"github.com/chromedp/chromedp"
)

// Tabs that are not filmed. Under begin-frame control a tab paints, runs
// its animation frames and completes input only when it is sent frames,
// and its timers run only on the virtual time it is granted. So the pump
// of the filmed tab drives every other studio tab of the run as well:
// after each of its own frames, each driven tab gets a begin-frame that
// asks for no picture and the same interval of virtual time. A scout tab
// then takes clicks and typing, and its page keeps time with the stage,
// while only the filmed tab is shot.
type driven struct {
	ctx     context.Context // the tab's, for its commands
	id      string
	t       *tabTime
	expired chan struct{}
	failed  bool // a command to it failed: it is left alone from then on
	paused  bool // on virtual time (driveOthers puts it there)
}

// Drive has the pump drive the studio tab of ctx (created with begin-frame
// control) whenever another tab is filmed, from now until the returned
// func is called (before the tab closes). The tab goes on virtual time
// when it is first driven or filmed, not before: a tab put on paused
// virtual time before its first document loads, and given no time while
// it loads, never draws that document (measured on the headless shell
// 156: its animation frames stop after the first two).
func (v *VirtualTime) Drive(ctx context.Context) (func(), error) {
	id := tabID(ctx)
	lctx, cancel := context.WithCancel(ctx)
	d := &driven{ctx: ctx, id: id, t: v.tab(id), expired: make(chan struct{}, 1)}
	if err := chromedp.Listen(lctx, func(ev any) {
		if _, ok := ev.(*emulation.EventVirtualTimeBudgetExpired); ok {
			signal(d.expired)
		}
	}); err != nil {
		cancel()
		return nil, fmt.Errorf("subscribe to the tab's events: %w", err)
	}
	v.tt.mu.Lock()
	if v.tt.driven == nil {
		v.tt.driven = map[string]*driven{}
	}
	v.tt.driven[id] = d
	v.tt.mu.Unlock()
	return func() {
		v.tt.mu.Lock()
		if v.tt.driven[id] == d {
			delete(v.tt.driven, id)
		}
		v.tt.mu.Unlock()
		// The tab may be in the middle of a driven frame: let it finish.
		d.t.frame.Lock()
		d.failed = true
		d.t.frame.Unlock()
		cancel()
	}, nil
}

// others returns the driven tabs other than the one of id, in a fixed
// order (by target), so that every run drives them alike.
func (v *VirtualTime) others(id string) []*driven {
	v.tt.mu.Lock()
	defer v.tt.mu.Unlock()
	out := make([]*driven, 0, len(v.tt.driven))
	for k, d := range v.tt.driven {
		if k != id {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// driveOthers runs every driven tab but the filmed one through the frame
// the pump just made: a begin-frame without a picture at the tab's own
// time, then the interval d of its virtual time. A held tab gets neither
// (its page sees no time pass). A tab whose commands fail (closed,
// crashed) is left alone from then on; the step that uses it next finds
// out, and the filmed capture goes on.
func (p *pump) driveOthers(d time.Duration) {
	for _, o := range p.virt.others(p.tabID) {
		o.t.frame.Lock()
		if !o.failed && !o.t.held.Load() {
			if err := o.frame(p.intervalMs(), d, &p.forced); err != nil {
				o.failed = true
			}
		}
		o.t.frame.Unlock()
	}
}

// frame runs a driven tab through one frame: onto virtual time the first
// time, a begin-frame without a picture at its own time, then the
// interval d of its virtual time. o.t.frame is held.
func (o *driven) frame(intervalMs float64, d time.Duration, forced *atomic.Int64) error {
	if !o.paused {
		if err := o.t.pause(o.ctx); err != nil {
			return err
		}
		o.paused = true
	}
	if _, err := beginFrame(o.ctx, headlessexperimental.BeginFrameParams{FrameTimeTicks: o.t.ticks(), Interval: intervalMs}); err != nil {
		return err
	}
	if err := runBudget(o.ctx, o.expired, o.t.budget(d), forced); err != nil {
		return err
	}
	o.t.grant(d)
	return nil
}
