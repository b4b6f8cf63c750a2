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
		items, quit, second := c.ackQ, c.ackQuit, c.second
		c.ackQ = nil
		c.ackMu.Unlock()
		if quit {
			return
		}
		for _, it := range items {
			if c.ended.Load() {
				break
			}
			ctx := c.ackCtx
			if it.cast == 1 && second != nil {
				ctx = second.ctx
			}
			c.ack(ctx, it.id)
		}
		select {
		case <-c.ackWake:
		case <-c.ackCtx.Done():
			return
		}
	}
}

// ackItem is a frame to ack: the session that sent it (0 the tab's, 1 the
// second one of restart.go) and its screencast session id.
type ackItem struct {
	cast int
	id   int64
}

// ack acks one frame on the session ctx and times the round trip.
func (c *Capture) ack(ctx context.Context, id int64) {
	t0 := Monotonic()
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err := chromedp.Call(actx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: id})
	cancel()
	d := Monotonic() - t0
	c.acks.Add(1)
	c.ackNanos.Add(d)
	if d > c.ackMax.Load() {
		c.ackMax.Store(d) // only the acker writes it
	}
	if err != nil && ctx.Err() == nil { // not cut short by Stop
		c.ackErrs.Add(1)
	}
}
