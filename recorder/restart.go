package recorder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Why a live capture restarts its screencast.
//
// Chromium's screencast takes its frames from a video capturer (viz's
// FrameSinkVideoCapturer) whose oracle watches the damage of each frame.
// Once one region has been damaged steadily for a second (its
// AnimatedContentSampler), the oracle locks onto that region and from then
// on skips every frame whose damage differs, until 250 ms pass without a
// frame of that region. On a page where several things move, such as the
// bench page, whose code, box and bar all change every frame, the lock came
// about a second after each document loaded and skipped the frames that
// followed: a freeze in the take, in both documents of the bench scenario,
// and none when only the code moved (measured with clapper bench run). A
// screencast started again has a new capturer with no history, so a
// capture that starts it anew before the lock can come never sees the
// lock. Stopping and starting it in place lost the frames in the old
// capturer's pipeline each time, most of what the bench scenario still
// lost. So the capture hands the screencast over between two CDP sessions
// of the tab: it starts one on the other session, waits for its first
// frames, then stops the old one. With hand-overs the bench scenario keeps
// more of the page's frames than with one screencast, and its longest
// freeze is shorter (what is left is mostly the page painting late on two
// busy cores; docs/internals.md, "Chromium's screencast"); the frames both
// sessions sent while they overlapped are counted as duplicates.

// castRestartAfter is how long a screencast may deliver frames with no pause
// of castRestartGap before the capture restarts it: under the second of steady
// frames the oracle needs before it locks.
const castRestartAfter = 750 * time.Millisecond

// castRestartGap is a pause between frames that ends a streak: as long as the
// oracle waits before it gives a lock up, so its history restarts too.
const castRestartGap = 250 * time.Millisecond

// streak follows the frames of the screencast and says when to start it
// anew. Pure; the listeners keep it under frameMu.
type streak struct {
	start, last timeline.Time
	on          bool
}

// frame notes a frame stamped src (frames may come slightly out of order)
// and reports whether the screencast is due for a restart: it has sent
// frames for castRestartAfter with no pause of castRestartGap. The streak then
// starts again with the restarted screencast's first frame.
func (s *streak) frame(src timeline.Time) bool {
	if !s.on || src-s.last >= timeline.FromDuration(castRestartGap) {
		s.start, s.last, s.on = src, src, true
	}
	s.last = max(s.last, src)
	if s.last-s.start >= timeline.FromDuration(castRestartAfter) {
		s.on = false
		return true
	}
	return false
}

// handoffWait bounds how long a hand-over waits for the frames of the
// screencast it started before it stops the other: a new screencast sends
// the current picture at once, so on a still page too one comes quickly.
const handoffWait = 250 * time.Millisecond

// handoffFrames is how many frames of the new screencast a hand-over waits
// for before it stops the old one. Its first is the current picture, sent
// at once; the second is drawn by the new capturer in its stride. Stopping
// the old one after the second left shorter gaps with clapper bench run,
// for twice the duplicates (docs/internals.md).
const handoffFrames = 2

// secondRefusals is how many hand-overs running the tab's second session
// may refuse before the capture stops using it.
const secondRefusals = 3

// castSession is the tab's second CDP session, which the screencast is
// handed over to and back.
type castSession struct {
	ctx    context.Context    // a chromedp context attached to the tab
	cancel context.CancelFunc // detaches it (Stop)
}

// restarter is the goroutine that restarts the screencast when a listener
// says it is due. It holds castMu while it does (SyncRestarts waits on
// it), and quits once Stop has begun: Stop cancels restartCtx, which cuts
// short every call and wait of a hand-over, and waits for it.
func (c *Capture) restarter(params page.StartScreencastParams) {
	defer c.restartWG.Done()
	for {
		select {
		case <-c.restartWake:
		case <-c.restartCtx.Done():
			return
		}
		c.castMu.Lock()
		if c.restartCtx.Err() != nil || c.ended.Load() {
			c.castMu.Unlock()
			return
		}
		if p := c.opts.RestartPaused; p != nil && p() {
			c.castMu.Unlock()
			continue // held: the next steady frames after it come again
		}
		done, err := c.handOver(params)
		c.castMu.Unlock()
		if err != nil && c.restartCtx.Err() == nil { // not Stop cutting it short
			c.enqueue(event{kind: evEnd, at: c.clock.Now(), err: err})
			return
		}
		if done {
			c.restarts.Add(1)
		}
	}
}

// castCtx returns the chromedp context of session i: the tab's own (0), or
// the second one (1), attached the first time it is asked for. Only the
// restarter calls it before Stop.
func (c *Capture) castCtx(i int) (context.Context, error) {
	if i == 0 {
		return c.ctx, nil
	}
	if c.second != nil {
		return c.second.ctx, nil
	}
	id := tabID(c.ctx)
	if id == "" || c.noSecond != nil {
		return nil, cmp.Or(c.noSecond, errors.New("no target id"))
	}
	sctx, cancel := chromedp.NewContext(c.ctx, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
	// Attaching is a few round trips; bound it, and let Stop cut it short.
	bound := time.AfterFunc(5*time.Second, cancel)
	quit := context.AfterFunc(c.restartCtx, cancel)
	err := chromedp.Listen(sctx, func(ev any) {
		if f, ok := ev.(*page.EventScreencastFrame); ok {
			c.noteFrame(1, f, c.clock.Now())
		}
	})
	if !bound.Stop() || !quit() || err != nil {
		cancel()
		c.noSecond = fmt.Errorf("attach a second session: %w", cmp.Or(err, context.DeadlineExceeded))
		return nil, c.noSecond
	}
	cs := &castSession{ctx: sctx, cancel: cancel}
	c.ackMu.Lock()
	c.second = cs
	c.ackMu.Unlock()
	return cs.ctx, nil
}

// handOver moves the screencast to the tab's other session: it starts a
// screencast there, with the same parameters (a new capturer with no
// history), waits for its first two frames, then stops the one that was
// running. The two overlap, so no frame is lost; a frame both send has the
// same source time and is counted a duplicate once. Without a second
// session (it could not be attached) it restarts the screencast in place:
// two round trips, and the frames in the old capturer's pipeline lost. A
// start the other session refuses
// leaves the running screencast as it is (a navigation swapping the page
// refuses starts for a moment: a hand-over once ended a bench run's
// capture this way); after secondRefusals running, restarts are in place.
// A stop that fails means the tab is going (its end is told by its own
// events); a start that fails after a stop, and after its tries again
// (retryStart), leaves the capture without frames, so it ends the
// interval.
//
// It reports whether the screencast was started anew. If the old one does
// not stop, both run until Stop, which stops both.
func (c *Capture) handOver(params page.StartScreencastParams) (bool, error) {
	from, to := c.active, 1-c.active
	fctx, _ := c.castCtx(from)
	tctx, err := c.castCtx(to)
	if err != nil || c.secondRefused >= secondRefusals {
		return c.restartIn(fctx, params)
	}
	c.arrived.Store(0)
	c.incoming.Store(int32(to))
	defer c.incoming.Store(-1)
	select {
	case <-c.handoff:
	default:
	}
	if err := c.call(tctx, page.StartScreencast.Method, params); err != nil {
		// The running screencast is left as it is (a navigation under
		// way refuses a start for a moment: "Not attached to an active
		// page"); the next steady streak tries again. A session that
		// refuses secondRefusals times running is given up: the
		// screencast restarts in place from then on.
		c.secondRefused++
		return false, nil
	}
	c.secondRefused = 0
	c.active = to
	select {
	case <-c.handoff:
	case <-time.After(handoffWait):
	case <-c.done:
	case <-c.restartCtx.Done():
	}
	return c.call(fctx, page.StopScreencast.Method, cdp.Empty{}) == nil, nil
}

// restartIn stops the screencast of session ctx and starts it again. A
// start refused while a navigation swaps the page ("Not attached to an
// active page") is tried again (startBackoff) before the capture gives up.
func (c *Capture) restartIn(sctx context.Context, params page.StartScreencastParams) (bool, error) {
	if err := c.call(sctx, page.StopScreencast.Method, cdp.Empty{}); err != nil {
		return false, nil
	}
	err := retryStart(func() error { return c.call(sctx, page.StartScreencast.Method, params) }, refusal, func(d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-c.restartCtx.Done():
			return false
		}
	})
	if err != nil {
		if c.restartCtx.Err() != nil {
			return false, nil // Stop cut it short; it stops the screencast anyway
		}
		return false, fmt.Errorf("restart the screencast: it stopped and did not start again: %w", err)
	}
	return true, nil
}

// startBackoff is how long a refused screencast start waits before each
// try again: 1.5 s in all, longer than a navigation's swap of the page.
var startBackoff = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 750 * time.Millisecond}

// retryStart calls start until it succeeds, waiting startBackoff's
// durations between tries, as long as its error is one again says may
// pass (wait returns false when the capture is stopping: the last error
// is returned then). Pure but for its callbacks.
func retryStart(start func() error, again func(error) bool, wait func(time.Duration) bool) error {
	err := start()
	for _, d := range startBackoff {
		if err == nil || !again(err) || !wait(d) {
			return err
		}
		err = start()
	}
	return err
}

// refusal says a start failed with Chromium's answer, which a moment may
// change, and not for want of one: a call that timed out (3 s) is not
// tried again, so that a hung browser does not hold the restarter.
func refusal(err error) bool {
	return !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

// call sends one command on session sctx, bounded by 3 s and cut short
// when Stop begins.
func (c *Capture) call(sctx context.Context, method string, params any) error {
	ctx, cancel := context.WithTimeout(sctx, 3*time.Second)
	defer cancel()
	defer context.AfterFunc(c.restartCtx, cancel)()
	return chromedp.FromContext(ctx).Target.Call(ctx, method, params, nil)
}

// SyncRestarts waits for a restart under way, if any: one decided after
// Options.RestartPaused turned true has seen it.
func (c *Capture) SyncRestarts() {
	c.castMu.Lock()
	defer c.castMu.Unlock() // nothing to guard: the wait is the point
}

// quitRestarts stops the restarter before Stop stops the screencast: it
// cuts short a hand-over under way and waits for it. It returns the
// contexts of the sessions that may be casting, the active one last.
func (c *Capture) quitRestarts() []context.Context {
	if c.restartCancel == nil {
		return []context.Context{c.ctx}
	}
	c.restartCancel()
	c.restartWG.Wait()
	switch {
	case c.second == nil:
		return []context.Context{c.ctx}
	case c.active == 1:
		return []context.Context{c.ctx, c.second.ctx}
	}
	return []context.Context{c.second.ctx, c.ctx}
}
