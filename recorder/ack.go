package recorder

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// acker is the goroutine that acks frames, one CDP round trip each, in the
// order they arrived. It stops acking once the capture interval has ended,
// which stops Chromium sending more, and returns when Stop tells it to
// (the screencast is stopped by then: frames still queued need no ack).
func (c *Capture) acker() {
	defer c.ackWG.Done()
	for {
		c.ackMu.Lock()
		ids, quit := c.ackQ, c.ackQuit
		c.ackQ = nil
		c.ackMu.Unlock()
		if quit {
			return
		}
		for _, id := range ids {
			if c.ended.Load() {
				break
			}
			c.ack(id)
		}
		select {
		case <-c.ackWake:
		case <-c.ackCtx.Done():
			return
		}
	}
}

// ack acks one frame and times the round trip.
func (c *Capture) ack(id int64) {
	t0 := Monotonic()
	actx, cancel := context.WithTimeout(c.ackCtx, 5*time.Second)
	_, err := chromedp.Call(actx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: id})
	cancel()
	d := Monotonic() - t0
	c.acks.Add(1)
	c.ackNanos.Add(d)
	if d > c.ackMax.Load() {
		c.ackMax.Store(d) // only the acker writes it
	}
	if err != nil && c.ackCtx.Err() == nil { // not cut short by Stop
		c.ackErrs.Add(1)
	}
}
