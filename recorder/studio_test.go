package recorder

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/chromedp/cdproto/headlessexperimental"

	"github.com/clapper-dev/clapper/timeline"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestVirtualTimeTimers(t *testing.T) {
	v := NewVirtualTime()
	a, _ := v.After(50 * time.Millisecond)
	b, releaseB := v.After(20 * time.Millisecond)
	c, _ := v.After(20 * time.Millisecond)
	now, _ := v.After(0)
	if !closed(now) {
		t.Error("a timer of 0 did not fire at once")
	}
	v.Advance(10 * time.Millisecond)
	if closed(a) || closed(b) || closed(c) {
		t.Fatal("a timer fired early")
	}
	releaseB()
	v.Advance(10 * time.Millisecond)
	if closed(b) || !closed(c) || closed(a) {
		t.Errorf("at 20ms: released %v, due %v, later %v", closed(b), closed(c), closed(a))
	}
	if v.Now() != timeline.Time(20*time.Millisecond) || v.Pending() != 1 {
		t.Errorf("now %v, pending %d", v.Now(), v.Pending())
	}
	if v.Err() != nil {
		t.Errorf("a running clock says it failed: %v", v.Err())
	}
	gone := errors.New("gone")
	v.Fail(gone)
	v.Fail(errors.New("again"))
	if !closed(a) || v.Pending() != 0 {
		t.Error("Fail left a timer waiting")
	}
	if !errors.Is(v.Err(), gone) {
		t.Errorf("the clock failed for %v, want the first cause", v.Err())
	}
	late, _ := v.After(time.Hour)
	if !closed(late) {
		t.Error("a timer on a failed clock did not fire at once")
	}
}

func TestFrameGrid(t *testing.T) {
	for _, c := range []struct {
		k    int64
		fps  int
		want timeline.Time
	}{
		{0, 60, 0}, {1, 60, 16666667}, {2, 60, 33333333}, {3, 60, 50000000}, {60, 60, timeline.Time(time.Second)},
		{120, 60, timeline.Time(2 * time.Second)}, {1, 30, 33333333}, {1, 24, 41666667}, {7, 25, 280000000},
	} {
		if got := frameTime(c.k, c.fps); got != c.want {
			t.Errorf("frameTime(%d, %d) = %d, want %d", c.k, c.fps, got, c.want)
		}
	}
	for _, fps := range []int{24, 25, 30, 50, 60} {
		for k := int64(0); k < 500; k++ {
			at := frameTime(k, fps)
			if got := frameIndexAt(at, fps); got != k {
				t.Fatalf("fps %d: frameIndexAt(frameTime(%d)) = %d", fps, k, got)
			}
			if got := frameIndexAt(at+1, fps); got != k+1 {
				t.Fatalf("fps %d: frameIndexAt(frameTime(%d)+1ns) = %d, want the next frame", fps, k, got)
			}
		}
	}
}

func TestIsRepeat(t *testing.T) {
	pic, other := []byte{1, 2, 3}, []byte{4, 5}
	for _, c := range []struct {
		name       string
		data, last []byte
		want       bool
	}{
		{"no picture", nil, pic, true},
		{"no picture, none yet", nil, nil, true},
		{"first picture", pic, nil, false},
		{"same bytes", pic, []byte{1, 2, 3}, true},
		{"new picture", other, pic, false},
	} {
		if got := isRepeat(c.data, c.last); got != c.want {
			t.Errorf("%s: isRepeat = %v, want %v", c.name, got, c.want)
		}
	}
}

// The pump's turn: at once while a session sleep waits; while a command is
// in flight, once it returns (or BusyWait passes); a sleep stops counting
// the moment its timer fires.
func TestVirtualTimeTurn(t *testing.T) {
	v := NewVirtualTime()
	quit := make(chan struct{})
	_, release := v.Sleep(time.Second)
	v.Turn(quit) // returns at once: a sleep waits
	v.Advance(time.Second)
	v.mu.Lock()
	sleepers := v.sleepers
	v.mu.Unlock()
	if sleepers != 0 {
		t.Fatalf("a fired sleep still counts: %d sleepers", sleepers)
	}
	release() // after firing: no double count
	v.mu.Lock()
	sleepers = v.sleepers
	v.mu.Unlock()
	if sleepers != 0 {
		t.Fatalf("releasing a fired sleep changed the count: %d", sleepers)
	}
	done := v.Busy()
	returned := make(chan struct{})
	go func() { v.Turn(quit); close(returned) }() // ends when the command returns, or by BusyWait
	done()
	<-returned
	_, release = v.Sleep(time.Second)
	release()
	v.mu.Lock()
	sleepers = v.sleepers
	v.mu.Unlock()
	if sleepers != 0 {
		t.Fatalf("a released sleep still counts: %d", sleepers)
	}
	close(quit)
	v.Turn(quit) // a closed quit always ends the turn
}

// A tab's frame times are its base plus what was granted to it, whatever
// the take clock does; each tab keeps its own.
func TestTabTime(t *testing.T) {
	v := NewVirtualTime()
	a, b := v.tab("a"), v.tab("b")
	if v.tab("a") != a {
		t.Fatal("the same target gets another tab time")
	}
	a.setBase(1000)
	a.setBase(5000) // a capture that follows keeps the first base
	b.setBase(2000)
	a.grant(16 * time.Millisecond)
	a.grant(500 * time.Microsecond)
	v.Advance(time.Second)
	if got := a.ticks(); got != 1016.50025 {
		t.Errorf("tab a at %v ms, want 1016.50025", got)
	}
	if got := b.ticks(); got != 2000.00025 {
		t.Errorf("tab b at %v ms, want 2000.00025 (nothing granted)", got)
	}
}

// Page times stay on the 100 µs grid: every frame time and every budget is
// a whole number of ticks, the budgets add up to the grid time of the
// take time granted (so the page's virtual time never drifts from its
// frame times), and each frame time is within half a tick of the take's.
// Chromium's conversion of the milliseconds sent, by truncation or by
// rounding, lands on the intended microsecond.
func TestPageTimesOnTheGrid(t *testing.T) {
	for _, fps := range []int{24, 25, 30, 50, 60} {
		var granted, page time.Duration
		for k := int64(0); k < 10*int64(fps); k++ {
			d := time.Duration(frameTime(k+1, fps) - frameTime(k, fps))
			b := pageBudget(granted, d)
			if b%pageTick != 0 || b <= 0 {
				t.Fatalf("%d fps, frame %d: budget %v is not a positive number of ticks", fps, k, b)
			}
			granted += d
			page += b
			if page != onGrid(granted) {
				t.Fatalf("%d fps, frame %d: the budgets add up to %v, the grid time is %v", fps, k, page, onGrid(granted))
			}
			if off := (page - granted).Abs(); off > pageTick/2 {
				t.Fatalf("%d fps, frame %d: page time %v is %v from the take's %v", fps, k, page, off, granted)
			}
			for _, base := range []int64{0, 1, 123456789, 987654321987} {
				ms := ticksMs(base, page)
				want := base + int64(page/time.Microsecond)
				if tr, rd := int64(ms*1000), int64(math.Round(ms*1000)); tr != want || rd != want {
					t.Fatalf("base %d µs + %v sent as %v ms: truncated %d, rounded %d, want %d", base, page, ms, tr, rd, want)
				}
			}
			bm := budgetMs(b)
			if tr, rd := int64(bm*1000), int64(math.Round(bm*1000)); tr != int64(b/time.Microsecond) || rd != tr {
				t.Fatalf("budget %v sent as %v ms: truncated %d, rounded %d", b, bm, tr, rd)
			}
		}
	}
}

// An alarm that fired holds the pump (Turn) until its work is done, even
// while a session sleep waits; one not fired is released by done.
func TestVirtualTimeAlarm(t *testing.T) {
	v := NewVirtualTime()
	_, wake := v.Sleep(time.Hour)
	defer wake()
	fired, done := v.Alarm(time.Second)
	v.Advance(time.Second)
	select {
	case <-fired:
	default:
		t.Fatal("the alarm did not fire at its time")
	}
	v.mu.Lock()
	alarms := v.alarms
	v.mu.Unlock()
	if alarms != 1 {
		t.Fatalf("%d alarms pending their work, want 1", alarms)
	}
	turned := make(chan struct{})
	go func() { v.Turn(nil); close(turned) }()
	done()
	<-turned // returns once done (a sleeper waits): no timing asserted
	done()   // twice is once
	v.mu.Lock()
	alarms = v.alarms
	v.mu.Unlock()
	if alarms != 0 {
		t.Errorf("%d alarms after done, want 0", alarms)
	}
	_, done2 := v.Alarm(time.Second)
	done2()
	if n := v.Pending(); n != 1 { // the sleep's timer only
		t.Errorf("%d timers pending after releasing an alarm, want 1", n)
	}
}

// How long the pump waits before a frame, for every combination of the
// pacing counts that matters: a failed clock or a waiting sleep goes at
// once (unless an alarm's work is in hand); commands in flight that all
// need a frame get DeliverWait, any other command BusyWait; otherwise
// IdleWait.
func TestTurnLimit(t *testing.T) {
	for sleepers := 0; sleepers <= 2; sleepers++ {
		for busy := 0; busy <= 2; busy++ {
			for framing := 0; framing <= busy; framing++ {
				for alarms := 0; alarms <= 1; alarms++ {
					for _, failed := range []bool{false, true} {
						for _, served := range []bool{false, true} {
							var want time.Duration
							switch {
							case failed:
								want = 0
							case sleepers > 0 && alarms == 0:
								want = 0
							case busy > 0 && alarms == 0 && framing == busy && !served:
								want = DeliverWait
							case busy > 0 && alarms == 0:
								want = BusyWait
							default:
								want = IdleWait
							}
							if got := turnLimit(sleepers, busy, framing, alarms, served, failed); got != want {
								t.Errorf("turnLimit(sleepers %d, busy %d, framing %d, alarms %d, served %v, failed %v) = %v, want %v",
									sleepers, busy, framing, alarms, served, failed, got, want)
							}
						}
					}
				}
			}
		}
	}
	if !(0 < DeliverWait && DeliverWait < BusyWait && BusyWait < IdleWait) {
		t.Errorf("waits out of order: deliver %v, busy %v, idle %v", DeliverWait, BusyWait, IdleWait)
	}
}

// A command that needs a frame counts as busy and as framing until done,
// and only then; a plain command alongside it brings back BusyWait.
func TestBusyFramesCounts(t *testing.T) {
	v := NewVirtualTime()
	count := func() (int, int) {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.busy, v.framing
	}
	move := v.BusyFrames(1)
	if b, f := count(); b != 1 || f != 1 {
		t.Fatalf("after BusyFrames: busy %d framing %d, want 1 1", b, f)
	}
	plain := v.Busy()
	if b, f := count(); b != 2 || f != 1 || turnLimit(0, b, f, 0, false, false) != BusyWait {
		t.Fatalf("with a plain command too: busy %d framing %d", b, f)
	}
	plain()
	move()
	move() // a second call changes nothing
	if b, f := count(); b != 0 || f != 0 {
		t.Fatalf("after both are done: busy %d framing %d, want 0 0", b, f)
	}
}

// A command that needs frames holds the pump only DeliverWait until it
// has had them, then BusyWait for its answer; one that cannot say how
// many never holds it longer than DeliverWait.
func TestBusyFramesServed(t *testing.T) {
	v := NewVirtualTime()
	served := func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.served()
	}
	probe := v.BusyFrames(2)
	unknown := v.BusyFrames(0)
	for frame := 1; frame <= 3; frame++ {
		v.Advance(time.Second / 60)
		if got, want := served(), frame >= 2; got != want {
			t.Errorf("after %d frames: served %v, want %v", frame, got, want)
		}
	}
	probe()
	if served() {
		t.Error("served after the command that needed frames returned")
	}
	unknown()
	move := v.BusyFrames(1)
	if served() {
		t.Error("a new command is served before any frame")
	}
	v.Advance(time.Second / 60)
	if !served() {
		t.Error("a move is not served after its frame")
	}
	move()
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.needs) != 0 || v.busy != 0 || v.framing != 0 {
		t.Errorf("left: needs %v, busy %d, framing %d", v.needs, v.busy, v.framing)
	}
}

// A capture's first frame, asked for again until its picture comes: the
// waits grow from 2 ms to at most 50 ms and add up to the limit at most;
// the first picture, a failed ask or a stop ends the asking at once.
func TestUntilPicture(t *testing.T) {
	stop := errors.New("stop")
	fail := errors.New("the browser is gone")
	for _, c := range []struct {
		name    string
		empties int // asks answered with no picture before one with
		failAt  int // the ask that fails (0: none)
		stopAt  int // the wait told to stop (0: none)
		limit   time.Duration
		asks    int
		waited  time.Duration
		picture bool
		err     error
	}{
		{name: "the next ask brings it", empties: 0, limit: time.Second, asks: 1, waited: 2 * time.Millisecond, picture: true},
		{name: "after five empty answers", empties: 5, limit: time.Second, asks: 6, waited: (2 + 4 + 8 + 16 + 32 + 50) * time.Millisecond, picture: true},
		{name: "never: the waits add up to the limit", empties: 1 << 30, limit: 200 * time.Millisecond, asks: 8, waited: 200 * time.Millisecond},
		{name: "never, a limit below the first wait", empties: 1 << 30, limit: time.Millisecond, asks: 1, waited: time.Millisecond},
		{name: "the ask fails", empties: 1 << 30, failAt: 3, limit: time.Second, asks: 3, waited: 14 * time.Millisecond, err: fail},
		{name: "told to stop", empties: 1 << 30, stopAt: 2, limit: time.Second, asks: 1, waited: 2 * time.Millisecond, err: stop},
	} {
		t.Run(c.name, func(t *testing.T) {
			asks, waits := 0, 0
			var waited time.Duration
			ask := func() (headlessexperimental.BeginFrameResult, error) {
				asks++
				if asks == c.failAt {
					return headlessexperimental.BeginFrameResult{}, fail
				}
				if asks > c.empties {
					return headlessexperimental.BeginFrameResult{HasDamage: true, ScreenshotData: []byte{0xff, 0xd8}}, nil
				}
				return headlessexperimental.BeginFrameResult{}, nil
			}
			wait := func(d time.Duration) error {
				waits++
				if waits == c.stopAt {
					return stop
				}
				if d <= 0 || d > 50*time.Millisecond {
					t.Errorf("wait %d: %v", waits, d)
				}
				waited += d
				return nil
			}
			res, err := untilPicture(ask, wait, c.limit)
			if !errors.Is(err, c.err) || asks != c.asks || waited != c.waited || (len(res.ScreenshotData) > 0) != c.picture {
				t.Errorf("err %v, %d asks, waited %v, picture %v; want %v, %d, %v, %v", err, asks, waited, len(res.ScreenshotData) > 0, c.err, c.asks, c.waited, c.picture)
			}
		})
	}
}
