package recorder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Defaults of Options. The in-flight limit and sendLastFrame were chosen
// with `clapper bench capture` (docs/internals.md, "Chromium's
// screencast"): one frame in flight lost rate and coverage, and more than
// three bought no rate and added latency, so 3 (Chromium's own default)
// stays. sendLastFrame changed neither rate nor latency measurably, and
// delivered the final picture of a burst of changes through the
// screencast more often; neither setting guarantees it, which is why Stop
// seeds the final state.
const (
	DefaultQuality      = 85
	DefaultBufferFrames = 240
	DefaultBufferBytes  = 128 << 20
	// DefaultFramesInFlight is the maxFramesInFlight asked of Chromium.
	DefaultFramesInFlight = InFlight
	// DefaultSendLastFrame is whether sendLastFrame is asked of Chromium
	// (Options.NoSendLastFrame turns it off).
	DefaultSendLastFrame = true
)

// ErrCrashed ends a capture whose renderer crashed.
var ErrCrashed = errors.New("renderer crashed")

// Options configure a capture.
type Options struct {
	// Dir is the take folder; Log is its open frame log.
	Dir   string
	Log   *timeline.FrameLog
	Clock *Clock
	// Tab names the captured tab in frame records.
	Tab string
	// Quality is the JPEG quality (default DefaultQuality).
	Quality int
	// MaxWidth and MaxHeight bound the frame size in device pixels.
	MaxWidth, MaxHeight int
	// EveryNthFrame asks Chromium for one frame in n (default 1: all).
	EveryNthFrame int
	// BufferFrames and BufferBytes bound the spool buffer (defaults
	// DefaultBufferFrames, DefaultBufferBytes; a negative value lifts that
	// bound, the other one still holds).
	BufferFrames int
	BufferBytes  int64
	// InitialURL is the first document's address.
	InitialURL string
	// Mask, when set, rewrites every address before it is recorded (a
	// run's secrets masker). It is called on the capture's goroutine.
	Mask func(string) string
	// Journal, when set, receives each document boundary as it is
	// recorded (the take's write-ahead journal).
	Journal *timeline.Journal
	// FirstSeq and FirstDocument number this capture's first frame and
	// document, so a take filmed across several captures (one per tab the
	// run switches to) keeps one sequence and one document numbering.
	FirstSeq      int64
	FirstDocument int
	// MaxFramesInFlight is how many frames Chromium may send before an ack
	// (default DefaultFramesInFlight). It is also the longest run of late
	// frames reordering can explain.
	MaxFramesInFlight int
	// NoSendLastFrame turns off Chromium's sendLastFrame, which is on by
	// default: Chromium keeps the last frame it produced while the
	// in-flight limit was reached and sends it on the next ack, instead of
	// dropping it, so a page that stops changing is likelier to end on its
	// final picture.
	NoSendLastFrame bool
	// Mapping forces how source times are mapped ("" chooses: monotonic
	// when Chromium sends it, else wall-offset, else receipt). Frames that
	// lack the forced time are rejected.
	Mapping timeline.Mapping
	// SettleByFrame makes Settle ask the screencast for one more frame
	// first, and take a screenshot only when none comes (see Settle for
	// why this is not the default).
	SettleByFrame bool
	// SettleWait bounds Settle's wait for the frame it asked for (default
	// DefaultSettleWait).
	SettleWait time.Duration
	// WriteFile writes a frame's bytes; nil means os.WriteFile. Tests use
	// it to inject a slow or failing disk.
	WriteFile func(name string, data []byte) error
	// StudioScreencast makes a studio capture take its pictures from a
	// screencast beside the pump, which encodes a frame's picture while the
	// next frame is made (studiocast.go), instead of with each begin-frame
	// (a screenshot, the default). The screencast's capturer rations its
	// pictures on the host's clock, which virtual time lags: a frame's
	// picture may not come until a later frame is drawn, and the pump
	// then waits, shoots the frame again and goes on with screenshots; so
	// the screenshot, which always comes with its frame, is the default.
	// clapper bench capture --capture studio,studio-screencast compares
	// the two.
	StudioScreencast bool
	// NoRestart keeps one screencast for the whole capture instead of
	// restarting it after each castRestartAfter of steady frames (restart.go
	// says why it restarts); clapper bench run compares the two.
	NoRestart bool
	// RestartPaused, when set, says whether the tab is held (or being
	// frozen): then the screencast is not started anew, since a new
	// screencast's first picture would be a frame stamped inside the hold.
	// Called from the restarter: it must be safe from any goroutine.
	RestartPaused func() bool
	// inPlace makes restarts stop and start the one screencast, as when no
	// second session can be attached (tests: export_test.go).
	inPlace bool
	// startCast, when set, starts the screencast in Page.startScreencast's
	// place (tests make it fail: export_test.go).
	startCast func(context.Context, page.StartScreencastParams) error
	// Held, when set, says whether the tab is held (its scripts paused):
	// then no screenshot is taken of it (one would wait for the resume),
	// and the take shows the last frame it has. Called from the goroutine
	// that starts, settles or stops the capture.
	Held func() bool
}

func (o *Options) defaults() {
	if o.Quality == 0 {
		o.Quality = DefaultQuality
	}
	if o.EveryNthFrame <= 0 {
		o.EveryNthFrame = 1
	}
	if o.BufferFrames == 0 {
		o.BufferFrames = DefaultBufferFrames
	}
	if o.BufferBytes == 0 || (o.BufferBytes < 0 && o.BufferFrames < 0) {
		o.BufferBytes = DefaultBufferBytes // never unbounded
	}
	if o.MaxFramesInFlight <= 0 {
		o.MaxFramesInFlight = DefaultFramesInFlight
	}
	if o.SettleWait <= 0 {
		o.SettleWait = DefaultSettleWait
	}
	if o.Clock == nil {
		o.Clock = NewClock()
	}
	if o.WriteFile == nil {
		o.WriteFile = func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) }
	}
}

// Snapshot is a live view of a capture's accounting, safe to read while
// capturing. Received - Delivered - Discarded frames are still queued for
// the spool writer.
type Snapshot struct {
	// Started is when the capture began, on the take clock.
	Started                        timeline.Time
	Received, Delivered, Discarded int64
	// The four disjoint discard buckets.
	Overflow, Late, Duplicates, Rejected int64
	// Documents is how many documents the tab has shown (1 + boundaries).
	Documents int
}

// Result is what a stopped capture hands to the timeline.
type Result struct {
	Capture    timeline.Capture
	Boundaries []timeline.Boundary
	// Mapping is how source times were mapped; Clock is the take clock
	// described for the timeline with that mapping (and, for wall-offset,
	// the offset and its error bound, widened by any drift of the wall
	// clock during the capture).
	Mapping timeline.Mapping
	Clock   timeline.Clock
	// CrossCheck compares the wall-offset mapping with the monotonic one
	// on frames that carried both times.
	CrossCheck CrossCheck
	// Acks counts frame acks sent, and AckErrors those Chromium refused or
	// that failed; AckMean and AckMax are their round trips.
	Acks, AckErrors int64
	AckMean, AckMax time.Duration
	// Err is why the capture ended early (crash, detach, disk, clock), nil
	// for a clean stop.
	Err error
	// NextSeq and NextDocument are the numbers a following capture into
	// the same take starts from.
	NextSeq      int64
	NextDocument int
	// Forced counts the frame intervals of a studio capture that a fetch
	// that would not end held up, pushed through with plain advance.
	Forced int64
}

// CrossCheck is the agreement of the two source-time mappings.
type CrossCheck struct {
	// Frames is how many frames carried both a monotonic and a wall-clock
	// time; MaxDiff the largest difference between their mapped times.
	Frames  int
	MaxDiff time.Duration
}

// Capture records one tab into a take folder: Start films it live,
// StartStudio in studio; Stop ends it and returns the record.
//
// A Capture is the part both modes share, the ledger and the spool: the
// capture loop (loop.go: reorder window, clock mapping, accounting,
// document boundaries) and the spool writer (writes accepted frames to
// disk), fed through one queue of events. The mode is a part of its own
// that owns its goroutines: a live capture's screencast (live.go: the
// listener, the acker, the restarter of restart.go, Settle of settle.go),
// or a studio capture's frame pump (pump.go, studiocast.go, with an acker
// of its own when its pictures come from a screencast). A mode hands the
// core only events, and reads whether the interval has ended; Stop stops
// the mode first, then drains the core.
type Capture struct {
	opts  Options
	ctx   context.Context // the tab's chromedp context; nil in unit tests
	clock *Clock

	eventQueue // what the mode hands the capture loop
	loopState  // the capture loop's own (loop.go)
	spoolState // between the capture loop and the spool writer
	counts     // what Snapshot reads while the capture runs
	lifecycle

	// mode is the live screencast or the studio pump once Start or
	// StartStudio has begun (nil in the unit tests that feed the core
	// events themselves).
	mode mode
}

// mode is what a capture's mode does for the core's API and for Stop.
type mode interface {
	// settle and syncRestarts are Settle's and SyncRestarts'.
	settle(since timeline.Time) error
	syncRestarts()
	// halt stops making frames: the screencast stopped and its final
	// picture taken, or the pump stopped after the frame in hand.
	halt(ctx context.Context)
	// endAcks ends the mode's acker once the listener is gone.
	endAcks()
	// record adds the mode's own figures to the result.
	record(r *Result)
}

// eventQueue is the queue the mode's listeners fill and the capture loop
// drains, in receipt order.
type eventQueue struct {
	mu      sync.Mutex
	queue   []event
	wake    chan struct{}
	stopped bool
}

// loopState is owned by the capture loop: the reorder window, the
// ledger, the clock mapping and the document boundaries.
type loopState struct {
	window  reorder[arrival]
	ledger  Ledger
	seq     int64
	doc     int
	mapping timeline.Mapping
	mapped  bool
	cross   CrossCheck
	bounds  []timeline.Boundary
	endErr  error // why the interval ended early; the first reason stands
	endAt   timeline.Time
}

// spoolState is shared between the capture loop, which offers accepted
// frames, and the spool writer, which writes them to disk.
type spoolState struct {
	bmu      sync.Mutex
	bcond    *sync.Cond
	buf      Buffer[spoolItem]
	bdone    bool
	spoolErr error
	spoolAt  timeline.Time
}

// counts are the frame counts Snapshot reads while the capture runs, and
// whether the interval has ended (the mode stops acking then).
type counts struct {
	received, delivered, overflow, late, dups, rejected, docs, spoolDropped atomic.Int64
	ended                                                                   atomic.Bool
}

// lifecycle is what newCapture begins and Stop ends: the core's
// goroutines, the interval's end and the result.
type lifecycle struct {
	done     chan struct{} // closed when the interval ends
	doneOnce sync.Once
	cancel   context.CancelFunc // ends the mode's listener
	loopWG   sync.WaitGroup
	spoolWG  sync.WaitGroup
	started  timeline.Time
	stopOnce sync.Once
	result   Result
}

type eventKind int

const (
	evFrame eventKind = iota
	evSeed
	evNav
	evEnd
	evPumped // a studio frame: data and src set, like a seed, but not seeded
	evSync   // release the reorder window, then close done
)

// event is one thing that happened to the capture, in receipt order.
type event struct {
	kind  eventKind
	at    timeline.Time // receipt time on the take clock
	frame *page.EventScreencastFrame
	data  []byte        // seeds: the screenshot
	src   timeline.Time // seeds: the source time chosen for it
	url   string
	cast  int           // evFrame: the session that sent it (restart.go)
	err   error         // evEnd: why the interval ended
	done  chan struct{} // evSync: closed once handled
}

type spoolItem struct {
	fr   timeline.Frame
	data []byte
}

// newCapture builds the core of a capture of the tab of ctx (nil for
// tests that feed events themselves) and starts its goroutines, the
// capture loop and the spool writer. The mode is set up by its caller.
func newCapture(ctx context.Context, opts Options) *Capture {
	opts.defaults()
	c := &Capture{opts: opts, ctx: ctx, clock: opts.Clock}
	c.wake = make(chan struct{}, 1)
	c.done = make(chan struct{})
	c.ledger.InFlight = opts.MaxFramesInFlight
	c.window.size = opts.MaxFramesInFlight - 1
	c.bcond = sync.NewCond(&c.bmu)
	c.buf = Buffer[spoolItem]{MaxItems: opts.BufferFrames, MaxBytes: opts.BufferBytes}
	c.started = c.clock.Now()
	c.seq, c.doc = opts.FirstSeq, opts.FirstDocument
	c.docs.Store(int64(c.doc))
	c.bounds = []timeline.Boundary{{Document: c.doc, LastSeq: c.seq - 1, URL: timeline.BoundaryURL(c.mask(opts.InitialURL)), At: c.started, Tab: opts.Tab}}
	opts.Journal.Append(timeline.JournalBoundary, c.bounds[0])
	c.cancel = func() {}
	c.loopWG.Add(1)
	go c.loop()
	c.spoolWG.Add(1)
	go c.spool()
	return c
}

// StartError is a capture that failed to start after it had begun its
// part of the take (its first boundary journaled, perhaps its seeded first
// frame written and indexed). Result accounts for that part: a caller
// keeps it with the take's other results, and numbers the next capture on
// from it, as from any capture it stopped.
type StartError struct {
	Result Result
	Err    error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// failStart stops a capture that could not start and returns err with the
// capture's result (StartError).
func (c *Capture) failStart(err error) error {
	return &StartError{Result: c.Stop(context.Background()), Err: err}
}

// eventOf turns the CDP events both modes hand the capture loop alike (a
// navigation of the main frame, a crash, the tab detached), received at
// now, into the loop's event.
func (c *Capture) eventOf(ev any, now timeline.Time) (event, bool) {
	switch ev := ev.(type) {
	case *page.EventFrameNavigated:
		if ev.Frame == nil || ev.Frame.ParentID != "" {
			return event{}, false
		}
		return event{kind: evNav, at: now, url: ev.Frame.URL + ev.Frame.URLFragment}, true
	case *inspector.EventTargetCrashed:
		return event{kind: evEnd, at: now, err: ErrCrashed}, true
	case *inspector.EventDetached:
		return event{kind: evEnd, at: now, err: fmt.Errorf("target detached: %s", ev.Reason)}, true
	}
	return event{}, false
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (c *Capture) enqueue(e event) {
	c.mu.Lock()
	c.queue = append(c.queue, e)
	c.mu.Unlock()
	signal(c.wake)
}

// Snapshot returns the counts so far without disturbing capture: it reads
// atomics only, from any goroutine. The settled counts are read before
// Received, and every frame is counted received before it is settled, so a
// snapshot never shows more delivered and discarded frames than received.
func (c *Capture) Snapshot() Snapshot {
	s := Snapshot{
		Started: c.started, Delivered: c.delivered.Load(), Overflow: c.overflow.Load(), Late: c.late.Load(), Duplicates: c.dups.Load(),
		Rejected: c.rejected.Load() + c.spoolDropped.Load(), Documents: int(c.docs.Load()) + 1,
	}
	s.Received = c.received.Load()
	s.Discarded = s.Overflow + s.Late + s.Duplicates + s.Rejected
	return s
}

// Accounting is the snapshot as the timeline counts frames.
func (s Snapshot) Accounting() timeline.Accounting {
	return timeline.Accounting{Received: s.Received, Delivered: s.Delivered, Overflow: s.Overflow, Late: s.Late,
		Duplicates: s.Duplicates, Rejected: s.Rejected, Upstream: "unknown"}
}

// Done is closed when the capture interval ends: early (a crash, a closed
// tab, a dead browser, a full disk, a clock error) or by Stop. Stop still
// has to be called to drain the buffer and get the record.
func (c *Capture) Done() <-chan struct{} { return c.done }

// ErrUnwritable is in the error of a capture that ended because a frame
// could not be written (a full disk): nothing more would be kept.
var ErrUnwritable = errors.New("the take cannot be written")

// EndErr is why the capture ended on its own; read it once Done is
// closed (nil when it was stopped, or before).
func (c *Capture) EndErr() error {
	select {
	case <-c.done:
		return c.endErr
	default:
		return nil
	}
}

// Now reads the take clock the capture stamps its records with.
func (c *Capture) Now() timeline.Time { return c.clock.Now() }

func (c *Capture) closeDone() { c.doneOnce.Do(func() { close(c.done) }) }

// Settle makes sure the take holds a picture of the page as it is now
// (settle.go says how a live capture does it). A studio capture films
// every frame: there is nothing to miss, and it returns at once, as it
// does for a core with no mode (unit tests).
func (c *Capture) Settle(since timeline.Time) error {
	if c.mode == nil {
		return nil
	}
	return c.mode.settle(since)
}

// SyncRestarts waits for a restart of a live capture's screencast under
// way, if any: one decided after Options.RestartPaused turned true has
// seen it.
func (c *Capture) SyncRestarts() {
	if c.mode != nil {
		c.mode.syncRestarts()
	}
}

// Stop stops the mode (a live capture stops its screencast and seeds the
// final state as a last frame; a studio capture's pump ends after the
// frame in hand), drains the buffer to disk and returns the record. It is
// safe to call more than once and after the browser died; ctx bounds the
// calls to Chromium.
func (c *Capture) Stop(ctx context.Context) Result {
	c.stopOnce.Do(func() { c.result = c.stop(ctx) })
	return c.result
}

func (c *Capture) stop(ctx context.Context) Result {
	if c.mode == nil { // unit tests: the core alone
		c.cancel()
		res := c.drain()
		res.Capture.Mode = timeline.CaptureLive
		return res
	}
	c.mode.halt(ctx)
	c.cancel()
	c.mode.endAcks()
	res := c.drain()
	c.mode.record(&res)
	return res
}

// alive reports whether the tab can still be talked to.
func (c *Capture) alive() bool {
	if c.ctx == nil || c.ctx.Err() != nil {
		return false
	}
	if d, err := chromedp.Detached(c.ctx); err == nil {
		select {
		case <-d:
			return false
		default:
		}
	}
	return true
}

// drain stops the loop once it has handled every queued event, lets the
// spool writer empty the buffer, and builds the result of what both modes
// share (the mode adds its own: Stop).
func (c *Capture) drain() Result {
	defer c.closeDone()
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	signal(c.wake)
	c.loopWG.Wait()
	c.bmu.Lock()
	c.bdone = true
	c.bcond.Broadcast()
	c.bmu.Unlock()
	c.spoolWG.Wait()

	c.ledger.Delivered(c.delivered.Load())
	c.ledger.Dropped(c.spoolDropped.Load())
	acc := c.ledger.Accounting()
	err := c.endErr
	if err == nil {
		// A spool failure after the loop's last event still ends it.
		err = c.spoolErr
	}
	why, ended := "stopped", c.clock.Now()
	if c.endErr != nil {
		why, ended = c.endErr.Error(), c.endAt
	} else if err != nil {
		why, ended = err.Error(), c.spoolAt
	}
	return Result{
		Capture: timeline.Capture{
			Tab: c.opts.Tab, Started: c.started, Ended: ended, EndReason: why, Frames: acc,
			Attribution:  "receipt-order: each frame carries the document committed before it arrived",
			BufferFrames: c.opts.BufferFrames, BufferBytes: c.opts.BufferBytes, Format: "jpeg", Quality: c.opts.Quality,
		},
		Boundaries:   c.bounds,
		Mapping:      c.mappingUsed(),
		Clock:        c.clockInfo(),
		CrossCheck:   c.cross,
		Err:          err,
		NextSeq:      c.seq,
		NextDocument: c.doc + 1,
	}
}

func (c *Capture) mappingUsed() timeline.Mapping {
	if !c.mapped {
		if c.opts.Mapping != "" {
			return c.opts.Mapping
		}
		return timeline.MappingReceipt
	}
	return c.mapping
}

// clockInfo describes the take clock; for the wall-offset mapping it
// re-measures the offset and widens the error bound by any drift since the
// start (a stepped or slewed wall clock).
func (c *Capture) clockInfo() timeline.Clock {
	m := c.mappingUsed()
	info := c.clock.Info(m)
	if m == timeline.MappingWallOffset {
		now := MeasureWallOffset(wallSamples)
		drift := now.Offset - c.clock.Offset.Offset
		if drift < 0 {
			drift = -drift
		}
		info.ErrorNs += drift + now.Error
	}
	return info
}

// Join combines the results of captures made one after another into one
// take (the run switched the filmed tab): accounting summed, interval from
// the first start to the last end, boundaries in order, the first early end
// as the reason. A take of several tabs names no single tab.
func Join(rs ...Result) Result {
	if len(rs) == 0 {
		return Result{}
	}
	out := rs[0]
	out.Boundaries = append([]timeline.Boundary(nil), rs[0].Boundaries...)
	for _, r := range rs[1:] {
		out.Capture.Frames.Add(r.Capture.Frames)
		out.Capture.Repeats += r.Capture.Repeats
		out.Capture.Missed += r.Capture.Missed
		out.Capture.Restarts += r.Capture.Restarts
		if out.Capture.Pictures != r.Capture.Pictures {
			// Captures that had their pictures both ways: the screenshot
			// is the weaker claim (fell back, or asked for).
			out.Capture.Pictures = timeline.PicturesScreenshot
		}
		out.Capture.Ended = r.Capture.Ended
		if out.Capture.Tab != r.Capture.Tab {
			out.Capture.Tab = ""
		}
		if out.Err == nil && r.Err != nil {
			out.Err, out.Capture.EndReason = r.Err, r.Capture.EndReason
		}
		out.Capture.Settled = joinSettled(out.Capture.Settled, r.Capture.Settled)
		out.Boundaries = append(out.Boundaries, r.Boundaries...)
		out.Acks += r.Acks
		out.AckErrors += r.AckErrors
		out.AckMax = max(out.AckMax, r.AckMax)
		out.Forced += r.Forced
		out.NextSeq, out.NextDocument = r.NextSeq, r.NextDocument
	}
	return out
}

// mask applies the Mask option to an address.
func (c *Capture) mask(u string) string {
	if c.opts.Mask == nil {
		return u
	}
	return c.opts.Mask(u)
}
