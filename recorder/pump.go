package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/headlessexperimental"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Studio capture: the frame pump.
//
// On chromium-headless-shell with begin-frame control, nothing is painted
// until someone asks: the pump is that someone. For each output frame it
// asks for a frame (HeadlessExperimental.beginFrame), whose picture comes
// with it as a JPEG screenshot (or, with Options.StudioScreencast, from the
// screencast beside it: studiocast.go), at the current virtual time, then lets the page's virtual time run one
// frame interval (Emulation.setVirtualTimePolicy with a budget, waiting for
// the budget to expire) and advances the take clock by the same interval.
// Frame k is therefore stamped k intervals after the capture began, and
// shows the page as it was then: page clocks, requestAnimationFrame, timers
// and CSS animations advance exactly one interval per frame.
//
// The session never calls begin-frame: it sends input, waits and navigates
// while the pump runs (input only completes while frames are produced).
// A begin-frame without damage comes back without a picture: that frame
// repeats the last one, counted in Repeats, and nothing is stored.

// DefaultFPS is the studio frame rate when none is given.
const DefaultFPS = 60

// Budget waits. A page with network fetches pending holds virtual time
// still (the policy pauseIfNetworkFetchesPending), so a load is filmed as
// it completes, not cut short; a fetch that never completes would hold it
// forever, so after FetchWait of wall time the interval is forced through
// with the plain advance policy, and counted.
const (
	FetchWait = 10 * time.Second
	forceWait = 5 * time.Second
	callLimit = 15 * time.Second
)

// ErrVirtualTimeStuck ends a studio capture whose page would not let
// virtual time advance even when forced.
var ErrVirtualTimeStuck = errors.New("virtual time does not advance (the page's renderer is stuck)")

// pump is a studio capture's frame pump.
type pump struct {
	c        *Capture
	virt     *VirtualTime
	fps      int
	first    int64 // frame number of the first pumped frame (take time / interval)
	tab      *tabTime
	tabID    string
	expired  chan struct{}
	started  chan struct{} // closed once the first frame is made, or the pump ends
	quit     chan struct{}
	quitOnce sync.Once
	wg       sync.WaitGroup

	// moving counts the frames in a row that showed something new. Until
	// it reaches shootWhenMoving, a begin-frame asks for no picture (a
	// still page's frame then costs about a millisecond instead of a
	// screenshot's encoding), and only a frame that reports damage is
	// asked again, at the same time, for its picture. A page that keeps
	// moving is shot at once, frame after frame (a screenshot always
	// reports damage, so there a probe would cost a call for nothing),
	// until a picture repeats.
	moving int
	fresh  atomic.Bool // a document was committed since the last frame

	// out orders frames and navigations for the capture loop; casting is
	// set while the pictures come from the screencast (studiocast.go).
	out         *outbox
	acks        *acker // acks the screencast's pictures (nil: no screencast)
	casting     atomic.Bool
	fellBack    atomic.Bool // the screencast could not start, or was given up mid-capture
	restartIn   int         // drawn frames until the screencast is started again (-1: none due)
	careful     int         // drawn frames whose pictures are awaited one by one
	seenDisturb int64       // VirtualTime.Disturb's count when last looked at

	// shot is set once the capture's first picture was asked for (a
	// frame of a held tab asks for none); the screencast of
	// StudioScreencast starts after it (castTried).
	shot, castTried bool

	frames, repeats, forced atomic.Int64

	// detached closes when the filmed tab's target detaches (its page
	// closed, the browser on); gone is set once the pump has seen it
	// (pageGone).
	detached <-chan struct{}
	gone     bool
}

// StartStudio begins a studio capture of the tab of ctx, which must have
// been created with begin-frame control on a browser launched for it, with
// opts.Clock on virtual time (NewVirtualClock). fps is the output frame
// rate (DefaultFPS when 0). The take clock, shared with the rest of the
// run, advances only as the pump makes frames.
func StartStudio(ctx context.Context, opts Options, fps int) (*Capture, error) {
	if opts.Log == nil {
		return nil, errors.New("recorder: Options.Log is nil")
	}
	if opts.Clock == nil || opts.Clock.Virtual == nil {
		return nil, errors.New("recorder: a studio capture needs a clock on virtual time (NewVirtualClock)")
	}
	if fps <= 0 {
		fps = DefaultFPS
	}
	c := newCapture(ctx, opts)
	p := &pump{c: c, virt: opts.Clock.Virtual, fps: fps, expired: make(chan struct{}, 1), started: make(chan struct{}), quit: make(chan struct{}), out: newOutbox(c.enqueue), restartIn: -1, careful: carefulFrames}
	// A capture that follows another one in the same take carries on from
	// where the clock stands, on the same grid of frame times.
	p.first = frameIndexAt(p.virt.Now(), fps)
	c.mode = p
	if opts.StudioScreencast {
		p.acks = newAcker(ctx, c.opts.MaxFramesInFlight, &c.ended)
	}
	lctx, cancel := context.WithCancel(ctx)
	c.cancel = cancel
	if err := chromedp.Listen(lctx, p.onEvent); err != nil {
		return nil, c.failStart(fmt.Errorf("subscribe to the page's events: %w", err))
	}
	p.tabID = tabID(ctx)
	p.tab = p.virt.tab(p.tabID)
	p.detached, _ = chromedp.Detached(ctx)
	if err := p.tab.pause(ctx); err != nil {
		return nil, c.failStart(fmt.Errorf("%w (is this chromium-headless-shell with begin-frame control?)", err))
	}
	p.wg.Add(1)
	go p.run()
	// The session goes on once the first frame is made and the clock has
	// moved past it: a navigation it starts then commits after that frame
	// in every run, and its steps start on the same frame.
	select {
	case <-p.started:
	case <-ctx.Done():
	}
	return c, nil
}

// tabID names the tab of ctx, for its own virtual time.
func tabID(ctx context.Context) string {
	if c := chromedp.FromContext(ctx); c != nil && c.Target != nil {
		return string(c.Target.TargetID)
	}
	return ""
}

// frameIndexAt is the number of the first frame at or after t on the grid
// of frame times k/fps seconds. Pure.
func frameIndexAt(t timeline.Time, fps int) int64 {
	k := max(int64(t)*int64(fps)/int64(time.Second)-1, 0)
	for frameTime(k, fps) < t {
		k++
	}
	return k
}

// frameTime is when frame k of the grid falls: k/fps seconds, rounded to
// the nanosecond, so that rounding never accumulates. Pure.
func frameTime(k int64, fps int) timeline.Time {
	return timeline.Time((k*int64(time.Second) + int64(fps)/2) / int64(fps))
}

// onEvent is the pump's listener: the budget's expiry for the pump, the
// rest (navigations, crashes, detaching) for the capture loop. It only
// enqueues.
func (p *pump) onEvent(ev any) {
	switch e := ev.(type) {
	case *emulation.EventVirtualTimeBudgetExpired:
		signal(p.expired)
		return
	case *page.EventScreencastFrame:
		p.onCast(e)
		return
	case *page.EventFrameNavigated:
		if e.Frame != nil && e.Frame.ParentID == "" {
			p.fresh.Store(true)
		}
	}
	if e, ok := p.c.eventOf(ev, p.c.clock.Now()); ok {
		if e.kind == evNav {
			p.out.post(e) // after the frames drawn before it
		} else {
			p.c.enqueue(e)
		}
	}
}

// halt stops the pump after the frame in hand and waits for it.
func (p *pump) halt(context.Context) {
	p.quitOnce.Do(func() { close(p.quit) })
	p.wg.Wait()
}

func (p *pump) stopping() bool {
	select {
	case <-p.quit:
		return true
	default:
		return false
	}
}

// run is the pump goroutine.
func (p *pump) run() {
	defer p.wg.Done()
	var start sync.Once
	started := func() { start.Do(func() { close(p.started) }) }
	defer func() { // every picture on its way is recorded, then the screencast ends
		p.awaitPictures(0)
		p.endCast()
	}()
	defer started() // first: StartStudio need not wait for the pictures
	for k := p.first; ; k++ {
		if !p.room() {
			p.withoutPage(k)
			return
		}
		// A capture's first frame is made at once: the filmed tab is shown
		// from the moment it is filmed, however briefly.
		if k != p.first {
			started()
			p.virt.Turn(p.quit)
		}
		if p.stopping() {
			return
		}
		at := p.virt.Now()
		next := frameTime(k+1, p.fps)
		if !p.frame(at, next) {
			p.withoutPage(k)
			return
		}
		if p.c.opts.StudioScreencast && p.shot && !p.castTried {
			p.castTried = true
			p.beginCast()
		}
		p.driveOthers(time.Duration(next - at))
		p.virt.Advance(time.Duration(next - at))
		if !p.awaitPictures(castAhead) {
			p.withoutPage(k + 1)
			return
		}
	}
}

// withoutPage goes on from frame k without a page when the capture could
// not go on because its page is gone (goesOnGone): no frame, but the
// clock moves on frame by frame, paced as before, and the other tabs are
// driven, until the pump is told to stop.
func (p *pump) withoutPage(k int64) {
	if !p.goesOnGone() {
		return
	}
	for ; ; k++ {
		p.virt.Turn(p.quit)
		if p.stopping() {
			return
		}
		at, next := p.virt.Now(), frameTime(k+1, p.fps)
		p.driveOthers(time.Duration(next - at))
		p.virt.Advance(time.Duration(next - at))
	}
}

// pageGone says whether the filmed tab's page is gone (its target
// detached: the page closed itself, or was closed, while the browser goes
// on), and notes it. The capture's interval then ends, its film ending
// with its last frame as a live capture's does, and the pump goes on
// without a page until the capture is stopped: it makes no frame, but
// moves the take clock on frame by frame and drives the other tabs, so
// the run's steps go on (a sign-in window's Continue button closes it in
// the middle of the click; the run films its opener next). Without it the
// run's clock stood still, or stopped for good, with a page that went.
func (p *pump) pageGone() bool {
	if p.gone {
		return true
	}
	select {
	case <-p.detached:
	default:
		return false
	}
	// A browser that closes detaches every tab before its connection
	// drops: the page alone is gone only if the browser still answers.
	ctx, cancel := context.WithTimeout(p.c.ctx, callLimit)
	defer cancel()
	if _, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{}); err != nil {
		return false
	}
	p.gone = true
	p.c.enqueue(event{kind: evEnd, at: p.virt.Now(), err: errors.New("target detached: the page closed")})
	return true
}

// goesOnGone says whether the pump goes on after a frame, or a wait, that
// failed: it was not told to stop, and the page is gone (pageGone). The
// capture can end on the page's own word that it closes a moment before
// its target detaches: that is waited for, briefly. A pump that stops
// untold, its page not gone, stops the clock (nothing moves it then):
// every wait on it ends, none as if its time had come.
func (p *pump) goesOnGone() bool {
	if p.stopping() || p.virt.Err() != nil {
		return false
	}
	if p.gone {
		return true
	}
	t := time.NewTimer(detachWait)
	defer t.Stop()
	select {
	case <-p.detached:
	case <-p.quit:
		return false
	case <-p.c.ctx.Done():
	case <-t.C:
	}
	if p.pageGone() {
		return true
	}
	if !p.stopping() {
		p.virt.Fail(errors.New("the filmed tab's capture ended"))
	}
	return false
}

// detachWait bounds goesOnGone's wait for the target's detach after the
// capture ended.
const detachWait = 2 * time.Second

// frame makes the frame at take time at and runs the tab's virtual time
// on to next; a held tab (VirtualTime.Hold) gets no begin-frame and no
// time, and its frame repeats the last picture. It returns false when the
// capture failed.
func (p *pump) frame(at, next timeline.Time) bool {
	p.tab.frame.Lock()
	defer p.tab.frame.Unlock()
	if p.tab.held.Load() {
		p.frames.Add(1)
		p.repeats.Add(1)
		return true
	}
	if p.casting.Load() {
		return p.frameCast(at, next)
	}
	return p.frameShot(at, next)
}

// beginCast starts the screencast the pictures come from
// (Options.StudioScreencast) once the capture's first frame, a
// screenshot, is made: a screencast running then would send a picture of
// that frame too, which the outbox could give to the next one. When it
// cannot start, the capture goes on with screenshots and says so.
func (p *pump) beginCast() {
	ctx, cancel := context.WithTimeout(p.c.ctx, callLimit)
	defer cancel()
	if err := p.startCast(ctx); err != nil {
		p.fellBack.Store(true)
		return
	}
	p.casting.Store(true)
}

// frameShot makes the frame at take time at with its picture taken by the
// begin-frame (a screenshot) where one can be new.
func (p *pump) frameShot(at, next timeline.Time) bool {
	c := p.c
	q := int64(c.opts.Quality)
	shot := &headlessexperimental.ScreenshotParams{Format: headlessexperimental.ScreenshotParamsFormatJpeg, Quality: &q}
	// The frame's time in Chromium's TimeTicks (ms): the tab's own
	// virtual time (tabtime.go), the clock Blink's animations read
	// between frames too.
	bf := headlessexperimental.BeginFrameParams{FrameTimeTicks: p.tab.ticks(), Interval: p.intervalMs()}
	// A new document is shot from its first frame, not probed: it is
	// about to paint, frame after frame, so a probe would cost a call.
	if p.fresh.Swap(false) {
		p.moving = shootWhenMoving
	}
	probe := p.moving < shootWhenMoving && p.out.hasPicture()
	first := !p.shot // the capture's first picture (never a probe: no picture yet)
	if !probe {
		bf.Screenshot = shot
	}
	res, err := beginFrame(c.ctx, bf)
	if err == nil && probe && res.HasDamage {
		// The still page changed: the same frame again, at the same
		// time, drawing nothing (so no animation frame runs twice, and
		// input that arrived meanwhile waits for the next frame), for
		// its picture.
		yes := true
		bf.Screenshot, bf.NoDisplayUpdates = shot, &yes
		res, err = beginFrame(c.ctx, bf)
	}
	if err == nil && first && len(res.ScreenshotData) == 0 {
		res, err = p.firstPicture(bf, shot)
	}
	p.shot = true
	if err != nil {
		p.fail(fmt.Errorf("begin frame: %w", err))
		return false
	}
	p.frames.Add(1)
	if p.out.shot(at, res.ScreenshotData) {
		p.moving = 0
	} else {
		p.moving++
	}
	return p.interval(at, next)
}

// firstPicture asks again for the frame of bf, the capture's first,
// whose begin-frame came without a picture: a tab whose renderer has not
// drawn yet (just opened, on a busy machine) answers its first
// begin-frames with none. Without it, the steps began on an empty
// capture, and the first picture stored was of whatever the page showed a
// frame or more later (the document a goto had committed meanwhile): the
// take had no picture of its start, and two takes of one script differed
// there. The frame is asked for again, drawing, at the same time (the
// page's clock stands meanwhile), until its picture comes
// (untilPicture).
func (p *pump) firstPicture(bf headlessexperimental.BeginFrameParams, shot *headlessexperimental.ScreenshotParams) (headlessexperimental.BeginFrameResult, error) {
	bf.Screenshot = shot
	ask := func() (headlessexperimental.BeginFrameResult, error) { return beginFrame(p.c.ctx, bf) }
	wait := func(d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-p.quit:
			return errStopped
		case <-p.c.done:
			return errStopped
		case <-p.c.ctx.Done():
			return p.c.ctx.Err()
		}
	}
	res, err := untilPicture(ask, wait, firstPictureWait)
	if errors.Is(err, errStopped) {
		err = nil // the capture ends with the frame as it came
	}
	return res, err
}

// errStopped is untilPicture's wait told the pump is stopping.
var errStopped = errors.New("the capture is stopping")

// untilPicture asks for a frame's picture until one comes: first after
// 2 ms, then after twice as long each time, at most 50 ms apart, until
// the waits add up to limit (the answer then stands as it came), ask
// fails or wait does (told to stop). Pure but for ask and wait.
func untilPicture(ask func() (headlessexperimental.BeginFrameResult, error), wait func(time.Duration) error, limit time.Duration) (headlessexperimental.BeginFrameResult, error) {
	var res headlessexperimental.BeginFrameResult
	waited := time.Duration(0)
	for d := 2 * time.Millisecond; waited < limit; d = min(2*d, 50*time.Millisecond) {
		d = min(d, limit-waited)
		if err := wait(d); err != nil {
			return res, err
		}
		waited += d
		var err error
		if res, err = ask(); err != nil || len(res.ScreenshotData) > 0 {
			return res, err
		}
	}
	return res, nil
}

// firstPictureWait bounds the waits between a capture's first frame's
// asks for its picture (firstPicture; each ask is bounded by callLimit):
// a renderer that is only late draws within a few asks, and the bound is
// for one that never draws.
const firstPictureWait = 5 * time.Second

// frameCast makes the frame at take time at without a screenshot: when it
// drew something, its picture comes from the screencast (studiocast.go).
// While the pump is careful (after the capture starts, a new document
// comes in, or something else drew on the page), it waits for each
// picture before the page runs on, and when one does not come it takes it
// as a screenshot of the same frame instead: nothing is lost.
func (p *pump) frameCast(at, next timeline.Time) bool {
	if p.fresh.Swap(false) {
		p.restartIn, p.careful = restartAfter, carefulFrames
	}
	if d := p.virt.disturbed(); d != p.seenDisturb {
		p.seenDisturb, p.careful = d, carefulFrames
	}
	if p.restartIn == 0 {
		p.restartIn = -1
		if !p.restartCast() {
			return p.frameShot(at, next) // the screencast failed
		}
	}
	bf := headlessexperimental.BeginFrameParams{FrameTimeTicks: p.tab.ticks(), Interval: p.intervalMs()}
	p.out.begin(at, bf.FrameTimeTicks+bf.Interval)
	res, err := beginFrame(p.c.ctx, bf)
	drew := p.out.drawn(err == nil && res.HasDamage)
	if err != nil {
		p.fail(fmt.Errorf("begin frame: %w", err))
		return false
	}
	p.frames.Add(1)
	if !drew {
		p.repeats.Add(1)
		return p.interval(at, next)
	}
	if p.restartIn > 0 {
		p.restartIn--
	}
	if p.careful > 0 || p.out.byOrderNow() {
		// Careful after a start or a new document: a second, then the
		// frame is shot again. Steady running by order: as long as any
		// picture may take under load (castWait).
		wait := castWait
		if p.careful > 0 {
			p.careful--
			wait = carefulWait
		}
		if !p.pictureOrShot(bf, wait) {
			return false
		}
	}
	return p.interval(at, next)
}

// interval runs the tab's virtual time from a frame at to the next. It is
// always run, even when stopping: the clock then stands at the next
// frame's time, where a capture that follows (another tab, the same take)
// begins.
func (p *pump) interval(at, next timeline.Time) bool {
	d := time.Duration(next - at)
	if err := p.advance(p.tab.budget(d)); err != nil {
		p.fail(err)
		return false
	}
	p.tab.grant(d)
	return true
}

// shootWhenMoving is how many new pictures in a row make the pump ask
// for a picture with every begin-frame (pump.moving).
const shootWhenMoving = 2

// restartAfter is how many frames a new document draws before the
// screencast is started again for it (restartCast); carefulFrames how many
// drawn frames the pump waits for one by one after a capture starts, a
// document comes in or the page was disturbed (frameCast).
const (
	restartAfter  = 3
	carefulFrames = 4
)

// intervalMs is the frame interval in milliseconds, as begin-frame takes it.
func (p *pump) intervalMs() float64 {
	return float64(time.Second) / float64(p.fps) / float64(time.Millisecond)
}

// beginFrame asks the tab of ctx for one frame.
func beginFrame(ctx context.Context, bf headlessexperimental.BeginFrameParams) (headlessexperimental.BeginFrameResult, error) {
	cctx, cancel := context.WithTimeout(ctx, callLimit)
	defer cancel()
	return chromedp.Call(cctx, headlessexperimental.BeginFrame, bf)
}

// isRepeat reports whether a begin-frame's answer shows nothing new: no
// picture, or the very bytes of the last picture (Chromium 156 sends a
// screenshot of a still page with each begin-frame, and encodes the same
// pixels to the same bytes). Such a frame is counted as a repeat of the
// last one, never stored again. hasDamage is not trusted on its own:
// Chromium documents it as diagnostic only. Pure.
func isRepeat(data, last []byte) bool {
	return len(data) == 0 || bytes.Equal(data, last)
}

// room waits until the spool buffer has room for another frame, so a
// studio capture never overflows: it owns the clock and can wait for the
// disk instead. It returns false when the pump is told to stop.
func (p *pump) room() bool {
	c := p.c
	limit := int64(c.opts.BufferFrames / 2)
	if limit < 1 {
		limit = 1 << 62 // the byte bound alone holds; checked below
	}
	for {
		if p.stopping() {
			return false
		}
		queued := p.frames.Load() - p.repeated() - c.delivered.Load() - c.overflow.Load() - c.late.Load() - c.dups.Load() - c.rejected.Load() - c.spoolDropped.Load()
		c.bmu.Lock()
		bytes := c.buf.Bytes()
		c.bmu.Unlock()
		if queued < limit && bytes < c.opts.BufferBytes/2 {
			return true
		}
		select {
		case <-p.quit:
			return false
		case <-c.done:
			return false
		case <-time.After(time.Millisecond):
		}
	}
}

// advance lets the page's virtual time run for d (a page budget) and waits
// until it has.
func (p *pump) advance(d time.Duration) error {
	return runBudget(p.c.ctx, p.expired, d, &p.forced)
}

// runBudget lets the virtual time of the tab of ctx run for d (a page
// budget, tabTime.budget), and waits for its expiry on expired (signalled
// by the tab's listener). A page with network fetches pending holds
// virtual time still; after FetchWait of wall time the interval is forced
// through, and counted in forced.
func runBudget(ctx context.Context, expired chan struct{}, d time.Duration, forced *atomic.Int64) error {
	budget := budgetMs(d)
	// An expiry left from before (the tab was driven by another pump, or
	// filmed) is not this budget's.
	select {
	case <-expired:
	default:
	}
	// A tab whose page closes meanwhile sends no expiry: its wait ends
	// with the detach, not after FetchWait.
	gone, _ := chromedp.Detached(ctx)
	if err := setPolicy(ctx, emulation.VirtualTimePolicyPauseIfNetworkFetchesPending, budget); err != nil {
		return err
	}
	if ok, err := waitExpired(ctx, expired, gone, FetchWait); ok || err != nil {
		return err
	}
	// A fetch that does not end holds virtual time: force this interval.
	forced.Add(1)
	if err := setPolicy(ctx, emulation.VirtualTimePolicyAdvance, budget); err != nil {
		return err
	}
	if ok, err := waitExpired(ctx, expired, gone, forceWait); ok || err != nil {
		return err
	}
	return ErrVirtualTimeStuck
}

func setPolicy(ctx context.Context, pol emulation.VirtualTimePolicy, budget float64) error {
	cctx, cancel := context.WithTimeout(ctx, callLimit)
	defer cancel()
	_, err := chromedp.Call(cctx, emulation.SetVirtualTimePolicy, emulation.SetVirtualTimePolicyParams{Policy: pol, Budget: &budget})
	if err != nil {
		return fmt.Errorf("advance virtual time: %w", err)
	}
	return nil
}

// waitExpired waits for the budget's expiry, at most d of wall time, and
// says whether it came. The stop of the capture does not cut it short:
// the frame in hand is finished. The tab's target detaching (gone) ends
// it with an error that says so.
func waitExpired(ctx context.Context, expired, gone <-chan struct{}, d time.Duration) (bool, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-expired:
		return true, nil
	case <-gone:
		return false, errBudgetDetached
	case <-t.C:
		return false, nil
	case <-ctx.Done():
		return false, nil
	}
}

// errBudgetDetached ends a wait for virtual time on a tab that detached.
var errBudgetDetached = fmt.Errorf("advance virtual time: %w", chromedp.ErrTargetDetached)

// fail ends the capture for err and stops the virtual clock, so waits on
// it end instead of waiting for frames that will not come; unless the
// page is gone while the browser goes on (pageGone): the clock goes on.
func (p *pump) fail(err error) {
	if p.pageGone() {
		return // the clock goes on without the page
	}
	p.c.enqueue(event{kind: evEnd, at: p.virt.Now(), err: err})
	p.virt.Fail(err)
}

// repeated counts the frames that stored nothing: repeats of the last
// picture, and frames whose picture never came.
func (p *pump) repeated() int64 {
	repeats, missed, _ := p.out.counts()
	return p.repeats.Load() + repeats + missed
}

// endAcks ends the acker of the screencast's pictures, if there is one,
// once the listener is gone.
func (p *pump) endAcks() { p.acks.stop() }

// settle and syncRestarts do nothing in studio: every frame is filmed,
// and the screencast, if any, is not handed over.
func (p *pump) settle(timeline.Time) error { return nil }
func (p *pump) syncRestarts()              {}

// record adds what a studio capture records to its result.
func (p *pump) record(r *Result) {
	p.acks.record(r)
	r.Capture.Mode = timeline.CaptureStudio
	r.Capture.FrameInterval = time.Duration(frameTime(1, p.fps))
	repeats, missed, _ := p.out.counts()
	r.Capture.Repeats = p.repeats.Load() + repeats
	r.Capture.Missed = missed
	r.Capture.Pictures = timeline.PicturesScreenshot
	if p.c.opts.StudioScreencast && !p.fellBack.Load() {
		r.Capture.Pictures = timeline.PicturesScreencast
	}
	r.Capture.Attribution = "receipt-order: each frame carries the document committed before the begin-frame that made it"
	r.Mapping = timeline.MappingVirtual
	r.Forced = p.forced.Load()
}
