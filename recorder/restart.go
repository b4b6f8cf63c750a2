package recorder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
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

// restartState is the hand-overs': the listeners keep streak (under
// frameMu) and signal restartWake; castMu is held through a restart;
// active is the session casting (the restarter's, then Stop's); incoming
// the session a hand-over waits for frames from (-1: none), signalled on
// handoff at its handoffFrames-th; arrived counts them. second is the
// tab's second session (the restarter's, then Stop's), noSecond why it
// could not be attached (then restarts are in place), secondRefused the
// hand-overs running whose start it refused.
type restartState struct {
	frameMu       sync.Mutex
	streak        streak
	restartWake   chan struct{}
	restartCtx    context.Context // cancelled when Stop begins
	restartCancel context.CancelFunc
	handoff       chan struct{}
	incoming      atomic.Int32
	arrived       atomic.Int32
	active        int
	restartWG     sync.WaitGroup
	castMu        sync.Mutex
	restarts      atomic.Int64
	second        *castSession
	noSecond      error
	secondRefused int
}

// restarter is the goroutine that restarts the screencast when a listener
// says it is due. It holds castMu while it does (SyncRestarts waits on
// it), and quits once Stop has begun: Stop cancels restartCtx, which cuts
// short every call and wait of a hand-over, and waits for it.
func (s *screencast) restarter(params page.StartScreencastParams) {
	defer s.restartWG.Done()
	for {
		select {
		case <-s.restartWake:
		case <-s.restartCtx.Done():
			return
		}
		s.castMu.Lock()
		if s.restartCtx.Err() != nil || s.c.ended.Load() {
			s.castMu.Unlock()
			return
		}
		if p := s.c.opts.RestartPaused; p != nil && p() {
			s.castMu.Unlock()
			continue // held: the next steady frames after it come again
		}
		done, err := s.handOver(params)
		s.castMu.Unlock()
		if err != nil && s.restartCtx.Err() == nil { // not Stop cutting it short
			s.c.enqueue(event{kind: evEnd, at: s.c.clock.Now(), err: err})
			return
		}
		if done {
			s.restarts.Add(1)
		}
	}
}

// castCtx returns the chromedp context of session i: the tab's own (0), or
// the second one (1), attached the first time it is asked for. Only the
// restarter calls it before Stop.
func (s *screencast) castCtx(i int) (context.Context, error) {
	if i == 0 {
		return s.ctx, nil
	}
	if s.second != nil {
		return s.second.ctx, nil
	}
	id := tabID(s.ctx)
	if id == "" || s.noSecond != nil {
		return nil, cmp.Or(s.noSecond, errors.New("no target id"))
	}
	sctx, cancel := chromedp.NewContext(s.ctx, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
	// Attaching is a few round trips; bound it, and let Stop cut it short.
	bound := time.AfterFunc(5*time.Second, cancel)
	quit := context.AfterFunc(s.restartCtx, cancel)
	err := chromedp.Listen(sctx, func(ev any) {
		if f, ok := ev.(*page.EventScreencastFrame); ok {
			s.noteFrame(1, f, s.c.clock.Now())
		}
	})
	if !bound.Stop() || !quit() || err != nil {
		cancel()
		s.noSecond = fmt.Errorf("attach a second session: %w", cmp.Or(err, context.DeadlineExceeded))
		return nil, s.noSecond
	}
	cs := &castSession{ctx: sctx, cancel: cancel}
	s.second = cs
	s.acks.useSecond(cs)
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
func (s *screencast) handOver(params page.StartScreencastParams) (bool, error) {
	from, to := s.active, 1-s.active
	fctx, _ := s.castCtx(from)
	tctx, err := s.castCtx(to)
	if err != nil || s.secondRefused >= secondRefusals {
		return s.restartIn(fctx, params)
	}
	s.arrived.Store(0)
	s.incoming.Store(int32(to))
	defer s.incoming.Store(-1)
	select {
	case <-s.handoff:
	default:
	}
	if err := s.call(tctx, page.StartScreencast.Method, params); err != nil {
		// The running screencast is left as it is (a navigation under
		// way refuses a start for a moment: "Not attached to an active
		// page"); the next steady streak tries again. A session that
		// refuses secondRefusals times running is given up: the
		// screencast restarts in place from then on.
		s.secondRefused++
		return false, nil
	}
	s.secondRefused = 0
	s.active = to
	select {
	case <-s.handoff:
	case <-time.After(handoffWait):
	case <-s.c.done:
	case <-s.restartCtx.Done():
	}
	return s.call(fctx, page.StopScreencast.Method, cdp.Empty{}) == nil, nil
}

// restartIn stops the screencast of session ctx and starts it again. A
// start refused while a navigation swaps the page ("Not attached to an
// active page") is tried again (startBackoff) before the capture gives up.
func (s *screencast) restartIn(sctx context.Context, params page.StartScreencastParams) (bool, error) {
	if err := s.call(sctx, page.StopScreencast.Method, cdp.Empty{}); err != nil {
		return false, nil
	}
	err := retryStart(func() error { return s.call(sctx, page.StartScreencast.Method, params) }, refusal, func(d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-s.restartCtx.Done():
			return false
		}
	})
	if err != nil {
		if s.restartCtx.Err() != nil {
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
func (s *screencast) call(sctx context.Context, method string, params any) error {
	ctx, cancel := context.WithTimeout(sctx, 3*time.Second)
	defer cancel()
	defer context.AfterFunc(s.restartCtx, cancel)()
	return chromedp.FromContext(ctx).Target.Call(ctx, method, params, nil)
}

// syncRestarts waits for a restart under way, if any (Capture.SyncRestarts).
func (s *screencast) syncRestarts() {
	s.castMu.Lock()
	defer s.castMu.Unlock() // nothing to guard: the wait is the point
}

// quitRestarts stops the restarter before Stop stops the screencast: it
// cuts short a hand-over under way and waits for it. It returns the
// contexts of the sessions that may be casting, the active one last.
func (s *screencast) quitRestarts() []context.Context {
	if s.restartCancel == nil {
		return []context.Context{s.ctx}
	}
	s.restartCancel()
	s.restartWG.Wait()
	switch {
	case s.second == nil:
		return []context.Context{s.ctx}
	case s.active == 1:
		return []context.Context{s.ctx, s.second.ctx}
	}
	return []context.Context{s.second.ctx, s.ctx}
}
