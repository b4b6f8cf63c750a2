package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"image/jpeg"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// loop is the capture goroutine: it maps frames' clocks, puts screencast
// frames back in source order (reorder), accounts for them, records
// boundaries, and hands accepted frames to the spool writer. It returns
// once stopped and every queued event is handled.
func (c *Capture) loop() {
	defer c.loopWG.Done()
	var detached, done <-chan struct{}
	if c.ctx != nil {
		detached, _ = chromedp.Detached(c.ctx)
		done = c.ctx.Done()
	}
	hold := time.NewTimer(time.Hour)
	hold.Stop()
	defer hold.Stop()
	for {
		c.mu.Lock()
		batch := c.queue
		c.queue = nil
		stopped := c.stopped
		c.mu.Unlock()
		for _, e := range batch {
			c.handle(e)
		}
		// Frames due by age are released after the batch, so a frame
		// queued meanwhile with an earlier source time goes before them.
		c.judgeAll(c.window.due(c.clock.Now(), reorderAge))
		if stopped {
			c.mu.Lock()
			rest := len(c.queue)
			c.mu.Unlock()
			if rest == 0 {
				c.judgeAll(c.window.flush())
				return
			}
			continue
		}
		// Frames held in the window are released when they are due by
		// age (a timer's channel delivers no stale tick after Stop or
		// Reset since Go 1.23).
		var holding <-chan time.Time
		if at, ok := c.window.deadline(reorderAge); ok {
			hold.Reset(time.Duration(at - c.clock.Now()))
			holding = hold.C
		} else {
			hold.Stop()
		}
		// A detach or a closed connection ends the interval behind the
		// events queued before it (frames that came first are judged).
		select {
		case <-c.wake:
		case <-holding:
		case <-detached:
			c.enqueue(event{kind: evEnd, at: c.clock.Now(), err: errors.New("target detached (tab closed or browser gone)")})
			detached = nil
		case <-done:
			c.enqueue(event{kind: evEnd, at: c.clock.Now(), err: fmt.Errorf("browser connection closed: %w", c.ctx.Err())})
			done = nil
		}
	}
}

// end ends the capture interval: later frames are rejected and no longer
// acked. The first reason stands.
func (c *Capture) end(at timeline.Time, why error) {
	if c.endErr == nil {
		c.endErr, c.endAt = why, at
	}
	c.ledger.Stop()
	c.ended.Store(true)
	c.closeDone()
}

// arrival is a frame received and not judged yet: everything the loop
// knows of it but its place in the sequence.
type arrival struct {
	fr   timeline.Frame // Seq and File are set when it is judged
	data []byte
	ok   bool // it has a source time and decodes
	cast int  // the session that sent it
}

// handle takes one event in receipt order. Screencast frames go through the
// reorder window; anything else releases the frames it holds first, so a
// seed, a boundary or the end of the interval keeps its place among them.
func (c *Capture) handle(e event) {
	if e.kind != evFrame {
		c.judgeAll(c.window.flush())
	}
	switch e.kind {
	case evNav:
		c.doc++
		c.docs.Store(int64(c.doc))
		c.bounds = append(c.bounds, timeline.Boundary{Document: c.doc, LastSeq: c.seq - 1, URL: timeline.BoundaryURL(c.mask(e.url)), At: e.at, Tab: c.opts.Tab})
		c.opts.Journal.Append(timeline.JournalBoundary, c.bounds[len(c.bounds)-1])
		return
	case evEnd:
		c.end(e.at, e.err)
		return
	case evSync:
		close(e.done)
		return
	}
	a := c.arrive(e)
	if e.kind != evFrame || !a.ok {
		c.judge(a) // in order already, or rejected whatever its place
		return
	}
	c.judgeAll(c.window.push(a.fr.Source, c.clock.Now(), a))
}

// arrive reads what a frame event says of the frame: its document (the
// one committed before it arrived), times, geometry and size.
func (c *Capture) arrive(e event) arrival {
	a := arrival{fr: timeline.Frame{Tab: c.opts.Tab, Document: c.doc, Received: e.at}, ok: true, cast: e.cast}
	fr := &a.fr
	if e.kind == evFrame {
		a.data = e.frame.Data
		fr.Source, a.ok = c.mapSource(e.frame.Metadata, e.at)
		if m := e.frame.Metadata; m != nil {
			fr.OffsetTop, fr.PageScaleFactor = m.OffsetTop, m.PageScaleFactor
			fr.ScrollX, fr.ScrollY = m.ScrollOffsetX, m.ScrollOffsetY
			fr.DeviceWidth, fr.DeviceHeight = m.DeviceWidth, m.DeviceHeight
		}
	} else {
		a.data, fr.Source, fr.Seeded = e.data, e.src, e.kind == evSeed
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(a.data)); err != nil {
		a.ok = false
	} else {
		fr.Width, fr.Height = cfg.Width, cfg.Height
	}
	fr.Bytes = len(a.data)
	return a
}

func (c *Capture) judgeAll(as []arrival) {
	for _, a := range as {
		c.judge(a)
	}
}

// judge numbers a frame in the order the ledger takes it, lets the ledger
// decide, and queues an accepted frame for the spool writer.
func (c *Capture) judge(a arrival) {
	fr, data := a.fr, a.data
	fr.Seq = c.seq
	c.seq++
	fr.File = timeline.FramePath(fr.Seq)
	c.received.Add(1)
	var v Verdict
	if fr.Seeded {
		v, fr.Source = c.ledger.OfferSeed(fr.Source, a.ok)
	} else {
		v = c.ledger.OfferFrom(a.cast, fr.Source, a.ok)
	}
	if err := c.ledger.Err(); err != nil {
		c.end(fr.Received, err)
	}
	switch v {
	case Late:
		c.late.Add(1)
		return
	case Duplicate:
		c.dups.Add(1)
		return
	case Reject:
		c.rejected.Add(1)
		return
	}
	c.bmu.Lock()
	if c.spoolErr != nil {
		c.bmu.Unlock()
		c.ledger.Dropped(1)
		c.rejected.Add(1)
		return
	}
	evicted := c.buf.Push(spoolItem{fr: fr, data: data}, int64(len(data)))
	c.bcond.Signal()
	c.bmu.Unlock()
	if n := int64(len(evicted)); n > 0 {
		c.ledger.Overflowed(n)
		c.overflow.Add(n)
	}
}

// mapSource puts a frame's source time on the take clock. The mapping is
// chosen on the first frame unless Options.Mapping forces one:
// monotonicTimestamp when present and within a few seconds of the host's
// monotonic clock, else the wall-clock timestamp through the measured
// offset, else the receipt time. ok is false when the frame lacks the time
// the mapping needs.
func (c *Capture) mapSource(m *page.ScreencastFrameMetadata, recv timeline.Time) (timeline.Time, bool) {
	var mono, wall float64
	if m != nil {
		mono, wall = float64(m.MonotonicTimestamp), float64(m.Timestamp)
	}
	if mono != 0 && wall != 0 {
		d := time.Duration(c.clock.FromWall(wall) - c.clock.FromMonotonic(mono))
		if d < 0 {
			d = -d
		}
		c.cross.Frames++
		c.cross.MaxDiff = max(c.cross.MaxDiff, d)
	}
	if !c.mapped {
		c.mapped = true
		c.mapping = chooseMapping(c.opts.Mapping, mono != 0 && abs(c.clock.FromMonotonic(mono)-recv) < timeline.Time(5*time.Second), wall != 0)
	}
	switch c.mapping {
	case timeline.MappingMonotonic:
		return c.clock.FromMonotonic(mono), mono != 0
	case timeline.MappingWallOffset:
		return c.clock.FromWall(wall), wall != 0
	}
	return recv, true
}

// chooseMapping picks the source-time mapping: forced, or the best the
// first frame supports.
func chooseMapping(forced timeline.Mapping, monoOK, wallOK bool) timeline.Mapping {
	switch {
	case forced != "":
		return forced
	case monoOK:
		return timeline.MappingMonotonic
	case wallOK:
		return timeline.MappingWallOffset
	}
	return timeline.MappingReceipt
}

func abs(t timeline.Time) timeline.Time {
	if t < 0 {
		return -t
	}
	return t
}

// spool is the writer goroutine: it writes accepted frames to disk as
// received (no re-encoding) and indexes them, in order. When a write fails
// it ends the interval: that frame and everything still queued count as
// rejected, and the take keeps what was written before.
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
		name := filepath.Join(c.opts.Dir, filepath.FromSlash(it.fr.File))
		err := c.opts.WriteFile(name, it.data)
		if err == nil {
			if err = c.opts.Log.Append(it.fr); err == nil {
				err = c.opts.Log.Flush()
			}
		}
		if err != nil {
			// A partial frame is no frame, and a frame the index does not
			// list is not the take's.
			_ = os.Remove(name)
			err = fmt.Errorf("%w: spool frame %d: %w", ErrUnwritable, it.fr.Seq, err)
			c.bmu.Lock()
			c.spoolErr, c.spoolAt = err, c.clock.Now()
			n := int64(1)
			for c.buf.Len() > 0 {
				c.buf.Pop()
				n++
			}
			c.bmu.Unlock()
			c.spoolDropped.Add(n)
			c.enqueue(event{kind: evEnd, at: c.clock.Now(), err: err})
			// On virtual time nothing moves the page's clock once the
			// pump has stopped: what waits on it is told now, instead of
			// waiting out its bound.
			if v := c.opts.Clock.Virtual; v != nil {
				v.Fail(err)
			}
			continue
		}
		c.delivered.Add(1)
	}
}
