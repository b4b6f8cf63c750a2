package session

import (
	"context"
	"time"
)

// Holds in studio mode. The page's time is virtual, so a hold need not
// freeze anything: it stops giving the tab time (recorder.VirtualTime.Hold)
// and the page stands still, timers, requestAnimationFrame, CSS
// animations and transitions alike; the pump goes on making the take's
// frames (repeats of the last picture while the held tab is filmed).
// Resuming gives the tab time again, and since no time passed for the
// page, everything goes on from where it stopped with no jump: neither
// the debugger nor the playback rate is touched. Other tabs have virtual
// clocks of their own and are not affected.

// freezeStudio holds the tab of c in studio mode.
func (r *run) freezeStudio(c context.Context) (holdStage, error) {
	if err := r.virt.Hold(c, true); err != nil {
		return stageNothing, err // the pause was refused: nothing changed
	}
	if err := r.fault(faultFreeze); err != nil {
		return stagePartial, err
	}
	return stageNothing, nil
}

// thawStudio lets a tab held in studio mode go. Callers hold holdMu.
func (r *run) thawStudio(c context.Context, h *holdState, why string) error {
	if err := r.virt.Hold(c, false); err != nil {
		return r.fence(h.tab, "resume", err, h)
	}
	if err := r.fault(faultAck); err != nil {
		return r.fence(h.tab, "resume", err, h)
	}
	r.endHold(h, why, "")
	return nil
}

// takeAlarm returns a channel closed once d has passed on the take's
// clock, and a func to call once the work it is for is done. In studio
// mode it is an Alarm: the pump waits for that work, so a bounded hold
// ends at its bound in virtual time, however fast held frames are made.
func (r *run) takeAlarm(d time.Duration) (<-chan struct{}, func()) {
	if r.virt != nil {
		return r.virt.Alarm(d)
	}
	ch := make(chan struct{})
	t := time.AfterFunc(d, func() { close(ch) })
	return ch, func() { t.Stop() }
}
