package recorder

import (
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// VirtualTime is the take clock of a studio capture: it stands still until
// the frame pump advances it, one frame interval per output frame, so every
// record of the take (frames, steps, input receipts) lands on the page's
// own clock. Timers on it (a wait's poll interval, a step's deadline, a
// pause) fire when the pump has advanced past them: a pause of two seconds
// is 120 frames at 60 fps, however long those take to make.
//
// When the pump can no longer advance (the browser is gone), Fail fires
// every timer and makes new ones fire at once, so nothing waits forever on
// a clock that stopped.
type VirtualTime struct {
	mu     sync.Mutex
	now    timeline.Time
	timers []*vtimer // sorted by due time, then creation
	err    error     // why the clock failed for good (Fail); nil while it runs

	// Pacing (see Turn): how many session sleeps are waiting on the
	// clock, how many session commands are in flight, when either last
	// changed or the pump last made a frame (wall time), and a channel
	// signalled on each change.
	sleepers, busy, alarms int
	framing                int // of busy, the commands that need a frame (BusyFrames)
	changed                time.Time
	pace                   chan struct{}
	// frames counts the frames made (Advance); needs holds, for each
	// command in flight that needs frames and says how many, the frame
	// count by which it has had them.
	frames int64
	needs  []int64

	tt tabTimes // each tab's own virtual time (tabtime.go)

	disturbs atomic.Int64 // Disturb's count
}

type vtimer struct {
	due   timeline.Time
	ch    chan struct{}
	done  bool
	sleep bool // a session sleep: counted in sleepers until it fires
	alarm bool // an Alarm: counted in alarms from when it fires until done
}

// NewVirtualTime returns a virtual clock at 0.
func NewVirtualTime() *VirtualTime { return &VirtualTime{pace: make(chan struct{}, 1)} }

// Now returns the virtual time.
func (v *VirtualTime) Now() timeline.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// After returns a channel closed once virtual time has advanced by d (at
// once when d <= 0 or the clock failed), and a func that releases the timer.
func (v *VirtualTime) After(d time.Duration) (<-chan struct{}, func()) {
	return v.after(d, false)
}

// Sleep is After for the session's own waits (a pause, a poll's interval,
// the pointer's and the keyboard's pacing): while one waits, the pump may
// make frames freely (Turn).
func (v *VirtualTime) Sleep(d time.Duration) (<-chan struct{}, func()) {
	return v.after(d, true)
}

func (v *VirtualTime) after(d time.Duration, sleep bool) (<-chan struct{}, func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	t := &vtimer{due: v.now + timeline.Time(d), ch: make(chan struct{})}
	if d <= 0 || v.err != nil {
		t.done = true
		close(t.ch)
		return t.ch, func() {}
	}
	if sleep {
		t.sleep = true
		v.sleepers++
		v.touch()
	}
	i := sort.Search(len(v.timers), func(i int) bool { return v.timers[i].due > t.due })
	v.timers = append(v.timers, nil)
	copy(v.timers[i+1:], v.timers[i:])
	v.timers[i] = t
	return t.ch, func() { v.release(t) }
}

func (v *VirtualTime) release(t *vtimer) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	if t.sleep {
		v.sleepers--
		v.touch()
	}
	for i, o := range v.timers {
		if o == t {
			v.timers = append(v.timers[:i], v.timers[i+1:]...)
			break
		}
	}
}

// Advance moves the clock forward by d and fires the timers now due.
func (v *VirtualTime) Advance(d time.Duration) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.now += timeline.Time(d)
	n := 0
	for n < len(v.timers) && v.timers[n].due <= v.now {
		t := v.timers[n]
		t.done = true
		if t.sleep {
			// The sleeper is awake from now on, before its goroutine runs:
			// the pump must not run ahead of what it does next.
			v.sleepers--
		}
		if t.alarm {
			v.alarms++ // until its work is done (Alarm)
		}
		close(t.ch)
		n++
	}
	v.changed = time.Now()
	v.frames++
	v.timers = append(v.timers[:0], v.timers[n:]...)
}

// Fail marks the clock stopped for good, for err: every timer fires now,
// and later ones fire at once. A timer that fired so did not see its time
// come: its waiter asks Err.
func (v *VirtualTime) Fail(err error) {
	if err == nil {
		err = errors.New("the virtual clock stopped")
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err == nil {
		v.err = err
	}
	for _, t := range v.timers {
		t.done = true
		close(t.ch)
	}
	v.timers = nil
	v.sleepers, v.alarms = 0, 0
	v.touch()
}

// Disturb tells the pumps that the session is about to draw on a page
// outside them (a screenshot of its own): a screencast that gives the
// pumps their pictures can lose the frame drawn then, so they wait for
// each picture for a few frames (recorder/studiocast.go).
func (v *VirtualTime) Disturb() { v.disturbs.Add(1) }

func (v *VirtualTime) disturbed() int64 { return v.disturbs.Load() }

// Err is why the clock failed, nil while it runs: a wait whose timer fired
// reports it, for that wait's time did not come.
func (v *VirtualTime) Err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

// touch notes a change of the pacing counts. v.mu is held.
func (v *VirtualTime) touch() {
	v.changed = time.Now()
	select {
	case v.pace <- struct{}{}:
	default:
	}
}

// Alarm is After for work the run does at a virtual time of its own (a
// bounded hold resuming itself): once it fires, the pump makes no frame
// until done is called (at most IdleWait of real time per frame), so the
// work lands at the alarm's time in every run, not frames later. done
// also releases an alarm that has not fired.
func (v *VirtualTime) Alarm(d time.Duration) (<-chan struct{}, func()) {
	v.mu.Lock()
	t := &vtimer{due: v.now + timeline.Time(d), ch: make(chan struct{}), alarm: true}
	if d <= 0 || v.err != nil {
		t.done, t.alarm = true, false
		close(t.ch)
	} else {
		i := sort.Search(len(v.timers), func(i int) bool { return v.timers[i].due > t.due })
		v.timers = append(v.timers, nil)
		copy(v.timers[i+1:], v.timers[i:])
		v.timers[i] = t
	}
	v.mu.Unlock()
	var once sync.Once
	return t.ch, func() {
		once.Do(func() {
			v.mu.Lock()
			fired := t.done && t.alarm
			v.mu.Unlock()
			if !fired {
				v.release(t)
				return
			}
			v.mu.Lock()
			v.alarms--
			v.touch()
			v.mu.Unlock()
		})
	}
}

// Busy marks a session command in flight until the returned func is
// called (Turn).
func (v *VirtualTime) Busy() func() { return v.busyOf(false, 0) }

// BusyFrames is Busy for a command that may complete only once the page
// has made need frames (a pointer move, which the page answers at once or
// within two frames: 2; a helper awaiting two animation frames: 2; 0 when
// it cannot be told). Until it has had them, the pump holds each
// next frame only DeliverWait for it, long enough for the command to
// reach the page, instead of BusyWait, which such a command would always
// use up; once it has had them, the pump holds the next frame BusyWait
// for its answer, as for any command, so that it completes after the same
// frames in every run.
func (v *VirtualTime) BusyFrames(need int) func() { return v.busyOf(true, need) }

func (v *VirtualTime) busyOf(frames bool, need int) func() {
	v.mu.Lock()
	v.busy++
	by := int64(-1)
	if frames {
		v.framing++
		if need > 0 {
			by = v.frames + int64(need)
			v.needs = append(v.needs, by)
		}
	}
	v.touch()
	v.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			v.mu.Lock()
			v.busy--
			if frames {
				v.framing--
				if i := slices.Index(v.needs, by); by >= 0 && i >= 0 {
					v.needs = slices.Delete(v.needs, i, i+1)
				}
			}
			v.touch()
			v.mu.Unlock()
		})
	}
}

// served reports whether a command in flight that needs frames has had
// all it needs. v.mu is held.
func (v *VirtualTime) served() bool {
	return slices.ContainsFunc(v.needs, func(by int64) bool { return v.frames >= by })
}

// Pacing of the pump, so that two runs of a script make the same frames:
// virtual time moves only while the session waits on it. Before each
// frame the pump takes its Turn:
//   - a session sleep is waiting: go on at once;
//   - a session command is in flight: wait until it returns (a command
//     that needs no frame then costs none), but at most BusyWait of real
//     time since the last frame or change (input and scripts awaiting
//     animation frames complete only as frames are made); when every
//     command in flight is known to need frames (BusyFrames) and none has
//     had all it needs yet, only DeliverWait, the time for it to reach
//     the page;
//   - neither (the session is working between calls): wait for it to
//     sleep or send, but at most IdleWait (a call the session did not
//     mark must not stall the page).
//
// A command that takes longer than BusyWait without needing frames, or an
// unmarked call, lets frames pass by real time: such runs can differ.
const (
	BusyWait    = 30 * time.Millisecond
	DeliverWait = 4 * time.Millisecond
	IdleWait    = 250 * time.Millisecond
)

// turnLimit is how long, since the last change, the pump waits before
// its next frame, given the pacing counts (Turn); 0 is at once. Pure.
func turnLimit(sleepers, busy, framing, alarms int, served, failed bool) time.Duration {
	switch {
	case failed, sleepers > 0 && alarms == 0:
		return 0
	case busy > 0 && alarms == 0 && framing == busy && !served:
		return DeliverWait
	case busy > 0 && alarms == 0:
		return BusyWait
	default:
		return IdleWait
	}
}

// Turn blocks until the pump may make its next frame, or quit is closed.
func (v *VirtualTime) Turn(quit <-chan struct{}) {
	for {
		v.mu.Lock()
		limit := turnLimit(v.sleepers, v.busy, v.framing, v.alarms, v.served(), v.err != nil)
		since := time.Since(v.changed)
		v.mu.Unlock()
		if since >= limit {
			return
		}
		t := time.NewTimer(limit - since)
		select {
		case <-quit:
			t.Stop()
			return
		case <-v.pace:
		case <-t.C:
		}
		t.Stop()
	}
}

// Pending returns how many timers wait (tests and leak checks).
func (v *VirtualTime) Pending() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.timers)
}
