package recorder

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/overlay"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// DefaultSettleWait bounds how long Settle waits for the screencast frame
// it asked for before it takes a screenshot instead. On a page already
// shown the frame comes within a few frames of the request, but right
// after a goto the page's first frames can come some hundreds of
// milliseconds after the step ended on a loaded machine, and a screenshot
// then takes as long. Waiting costs no frames (the screencast runs
// meanwhile) where a screenshot freezes it, so the bound is generous.
const DefaultSettleWait = time.Second

// settleInterval is one frame at 60 Hz: a screencast frame's source time
// can lie up to about one frame after the moment it was begun (Chromium
// stamps the time it expects the frame shown), so only a frame stamped
// more than this after the request is sure to have been begun after it.
const settleInterval = 16667 * time.Microsecond

// settle is Capture.Settle for a live capture. It makes sure the take
// holds a picture of the page as it is now: the screencast sends frames
// only while the page changes and can miss the last change of a burst, so
// a run calls Settle after a step that changed the page, with the take
// time the step began at, and the still moment that follows shows its
// final state.
//
// By default it takes a screenshot: a seeded frame stamped with the time it
// was asked for, or just after the last frame taken when that is later (a
// screencast frame produced while it was made: Ledger.OfferSeed), so that
// it is never thrown away as late; a screencast frame arriving after it
// and older is counted late. With Options.SettleByFrame it first asks the compositor
// for one more frame without changing what the page shows (a fully
// transparent inspector highlight, drawn outside the page's DOM, moved by
// one pixel at each request) and waits, bounded by Options.SettleWait, for
// a screencast frame begun after the request: an ordinary screencast
// frame, accounted as any other; the screenshot only when none arrives.
//
// Why the screenshot stays the default: the two measure alike with
// clapper bench run (docs/internals.md, "Chromium's screencast"). The
// stall about a second after the first highlight that once decided it was
// Chromium's capturer locking onto one region (restart.go), and came with
// screenshots too.
//
// A step that started a navigation of the main frame (a press of Enter
// in a form, a click on a link) has nothing to settle: the new document is
// filmed as it paints. Settle then takes no picture, and gives up one in
// flight when the navigation begins (settleShot).
//
// Settle is called by one goroutine at a time (the run's); it is a no-op
// once the capture has ended.
func (s *screencast) settle(since timeline.Time) error {
	c := s.c
	select {
	case <-c.done:
		return nil
	default:
	}
	c.mu.Lock()
	stopped := c.stopped
	c.mu.Unlock()
	if stopped || s.navigatedSince(since) {
		return nil
	}
	if c.opts.SettleByFrame && s.settleByFrame() {
		s.sync()
		s.settledFrames.Add(1)
		return nil
	}
	if err := s.settleShot(since); err != nil {
		if errors.Is(err, errNavigated) {
			return nil // the new document's own frames follow
		}
		return err
	}
	s.settledShots.Add(1)
	return nil
}

// sync has the loop release the frames its reorder window holds, and waits
// until it has: the settled frame is judged and counted when Settle
// returns, not up to reorderAge later. Frames older than it are not to be
// expected any more: it began after the request, on a page gone still.
func (s *screencast) sync() {
	done := make(chan struct{})
	s.c.enqueue(event{kind: evSync, done: done})
	select {
	case <-done:
	case <-s.c.done: // ended: the loop may be gone
	}
}

// navigatedSince says whether the main frame began to load another
// document, or committed one, at or after since.
func (s *screencast) navigatedSince(since timeline.Time) bool {
	at := s.navAt.Load()
	return at != 0 && timeline.Time(at) >= since
}

// errNavigated: the settled screenshot was given up because the page
// began to load another document meanwhile.
var errNavigated = errors.New("the page navigated during the settled screenshot")

// settleShot takes the settled screenshot, and gives it up as soon as the
// main frame begins to load another document (a step that submits a form
// or follows a link starts the navigation after it returns). A screenshot
// caught by a navigation fails ("not attached to an active page") or is
// never answered: on the quickstart's press of Enter each one failed,
// some only at their bound, which held the whole run.
//
// The navigation is told by the time of its events, not by a wake-up
// alone: its first events can come before settleShot begins (a wake-up
// taken then for an old one hid it, and the screenshot failed).
func (s *screencast) settleShot(since timeline.Time) error {
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	navigated, done := make(chan struct{}), make(chan struct{})
	defer close(done)
	go func() { // ends with settleShot
		for {
			select {
			case <-s.navWake:
				if s.navigatedSince(since) {
					close(navigated)
					cancel(errNavigated)
					return
				}
			case <-done:
				return
			}
		}
	}()
	err := s.seedIn(ctx, false)
	if err == nil {
		return nil
	}
	// A screenshot sent as the navigation began can fail before the
	// page's events say so: a load or commit that follows within
	// navSettle is the reason.
	t := time.NewTimer(navSettle)
	defer t.Stop()
	select {
	case <-navigated:
		return errNavigated
	case <-t.C:
		if s.navigatedSince(since) {
			return errNavigated
		}
		return err
	}
}

// navSettle is how long a failed settled screenshot waits for the
// navigation that may have caused it.
const navSettle = 500 * time.Millisecond

// settleByFrame asks for a frame and waits for one begun after the
// request. It reports whether one arrived within Options.SettleWait.
func (s *screencast) settleByFrame() bool {
	if s.ctx == nil || !s.casting {
		return false
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.c.opts.SettleWait)
	defer cancel()
	if !s.overlayOn && !s.enableOverlay(ctx) {
		return false
	}
	after := s.c.clock.Now() + timeline.Time(settleInterval)
	// Drop a wake-up left by an earlier frame: only frames from now count.
	select {
	case <-s.frameWake:
	default:
	}
	got := false
	for !got {
		// Each request moves the highlight, so the overlay has damage and
		// the compositor draws a frame; it is transparent, so the frame
		// shows the page exactly.
		s.probeX ^= 1
		if err := s.probe(ctx); err != nil {
			// A new renderer (a cross-site navigation) may have come
			// without the domain: enable it once more and retry.
			if s.overlayOn = false; !s.enableOverlay(ctx) || s.probe(ctx) != nil {
				break
			}
		}
		select {
		case <-s.frameWake:
			got = timeline.Time(s.newest.Load()) > after
		case <-s.c.done:
		case <-ctx.Done():
		}
		if ctx.Err() != nil || s.c.ended.Load() {
			break
		}
	}
	// Hide the highlight and turn the overlay off again: left on, the
	// inspector overlay sees every input event, and frames drawn after a
	// wheel scroll came one frame later relative to the page's animation
	// frame (measured with clapper bench run). Best effort: the highlight
	// is transparent anyway.
	hctx, hcancel := context.WithTimeout(s.ctx, time.Second)
	defer hcancel()
	_, _ = chromedp.Call(hctx, overlay.HideHighlight, cdp.Empty{})
	if _, err := chromedp.Call(hctx, overlay.Disable, cdp.Empty{}); err == nil {
		s.overlayOn = false
	}
	return got
}

// enableOverlay turns on the inspector overlay the probe draws on.
func (s *screencast) enableOverlay(ctx context.Context) bool {
	if _, err := chromedp.Call(ctx, overlay.Enable, cdp.Empty{}); err != nil {
		return false
	}
	s.overlayOn = true
	return true
}

// probe moves the transparent highlight by one pixel.
func (s *screencast) probe(ctx context.Context) error {
	_, err := chromedp.Call(ctx, overlay.HighlightRect, overlay.HighlightRectParams{
		X: s.probeX, Y: 0, Width: 1, Height: 1, // no colour: transparent
	})
	return err
}

// settledCounts is the timeline's record of Settle's calls, nil when there
// were none.
func settledCounts(frames, shots int64) *timeline.Settled {
	if frames == 0 && shots == 0 {
		return nil
	}
	return &timeline.Settled{Frames: frames, Screenshots: shots}
}

// joinSettled sums the settled counts of two captures of one take.
func joinSettled(a, b *timeline.Settled) *timeline.Settled {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &timeline.Settled{Frames: a.Frames + b.Frames, Screenshots: a.Screenshots + b.Screenshots}
}
