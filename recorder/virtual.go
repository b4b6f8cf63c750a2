package recorder

import (
	"sort"
	"sync"
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
	failed bool
}

type vtimer struct {
	due  timeline.Time
	ch   chan struct{}
	done bool
}

// NewVirtualTime returns a virtual clock at 0.
func NewVirtualTime() *VirtualTime { return &VirtualTime{} }

// Now returns the virtual time.
func (v *VirtualTime) Now() timeline.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// After returns a channel closed once virtual time has advanced by d (at
// once when d <= 0 or the clock failed), and a func that releases the timer.
func (v *VirtualTime) After(d time.Duration) (<-chan struct{}, func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	t := &vtimer{due: v.now + timeline.Time(d), ch: make(chan struct{})}
	if d <= 0 || v.failed {
		t.done = true
		close(t.ch)
		return t.ch, func() {}
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
		v.timers[n].done = true
		close(v.timers[n].ch)
		n++
	}
	v.timers = append(v.timers[:0], v.timers[n:]...)
}

// Fail marks the clock stopped for good: every timer fires now, and later
// ones fire at once.
func (v *VirtualTime) Fail() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.failed = true
	for _, t := range v.timers {
		t.done = true
		close(t.ch)
	}
	v.timers = nil
}

// Pending returns how many timers wait (tests and leak checks).
func (v *VirtualTime) Pending() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.timers)
}
