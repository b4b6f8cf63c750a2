package recorder

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// screencast is a live capture's mode: the tab's screencast, as Chromium
// paints it on the host's clock. It owns the listener that hands the
// core each frame and navigation, the acker (ack.go), the restarter that
// hands the screencast over between two sessions (restart.go), and
// Settle's pictures (settle.go). Its state beyond the core is its own.
type screencast struct {
	c *Capture
	// ctx is the tab's chromedp context (Capture.ctx).
	ctx     context.Context
	acks    *acker
	casting bool // the screencast was started; set by Start

	// newest is the latest source time a screencast frame claimed, read
	// by the listener (before the loop maps it), so Stop can take the final
	// picture after it.
	newest atomic.Int64
	// navAt is the take time of the main frame's latest load start or
	// commit (0 before any), read by Settle; only the listener writes it.
	navAt     atomic.Int64
	mainFrame string // the main frame's id (the target's)

	settleState
	restartState
}

// settleState is Settle's: frameWake is signalled by the listener on every
// screencast frame, navWake when the main frame began to load or
// committed; the rest is Settle's own.
type settleState struct {
	frameWake                   chan struct{}
	navWake                     chan struct{}
	overlayOn                   bool
	probeX                      int64
	settledFrames, settledShots atomic.Int64
}

// startScreencast asks Chromium for the tab's screencast.
func startScreencast(ctx context.Context, params page.StartScreencastParams) error {
	_, err := chromedp.Call(ctx, page.StartScreencast, params)
	return err
}

// Start begins capturing the tab of ctx live (a chromedp context whose tab
// is open). It subscribes to the tab's events before asking Chromium for
// frames, seeds the take with a screenshot so it never starts blank, then
// starts the screencast.
func Start(ctx context.Context, opts Options) (*Capture, error) {
	if opts.Log == nil {
		return nil, errors.New("recorder: Options.Log is nil")
	}
	c := newCapture(ctx, opts)
	s := &screencast{c: c, ctx: ctx, mainFrame: tabID(ctx)}
	s.frameWake, s.navWake = make(chan struct{}, 1), make(chan struct{}, 1)
	s.incoming.Store(-1)
	s.acks = newAcker(ctx, c.opts.MaxFramesInFlight, &c.ended)
	c.mode = s
	lctx, cancel := context.WithCancel(ctx)
	c.cancel = cancel
	if c.opts.inPlace {
		s.noSecond = errors.New("restarts in place, as asked")
	}
	if !c.opts.NoRestart {
		s.restartWake, s.handoff = make(chan struct{}, 1), make(chan struct{}, 1)
		s.restartCtx, s.restartCancel = context.WithCancel(context.Background())
	}
	if err := chromedp.Listen(lctx, s.onEvent); err != nil {
		return nil, c.failStart(fmt.Errorf("subscribe to screencast: %w", err))
	}
	if err := s.seed(false); err != nil {
		return nil, c.failStart(fmt.Errorf("seed first frame: %w", err))
	}
	q := int64(c.opts.Quality)
	params := page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q,
		MaxWidth: int64(c.opts.MaxWidth), MaxHeight: int64(c.opts.MaxHeight),
		EveryNthFrame: int64(c.opts.EveryNthFrame), MaxFramesInFlight: int64(c.opts.MaxFramesInFlight),
	}
	slf := !c.opts.NoSendLastFrame
	params.SendLastFrame = &slf
	start := startScreencast
	if c.opts.startCast != nil {
		start = c.opts.startCast
	}
	if err := start(ctx, params); err != nil {
		return nil, c.failStart(fmt.Errorf("start screencast: %w", err))
	}
	s.casting = true
	if s.restartCancel != nil {
		s.restartWG.Add(1)
		go s.restarter(params)
	}
	return c, nil
}

// onEvent is called by chromedp on the tab's read loop, in arrival order.
// It only notes and enqueues (the ack for the acker, the event for the
// loop) and must never block or send a command.
func (s *screencast) onEvent(ev any) {
	now := s.c.clock.Now() // one reading for what is noted and what is queued
	switch ev := ev.(type) {
	case *page.EventScreencastFrame:
		s.noteFrame(0, ev, now)
		return
	case *page.EventFrameStartedLoading:
		if string(ev.FrameID) == s.mainFrame {
			s.navAt.Store(int64(now))
			signal(s.navWake)
		}
		return
	case *page.EventFrameNavigated:
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			s.navAt.Store(int64(now))
			signal(s.navWake)
		}
	}
	if e, ok := s.c.eventOf(ev, now); ok {
		s.c.enqueue(e)
	}
}

// noteFrame takes a screencast frame on the listener of the session (cast)
// that sent it: it queues the frame for the loop first, so a waiter woken
// by it finds it queued (Settle's sync comes after it), then notes the
// newest frame time and the streak that decides restarts, wakes Settle and
// a hand-over waiting for this session, and queues its ack.
func (s *screencast) noteFrame(cast int, ev *page.EventScreencastFrame, now timeline.Time) {
	c := s.c
	c.enqueue(event{kind: evFrame, at: now, frame: ev, cast: cast})
	if m := ev.Metadata; m != nil {
		src := now
		switch {
		case m.MonotonicTimestamp != 0:
			src = c.clock.FromMonotonic(float64(m.MonotonicTimestamp))
		case m.Timestamp != 0:
			src = c.clock.FromWall(float64(m.Timestamp))
		}
		s.frameMu.Lock() // two sessions' listeners during a hand-over
		if int64(src) > s.newest.Load() {
			s.newest.Store(int64(src))
		}
		due := s.restartWake != nil && s.streak.frame(src)
		s.frameMu.Unlock()
		if due {
			signal(s.restartWake)
		}
	}
	if s.incoming.Load() == int32(cast) && s.arrived.Add(1) == handoffFrames {
		signal(s.handoff)
	}
	signal(s.frameWake)
	s.acks.add(cast, ev.SessionID)
}

// seed takes a screenshot and offers it as a seeded frame. The picture was
// made between the request and the reply: the first seed is stamped with
// the request (the screencast starts after the reply, so its frames follow
// it), the final one with the reply (every screencast frame arrived before
// the reply to StopScreencast, so it follows them).
func (s *screencast) seed(final bool) error { return s.seedIn(s.ctx, final) }

func (s *screencast) seedIn(ctx context.Context, final bool) error {
	c := s.c
	if c.opts.Held != nil && c.opts.Held() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	q := int64(c.opts.Quality)
	sent := c.clock.Now()
	fast := true
	shot, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: &q, OptimizeForSpeed: &fast})
	if err != nil {
		return err
	}
	now := c.clock.Now()
	src := sent
	if final {
		src = now
	}
	c.enqueue(event{kind: evSeed, at: now, src: src, data: shot.Data})
	return nil
}

// halt is Stop's first part: it stops the restarter (cutting a hand-over
// under way short), then every screencast that may run, and seeds the
// final state, unless the interval already ended.
func (s *screencast) halt(ctx context.Context) {
	casts := s.quitRestarts()
	if !s.casting || !s.c.alive() {
		return
	}
	// Stop every screencast that may run (a hand-over cut short, or an
	// old one that did not stop, leaves two); the active one's answer,
	// the last, says whether to take the final picture.
	var err error
	for _, cast := range casts {
		sctx, cancel := context.WithTimeout(cast, 3*time.Second)
		stopCall := context.AfterFunc(ctx, cancel)
		_, err = chromedp.Call(sctx, page.StopScreencast, cdp.Empty{})
		stopCall()
		cancel()
	}
	// Every frame Chromium sent before stopping has reached the listener
	// by now (events arrive before the reply that follows them). Take the
	// final state, unless the interval already ended. A frame's source
	// time can lie a little ahead of the host clock (Chromium stamps when
	// it expects the frame shown): wait until it has passed, so the final
	// picture follows every frame.
	if err == nil && !s.c.ended.Load() && ctx.Err() == nil {
		if ahead := time.Duration(s.newest.Load() - int64(s.c.clock.Now())); ahead > 0 && ahead < time.Second {
			time.Sleep(ahead + time.Millisecond)
		}
		_ = s.seed(true) // best effort: the last screencast frame stands otherwise
	}
}

// endAcks ends the acker once the listener is gone: it is told to end,
// the second session is detached (its acks still queued fail, uncounted
// as errors), then it is waited for.
func (s *screencast) endAcks() {
	s.acks.halt()
	if s.second != nil {
		s.second.cancel()
	}
	s.acks.wait()
}

// record adds the live capture's own figures to its result.
func (s *screencast) record(r *Result) {
	r.Capture.Mode = timeline.CaptureLive
	r.Capture.Settled = settledCounts(s.settledFrames.Load(), s.settledShots.Load())
	r.Capture.Restarts = s.restarts.Load()
	s.acks.record(r)
}
