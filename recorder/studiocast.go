package recorder

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/headlessexperimental"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Studio pictures from the screencast (Options.StudioScreencast,
// experimental; the default takes them with the begin-frames).
//
// A begin-frame that asks for a screenshot returns only once the browser
// has read the frame back and encoded it as JPEG, and the pump waits for
// all of it before the page may run on. With the screencast on beside the
// pump, a begin-frame without a screenshot returns as soon as the frame is
// drawn, and the screencast encodes that frame's picture on a worker
// thread and sends it on its own, while the pump makes the next frame.
// Measured on chromium-headless-shell 156 (bench page, 180 frames, medians
// of 3, this 2-core machine), per frame: 1280x720 19.1 ms with the
// screenshot, 17.2 ms from the screencast; 1920x1080 33.5 and 24.2 ms;
// 1280x720 at scale 2 67.6 and 45.9 ms. Waiting for each picture before
// the next begin-frame loses most of that (20.0, 37.5 and 63.1 ms), so the
// pump runs one frame ahead of the pictures (castAhead).
//
// Each begin-frame that reports damage is answered by one screencast
// picture, and they are taken in the order they come. That order is the
// frames' on a quiet machine, but not always under load: the encodes run
// in parallel. The pictures' time stamps cannot yet put them right: some
// are the frame's time plus one interval, others the host's time at some
// point near the frame. That is why this path is not the default.
//
// After the capture starts, a new document comes in, or the session draws
// outside the pump (VirtualTime.Disturb), the pump is careful for a few
// frames: it waits for each picture before the page runs on, and when one
// does not come it shoots the frame again at the same time for it
// (pictureOrShot) and takes screenshots for the rest of the capture. In
// steady running, a frame whose picture does not come within castWait ends
// the screencast the same way, and is counted missed (the take shows the
// picture before it).
//
// The capture records frames and document boundaries in the order the
// page made them, so the pump's outbox holds a navigation that commits
// while a frame's picture is on its way until that frame is recorded:
// each frame carries the document committed before its begin-frame.

const (
	// castAhead is how many drawn frames may await their pictures when
	// the pump begins the next one.
	castAhead = 1
	// castWait bounds the wait for a drawn frame's picture.
	castWait = 3 * time.Second
)

// outbox orders what a studio capture hands to the capture loop: frames
// (stored when their picture is in hand) and the events between them.
// Its methods are safe for the pump and the listener together.
type outbox struct {
	mu      sync.Mutex
	items   []outItem
	last    []byte // the picture of the last recorded frame
	off     bool   // pictures from the screencast are no longer taken
	arrived chan struct{}

	emit            func(event) // the capture's enqueue
	repeats, missed int64       // frames repeated, missed
	strays          int64       // pictures no frame awaited
}

type outItem struct {
	e       event
	waiting bool // a drawn frame whose picture has not come
	missed  bool // a drawn frame whose picture never came (giveUp)
}

func newOutbox(emit func(event)) *outbox {
	return &outbox{emit: emit, arrived: make(chan struct{}, 1)}
}

// post hands e on after every frame drawn before it.
func (o *outbox) post(e event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.items = append(o.items, outItem{e: e})
	o.flush()
}

// shot records a frame whose picture is in hand (a screenshot), or counts
// it a repeat when it shows nothing new. It reports whether it repeated.
func (o *outbox) shot(at timeline.Time, data []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.repeats
	o.items = append(o.items, outItem{e: event{kind: evPumped, at: at, src: at, data: data}})
	o.flush()
	return o.repeats > before
}

// drawn notes a frame at take time at whose picture the screencast will
// send.
func (o *outbox) drawn(at timeline.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.items = append(o.items, outItem{e: event{kind: evPumped, at: at, src: at}, waiting: true})
}

// picture gives the oldest frame awaiting one its picture.
func (o *outbox) picture(data []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.off {
		return
	}
	for i := range o.items {
		if o.items[i].waiting {
			o.items[i].waiting, o.items[i].e.data = false, data
			o.flush()
			signal(o.arrived)
			return
		}
	}
	o.strays++
}

// rescue gives the newest frame awaiting a picture the screenshot data and
// stops taking pictures from the screencast: older frames still awaiting
// one are missed.
func (o *outbox) rescue(data []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.items) - 1; i >= 0; i-- {
		if o.items[i].waiting {
			o.items[i].waiting, o.items[i].e.data = false, data
			break
		}
	}
	o.stopCasting()
}

// waiting counts the drawn frames whose pictures have not come.
func (o *outbox) waiting() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, it := range o.items {
		if it.waiting {
			n++
		}
	}
	return n
}

// giveUp stops taking pictures from the screencast: every frame still
// awaiting one is missed (the picture before it stands), and what follows
// it is handed on. It returns how many were missed.
func (o *outbox) giveUp() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stopCasting()
}

// stopCasting is giveUp with o.mu held.
func (o *outbox) stopCasting() int64 {
	o.off = true
	var n int64
	for i := range o.items {
		if o.items[i].waiting {
			o.items[i].waiting, o.items[i].missed = false, true
			n++
		}
	}
	o.missed += n
	o.flush()
	return n
}

// flush hands on the items up to the first frame still awaiting its
// picture. A frame without a picture, or whose picture is the last one's
// bytes, is a repeat, not stored again; a missed frame is not stored
// either. o.mu is held.
func (o *outbox) flush() {
	n := 0
	for _, it := range o.items {
		if it.waiting {
			break
		}
		n++
		if it.e.kind != evPumped {
			o.emit(it.e)
			continue
		}
		if it.missed {
			continue // counted by giveUp
		}
		if isRepeat(it.e.data, o.last) {
			o.repeats++
			continue
		}
		o.last = it.e.data
		o.emit(it.e)
	}
	o.items = append(o.items[:0], o.items[n:]...)
}

// hasPicture says whether a frame has been recorded.
func (o *outbox) hasPicture() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last != nil
}

// counts returns the outbox's tallies.
func (o *outbox) counts() (repeats, missed, strays int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.repeats, o.missed, o.strays
}

// startCast starts the screencast the pump takes its pictures from.
func (p *pump) startCast(ctx context.Context) error {
	q := int64(p.c.opts.Quality)
	no := false
	_, err := chromedp.Call(ctx, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q, EveryNthFrame: 1,
		MaxFramesInFlight: int64(p.c.opts.MaxFramesInFlight), SendLastFrame: &no,
	})
	return err
}

// restartCast starts the screencast again once a new document has drawn
// a few frames (restartAfter), when every picture on its way is in: a
// screencast started before a document drew stops sending about a second
// later (measured on chromium-headless-shell 156: after 64 frames, every
// time). It reports false when the screencast was given up.
func (p *pump) restartCast() bool {
	if !p.awaitPictures(0) || !p.casting.Load() {
		return false
	}
	ctx, cancel := context.WithTimeout(p.c.ctx, callLimit)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.StopScreencast, cdp.Empty{}); err != nil {
		p.giveUpCast()
		return false
	}
	if err := p.startCast(ctx); err != nil {
		p.giveUpCast()
		return false
	}
	return true
}

// pictureOrShot waits for the picture of the frame just drawn by bf,
// before the page runs on. When it does not come within carefulWait, the
// screencast is given up for the rest of the capture and the frame is
// shot again at the same time, drawing nothing (noDisplayUpdates), for its
// picture: the display still shows it. It returns false once the capture
// has ended.
func (p *pump) pictureOrShot(bf headlessexperimental.BeginFrameParams) bool {
	came, ok := p.pictures(0, carefulWait)
	if !ok || came {
		return ok
	}
	q := int64(p.c.opts.Quality)
	yes := true
	bf.Screenshot = &headlessexperimental.ScreenshotParams{Format: headlessexperimental.ScreenshotParamsFormatJpeg, Quality: &q}
	bf.NoDisplayUpdates = &yes
	res, err := beginFrame(p.c.ctx, bf)
	if err != nil {
		p.fail(fmt.Errorf("begin frame: %w", err))
		return false
	}
	p.fellBack.Store(true)
	p.out.rescue(res.ScreenshotData)
	p.endCast()
	return true
}

// carefulWait bounds pictureOrShot's wait: a picture comes 5 to 30 ms
// after its frame here, a few hundred under load.
const carefulWait = time.Second

// awaitPictures waits until at most n drawn frames await their pictures.
// When one does not come within castWait, the screencast is given up
// (outbox.giveUp) and stopped, and the pump takes screenshots from then
// on. It returns false once the capture has ended.
func (p *pump) awaitPictures(n int) bool {
	if !p.casting.Load() {
		return true
	}
	came, ok := p.pictures(n, castWait)
	if ok && !came {
		p.giveUpCast()
	}
	return ok
}

// pictures waits, at most bound, until at most n drawn frames await their
// pictures. It reports whether they came, and ok false once the capture
// has ended.
func (p *pump) pictures(n int, bound time.Duration) (came, ok bool) {
	t := time.NewTimer(bound)
	defer t.Stop()
	for p.out.waiting() > n {
		select {
		case <-p.out.arrived:
		case <-p.c.done:
			return false, false
		case <-t.C:
			return false, true
		}
	}
	return true, true
}

// giveUpCast ends the screencast mid-capture: the pump takes screenshots
// from then on, and the take says so.
func (p *pump) giveUpCast() {
	p.fellBack.Store(true)
	p.endCast()
}

// endCast gives the screencast up and stops it (best effort: the tab may
// be gone).
func (p *pump) endCast() {
	if p.casting.Swap(false) {
		p.out.giveUp()
		if p.c.alive() {
			ctx, cancel := context.WithTimeout(p.c.ctx, 2*time.Second)
			defer cancel()
			_, _ = chromedp.Call(ctx, page.StopScreencast, cdp.Empty{})
		}
	}
}

// onCast takes a screencast picture: acked at once (the screencast sends
// no more than MaxFramesInFlight unacked), given to the frame awaiting it.
func (p *pump) onCast(ev *page.EventScreencastFrame) {
	c := p.c
	c.ackMu.Lock()
	c.ackQ = append(c.ackQ, ackItem{id: ev.SessionID})
	c.ackMu.Unlock()
	signal(c.ackWake)
	p.out.picture(ev.Data)
}
