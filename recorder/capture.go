package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Options configure a capture.
type Options struct {
	// Dir is the take folder; Log is its open frame log.
	Dir   string
	Log   *timeline.FrameLog
	Clock *Clock
	// Tab names the captured tab in frame records.
	Tab string
	// Quality is the JPEG quality (default 85).
	Quality int
	// MaxWidth and MaxHeight bound the frame size in device pixels.
	MaxWidth, MaxHeight int
	// BufferFrames and BufferBytes bound the spool buffer (defaults 240
	// frames, 128 MiB).
	BufferFrames int
	BufferBytes  int64
	// InitialURL is document 0's address.
	InitialURL string
	// MaxFramesInFlight and SendLastFrame are passed to Chromium when set.
	MaxFramesInFlight int
	SendLastFrame     bool
	// WriteFile writes a frame's bytes; nil means os.WriteFile. Tests use
	// it to inject a slow or failing disk.
	WriteFile func(name string, data []byte) error
}

// Snapshot is a live view of a capture, safe to read while capturing.
type Snapshot struct {
	Received, Delivered, Discarded int64
	Documents                      int
}

type eventKind int

const (
	evFrame eventKind = iota
	evSeed
	evNav
	evEnd
)

type event struct {
	kind   eventKind
	at     timeline.Time
	frame  *page.EventScreencastFrame
	data   []byte // for seeds
	url    string
	reason string
}

type spoolItem struct {
	fr   timeline.Frame
	data []byte
}

// Capture records one tab's screencast into a take folder. Start it with
// Start; Stop ends it and returns the record. Three goroutines are owned by
// a Capture and waited for by Stop: the capture loop (acks, clock mapping,
// accounting, boundaries) and the spool writer. CDP events reach it through
// a listener that only enqueues.
type Capture struct {
	opts  Options
	ctx   context.Context // the tab's chromedp context, for acks
	clock *Clock

	mu      sync.Mutex
	queue   []event
	wake    chan struct{}
	stopped bool

	// owned by the capture loop
	ledger   Ledger
	seq      int64
	doc      int
	mapping  timeline.Mapping
	mapped   bool
	bounds   []timeline.Boundary
	endWhy   string
	clockErr error

	// shared between the capture loop and the spool writer
	bmu      sync.Mutex
	bcond    *sync.Cond
	buf      Buffer[spoolItem]
	bdone    bool
	spoolErr error

	received, delivered, discarded, dropped atomic.Int64
	docs                                    atomic.Int64

	cancel   context.CancelFunc
	loopWG   sync.WaitGroup
	spoolWG  sync.WaitGroup
	started  timeline.Time
	stopOnce sync.Once
	result   Result
}

// Start begins capturing the tab of ctx (a chromedp context). It subscribes
// to the tab's events before asking Chromium for frames, seeds the take
// with a screenshot so it never starts blank, then starts the screencast.
func Start(ctx context.Context, opts Options) (*Capture, error) {
	if opts.Quality == 0 {
		opts.Quality = 85
	}
	if opts.BufferFrames == 0 {
		opts.BufferFrames = 240
	}
	if opts.BufferBytes == 0 {
		opts.BufferBytes = 128 << 20
	}
	if opts.WriteFile == nil {
		opts.WriteFile = func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) }
	}
	c := &Capture{opts: opts, ctx: ctx, clock: opts.Clock, wake: make(chan struct{}, 1), mapping: timeline.MappingMonotonic}
	c.bcond = sync.NewCond(&c.bmu)
	c.buf = Buffer[spoolItem]{MaxItems: opts.BufferFrames, MaxBytes: opts.BufferBytes}
	c.bounds = []timeline.Boundary{{Document: 0, LastSeq: -1, URL: timeline.BoundaryURL(opts.InitialURL), At: c.clock.Now()}}
	c.started = c.clock.Now()

	lctx, cancel := context.WithCancel(ctx)
	c.cancel = cancel
	if err := chromedp.Listen(lctx, c.onEvent); err != nil {
		cancel()
		return nil, fmt.Errorf("subscribe to screencast: %w", err)
	}
	c.loopWG.Add(1)
	go c.loop()
	c.spoolWG.Add(1)
	go c.spool()

	if err := c.seed(); err != nil {
		c.Stop(context.Background())
		return nil, fmt.Errorf("seed first frame: %w", err)
	}
	q := int64(opts.Quality)
	params := page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q,
		MaxWidth: int64(opts.MaxWidth), MaxHeight: int64(opts.MaxHeight), EveryNthFrame: 1,
	}
	if opts.MaxFramesInFlight > 0 {
		params.MaxFramesInFlight = int64(opts.MaxFramesInFlight)
	}
	if opts.SendLastFrame {
		t := true
		params.SendLastFrame = &t
	}
	if _, err := chromedp.Call(ctx, page.StartScreencast, params); err != nil {
		c.Stop(context.Background())
		return nil, fmt.Errorf("start screencast: %w", err)
	}
	return c, nil
}

// onEvent is called by chromedp on the tab's read loop. It only enqueues
// and must never block or send a command.
func (c *Capture) onEvent(ev any) {
	now := c.clock.Now()
	var e event
	switch ev := ev.(type) {
	case *page.EventScreencastFrame:
		e = event{kind: evFrame, at: now, frame: ev}
	case *page.EventFrameNavigated:
		if ev.Frame == nil || ev.Frame.ParentID != "" {
			return
		}
		e = event{kind: evNav, at: now, url: ev.Frame.URL + ev.Frame.URLFragment}
	case *inspector.EventTargetCrashed:
		e = event{kind: evEnd, at: now, reason: "renderer crashed"}
	case *inspector.EventDetached:
		e = event{kind: evEnd, at: now, reason: "target detached: " + ev.Reason}
	default:
		return
	}
	c.enqueue(e)
}

func (c *Capture) enqueue(e event) {
	c.mu.Lock()
	c.queue = append(c.queue, e)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// seed takes a screenshot and offers it as a seeded frame.
func (c *Capture) seed() error {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	q := int64(c.opts.Quality)
	sent := c.clock.Now()
	data, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: &q})
	if err != nil {
		return err
	}
	// The page was painted at or after the request: stamp it with the
	// send time so the first screencast frame follows it.
	c.enqueue(event{kind: evSeed, at: sent, data: data.Data})
	return nil
}

// loop is the capture goroutine: it acks frames on arrival, maps their
// clocks, accounts for them and hands accepted ones to the spool writer.
func (c *Capture) loop() {
	defer c.loopWG.Done()
	detached, _ := chromedp.Detached(c.ctx)
	for {
		c.mu.Lock()
		batch := c.queue
		c.queue = nil
		stopped := c.stopped
		c.mu.Unlock()
		for _, e := range batch {
			c.handle(e)
		}
		if stopped {
			c.mu.Lock()
			rest := len(c.queue)
			c.mu.Unlock()
			if rest == 0 {
				return
			}
			continue
		}
		select {
		case <-c.wake:
		case <-detached:
			c.end("target detached (browser gone)")
			detached = nil
		case <-c.ctx.Done():
			c.end("browser connection closed: " + c.ctx.Err().Error())
			c.mu.Lock()
			c.stopped = true
			c.mu.Unlock()
		}
	}
}

func (c *Capture) end(reason string) {
	if c.endWhy == "" {
		c.endWhy = reason
	}
	c.ledger.Stop()
}

func (c *Capture) handle(e event) {
	switch e.kind {
	case evNav:
		c.doc++
		c.docs.Store(int64(c.doc))
		c.bounds = append(c.bounds, timeline.Boundary{Document: c.doc, LastSeq: c.seq - 1, URL: timeline.BoundaryURL(e.url), At: e.at})
		return
	case evEnd:
		c.end(e.reason)
		return
	}
	var data []byte
	src := e.at
	fr := timeline.Frame{Tab: c.opts.Tab, Document: c.doc, Received: e.at}
	if e.kind == evFrame {
		// Ack first, from this goroutine, so Chromium keeps producing.
		if !c.ledger.stopped {
			actx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
			_, _ = chromedp.Call(actx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: e.frame.SessionID})
			cancel()
		}
		data = e.frame.Data
		if m := e.frame.Metadata; m != nil {
			src = c.mapSource(m, e.at)
			fr.OffsetTop, fr.PageScaleFactor = m.OffsetTop, m.PageScaleFactor
			fr.ScrollX, fr.ScrollY = m.ScrollOffsetX, m.ScrollOffsetY
			fr.DeviceWidth, fr.DeviceHeight = m.DeviceWidth, m.DeviceHeight
		}
	} else {
		data = e.data
		fr.Seeded = true
	}
	fr.Seq = c.seq
	c.seq++
	fr.Source = src
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	ok := err == nil
	if ok {
		fr.Width, fr.Height = cfg.Width, cfg.Height
	}
	fr.Bytes = len(data)
	fr.File = timeline.FramePath(fr.Seq)
	c.received.Add(1)
	v := c.ledger.Offer(src, ok)
	if err := c.ledger.Err(); err != nil && c.clockErr == nil {
		c.clockErr = err
		c.end("clock error: " + err.Error())
	}
	if v != Accept {
		c.discarded.Add(1)
		return
	}
	c.bmu.Lock()
	if c.spoolErr != nil {
		c.bmu.Unlock()
		c.ledger.Dropped(1)
		c.discarded.Add(1)
		return
	}
	evicted := c.buf.Push(spoolItem{fr: fr, data: data}, int64(len(data)))
	c.bcond.Signal()
	c.bmu.Unlock()
	if n := int64(len(evicted)); n > 0 {
		c.ledger.Overflowed(n)
		c.discarded.Add(n)
	}
}

// mapSource puts a frame's source time on the take clock, choosing the
// mapping on the first frame: monotonicTimestamp when it agrees with the
// host clock, else the wall-clock timestamp, else the receipt time.
func (c *Capture) mapSource(m *page.ScreencastFrameMetadata, recv timeline.Time) timeline.Time {
	if !c.mapped {
		c.mapped = true
		switch {
		case m.MonotonicTimestamp != 0 && abs(c.clock.FromMonotonic(float64(m.MonotonicTimestamp))-recv) < timeline.Time(2*time.Second):
			c.mapping = timeline.MappingMonotonic
		case m.Timestamp != 0:
			c.mapping = timeline.MappingWallOffset
		default:
			c.mapping = timeline.MappingReceipt
		}
	}
	switch c.mapping {
	case timeline.MappingMonotonic:
		return c.clock.FromMonotonic(float64(m.MonotonicTimestamp))
	case timeline.MappingWallOffset:
		return c.clock.FromWall(float64(m.Timestamp))
	}
	return recv
}

func abs(t timeline.Time) timeline.Time {
	if t < 0 {
		return -t
	}
	return t
}

// spool is the writer goroutine: it writes accepted frames to disk and
// indexes them, in order.
func (c *Capture) spool() {
	defer c.spoolWG.Done()
	for {
		c.bmu.Lock()
		for c.buf.Len() == 0 && !c.bdone {
			c.bcond.Wait()
		}
		it, ok := c.buf.Pop()
		c.bmu.Unlock()
		if !ok {
			return
		}
		err := c.opts.WriteFile(filepath.Join(c.opts.Dir, filepath.FromSlash(it.fr.File)), it.data)
		if err == nil {
			err = c.opts.Log.Append(it.fr)
		}
		if err == nil {
			err = c.opts.Log.Flush()
		}
		if err != nil {
			c.bmu.Lock()
			c.spoolErr = fmt.Errorf("spool frame %d: %w", it.fr.Seq, err)
			// Everything still queued cannot be written either.
			var n int64 = 1
			for c.buf.Len() > 0 {
				c.buf.Pop()
				n++
			}
			c.bmu.Unlock()
			c.enqueue(event{kind: evEnd, reason: c.spoolErr.Error()})
			c.dropped.Add(n)
			c.discarded.Add(n)
			continue
		}
		c.delivered.Add(1)
	}
}

// Result is what a stopped capture hands to the timeline.
type Result struct {
	Capture    timeline.Capture
	Boundaries []timeline.Boundary
	Mapping    timeline.Mapping
	// Err is why the capture ended early (crash, detach, disk, clock), nil
	// for a clean stop.
	Err error
}

// Snapshot returns the counts so far without disturbing capture.
func (c *Capture) Snapshot() Snapshot {
	return Snapshot{Received: c.received.Load(), Delivered: c.delivered.Load(), Discarded: c.discarded.Load(), Documents: int(c.docs.Load()) + 1}
}

// Stop ends the screencast, seeds the final state as a last frame, drains
// the buffer to disk and returns the record. It is safe to call more than
// once and after the browser died; ctx bounds the calls to Chromium.
func (c *Capture) Stop(ctx context.Context) Result {
	c.stopOnce.Do(func() { c.result = c.stop(ctx) })
	return c.result
}

func (c *Capture) stop(ctx context.Context) Result {
	alive := c.ctx.Err() == nil
	if d, err := chromedp.Detached(c.ctx); err == nil {
		select {
		case <-d:
			alive = false
		default:
		}
	}
	if alive {
		sctx, cancel := context.WithTimeout(c.ctx, 3*time.Second)
		stopCall := context.AfterFunc(ctx, cancel)
		_, err := chromedp.Call(sctx, page.StopScreencast, cdp.Empty{})
		stopCall()
		cancel()
		if err == nil {
			// Let frames already in flight arrive, then take the final state.
			time.Sleep(120 * time.Millisecond)
			_ = c.seed() // best effort: the last screencast frame stands otherwise
		}
	}
	c.cancel()
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	c.loopWG.Wait()
	c.bmu.Lock()
	c.bdone = true
	c.bcond.Broadcast()
	c.bmu.Unlock()
	c.spoolWG.Wait()

	c.ledger.Delivered(c.delivered.Load())
	c.ledger.Dropped(c.dropped.Load())
	acc := c.ledger.Accounting()
	var err error
	switch {
	case c.clockErr != nil:
		err = c.clockErr
	case c.spoolErr != nil:
		err = c.spoolErr
	case c.endWhy != "":
		err = errors.New(c.endWhy)
	}
	why := "stopped"
	if err != nil {
		why = err.Error()
	}
	return Result{
		Capture: timeline.Capture{
			Tab: c.opts.Tab, Started: c.started, Ended: c.clock.Now(), EndReason: why, Frames: acc,
			Attribution:  "receipt-order: each frame carries the document committed before it arrived",
			BufferFrames: c.opts.BufferFrames, BufferBytes: c.opts.BufferBytes, Format: "jpeg", Quality: c.opts.Quality,
		},
		Boundaries: c.bounds,
		Mapping:    c.mapping,
		Err:        err,
	}
}
