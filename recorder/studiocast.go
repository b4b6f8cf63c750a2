package recorder

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/headlessexperimental"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Studio pictures from the screencast (Options.StudioScreencast; by
// default they are taken with the begin-frames instead).
//
// A begin-frame that asks for a screenshot returns only once the browser
// has read the frame back and encoded it as JPEG, and the pump waits for
// all of it before the page may run on. With the screencast on beside the
// pump, a begin-frame without a screenshot returns as soon as the frame is
// drawn, and the screencast encodes that frame's picture on a worker
// thread and sends it on its own, while the pump makes the next frame: a
// frame costs less that way, the more the larger the picture
// (docs/internals.md, "Studio capture"). Waiting for each picture before
// the next begin-frame loses most of that, so the pump runs one frame
// ahead of the pictures (castAhead).
//
// Each begin-frame that reports damage is answered by one screencast
// picture. The pictures do not always come in the frames' order: the
// encodes run in parallel, and under load a later frame's can come first,
// even before that frame's begin-frame has returned. So a frame is noted
// before its begin-frame is sent (outbox.begin), and each picture is
// matched to its frame by its stamp (metadata.monotonicTimestamp), which
// Chromium 156 sets one of two ways (measured on chromium-headless-shell):
//   - the time the frame was to be shown: the begin-frame's frameTimeTicks
//     plus one interval, to the microsecond, which names its frame. At
//     scale 1, nearly every picture was stamped so.
//   - a time on the host's clock. At scale 2, every picture was stamped
//     so. Such a stamp does not name a frame: it can fall within the
//     begin-frame of the frame after, or before the frame's own was sent
//     (a rule that took it for the capture time put pictures out of
//     order under load). But these stamps increase in
//     the frames' order.
// A picture whose stamp names an awaiting frame's time goes to it. Any
// other is held until as many pictures are held as frames await one, and
// then the held ones go to those frames, oldest frame first, in the order
// of their stamps (outbox.picture). Under a CPU hog, at scale 1 nearly
// every picture went by its frame time and the rest by order, at scale 2
// all by order, and none out of order (docs/internals.md).
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
	last    []byte    // the picture of the last recorded frame
	off     bool      // pictures from the screencast are no longer taken
	held    []castPic // pictures whose stamps name no awaited frame, by stamp
	arrived chan struct{}

	emit            func(event) // the capture's enqueue
	repeats, missed int64       // frames repeated, missed
	strays          int64       // pictures no frame awaited
	// pictures given to frames by a stamp naming the frame's time, and
	// by the order of the stamps
	byStamp, byOrder int64
	// unstamped: the last picture's stamp named no awaited frame (after
	// a restart of the screencast its stamps are its own times, not the
	// frames')
	unstamped bool
}

type outItem struct {
	e       event
	waiting bool    // a drawn frame whose picture has not come
	missed  bool    // a drawn frame whose picture never came (giveUp)
	drawing bool    // a frame whose begin-frame has not returned
	stamp   float64 // the stamp its picture carries when stamped with its frame time (ms)
}

// castPic is a screencast picture and its stamp (ms).
type castPic struct {
	stamp float64
	data  []byte
}

// stampSlack is how far a picture's stamp may be from the frame time its
// frame expects (ms): Chromium keeps microseconds, and truncates the
// interval it adds.
const stampSlack = 0.002

func newOutbox(emit func(event)) *outbox {
	return &outbox{emit: emit, arrived: make(chan struct{}, 1)}
}

// post hands e on after every frame drawn before it. An event that comes
// while a frame is being drawn goes before that frame, as it would had it
// come a moment before the begin-frame was sent.
func (o *outbox) post(e event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.items); n > 0 && o.items[n-1].drawing {
		o.items = slices.Insert(o.items, n-1, outItem{e: e})
	} else {
		o.items = append(o.items, outItem{e: e})
	}
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

// begin notes a frame at take time at whose begin-frame is about to be
// sent; stamp is its frame time plus one interval (ms). Its picture may
// come before the begin-frame returns.
func (o *outbox) begin(at timeline.Time, stamp float64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.items = append(o.items, outItem{e: event{kind: evPumped, at: at, src: at}, waiting: true, drawing: true, stamp: stamp})
}

// drawn ends the frame begun last, whose begin-frame has returned; damage
// says whether it drew anything. A frame that drew nothing sends no
// picture and is dropped, unless its picture came all the same. It
// reports whether the frame awaits or has a picture.
func (o *outbox) drawn(damage bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(o.items)
	if n == 0 || !o.items[n-1].drawing {
		return false
	}
	it := &o.items[n-1]
	it.drawing = false
	if !damage && it.waiting {
		o.items = o.items[:n-1]
		o.resolve() // a held picture may now name one frame alone
		return false
	}
	o.resolve()
	return true
}

// picture takes a screencast picture stamped stamp (ms). When the stamp
// is the time of a frame awaiting a picture, that frame gets it;
// otherwise it is held until every awaited picture has come (resolve). A
// picture that comes while no frame awaits one is a stray.
func (o *outbox) picture(data []byte, stamp float64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.off {
		return
	}
	if o.awaiting() == 0 {
		o.strays++
		return
	}
	i, ok := o.named(stamp)
	o.unstamped = !ok
	if ok {
		o.items[i].waiting, o.items[i].e.data = false, data
	} else {
		at, _ := slices.BinarySearchFunc(o.held, stamp, func(p castPic, s float64) int { return cmp.Compare(p.stamp, s) })
		o.held = slices.Insert(o.held, at, castPic{stamp: stamp, data: data})
	}
	o.resolve()
}

// named returns the frame awaiting a picture whose time stamp is, and
// counts it. o.mu is held.
func (o *outbox) named(stamp float64) (int, bool) {
	for i := range o.items {
		if it := &o.items[i]; it.waiting && math.Abs(it.stamp-stamp) <= stampSlack {
			o.byStamp++
			return i, true
		}
	}
	return -1, false
}

// awaiting counts the frames awaiting a picture. o.mu is held.
func (o *outbox) awaiting() int {
	n := 0
	for _, it := range o.items {
		if it.waiting {
			n++
		}
	}
	return n
}

// resolve gives the held pictures to the frames awaiting one once as many
// are held as frames await one (more: the oldest extras are strays),
// oldest frame first, in the order of their stamps. Then it hands on what
// can go. o.mu is held.
func (o *outbox) resolve() {
	if waiting := o.awaiting(); len(o.held) > 0 && len(o.held) >= waiting {
		o.strays += int64(len(o.held) - waiting)
		o.held = o.held[len(o.held)-waiting:]
		o.fillHeld()
	}
	o.flush()
	signal(o.arrived)
}

// fillHeld gives the held pictures, in stamp order, to the oldest frames
// awaiting one, and drops any left. o.mu is held.
func (o *outbox) fillHeld() {
	for i := range o.items {
		if len(o.held) == 0 {
			break
		}
		if o.items[i].waiting {
			o.items[i].waiting, o.items[i].e.data = false, o.held[0].data
			o.held = o.held[1:]
			o.byOrder++
		}
	}
	o.strays += int64(len(o.held))
	o.held = nil
}

// rescue gives the newest frame awaiting a picture the screenshot data and
// stops taking pictures from the screencast: older frames still awaiting
// one are missed.
func (o *outbox) rescue(data []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.strays += int64(len(o.held)) // the screenshot is the frame's picture; older frames are missed
	o.held = nil
	for i := len(o.items) - 1; i >= 0; i-- {
		if o.items[i].waiting {
			o.items[i].waiting, o.items[i].e.data = false, data
			break
		}
	}
	o.stopCasting()
}

// byOrderNow says whether pictures go to their frames by order alone:
// the last one's stamp named no frame. The screencast then sends one
// picture for two frames drawn close together (measured on
// chromium-headless-shell 156 after a restart: the second picture never
// came), so the pump waits for each picture in turn.
func (o *outbox) byOrderNow() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.unstamped
}

// waiting counts the drawn frames whose pictures have not come.
func (o *outbox) waiting() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.awaiting()
}

// giveUp stops taking pictures from the screencast: every frame still
// awaiting one is missed (the picture before it stands), and what follows
// it is handed on. It returns how many were missed.
func (o *outbox) giveUp() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stopCasting()
}

// stopCasting is giveUp with o.mu held. Pictures held for want of a
// stamp go to the oldest frames awaiting one first.
func (o *outbox) stopCasting() int64 {
	o.off = true
	o.fillHeld()
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
// picture or still being drawn (its begin-frame has not returned: a
// navigation may yet go before it). A frame without a picture, or whose
// picture is the last one's bytes, is a repeat, not stored again; a
// missed frame is not stored either. o.mu is held.
func (o *outbox) flush() {
	n := 0
	for _, it := range o.items {
		if it.waiting || it.drawing {
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

// matches returns how many pictures went to their frames by a stamp
// naming the frame's time, and by the order of the stamps.
func (o *outbox) matches() (byStamp, byOrder int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.byStamp, o.byOrder
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
// before the page runs on. When it does not come within wait, the
// screencast is given up for the rest of the capture and the frame is
// shot again at the same time, drawing nothing (noDisplayUpdates), for its
// picture: the display still shows it. It returns false once the capture
// has ended.
func (p *pump) pictureOrShot(bf headlessexperimental.BeginFrameParams, wait time.Duration) bool {
	came, ok := p.pictures(0, wait)
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

// carefulWait bounds pictureOrShot's wait: a picture comes within a few
// frames of its frame, a few hundred milliseconds under load.
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
	p.acks.add(0, ev.SessionID)
	var stamp float64
	if ev.Metadata != nil {
		stamp = float64(ev.Metadata.MonotonicTimestamp) * 1000
	}
	p.out.picture(ev.Data, stamp)
}
