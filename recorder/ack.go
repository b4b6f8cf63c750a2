package recorder

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// acker is the goroutine that acks frames, in the order they arrived,
// without waiting for each answer: up to ackPipeline acks are on their way
// at once. It stops acking once the capture interval has ended, which
// stops Chromium sending more, and returns when Stop tells it to (the
// screencast is stopped by then: frames still queued need no ack), once
// the acks on their way are answered or cut short.
func (c *Capture) acker() {
	defer c.ackWG.Done()
	slots := make(chan struct{}, ackPipeline)
	var sent sync.WaitGroup
	defer sent.Wait()
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
			select {
			case slots <- struct{}{}:
			case <-c.ackCtx.Done():
				return
			}
			sent.Add(1)
			go func() { // ends with its call (bounded: ack)
				defer sent.Done()
				defer func() { <-slots }()
				c.ack(ctx, it.id)
			}()
		}
		select {
		case <-c.ackWake:
		case <-c.ackCtx.Done():
			return
		}
	}
}

// ackPipeline is how many acks may be on their way at once. Chromium sends
// a screencast's next frame only while fewer than its frames in flight
// (Options.MaxFramesInFlight, 3 by default) are unacked. Acked one round trip after the
// other, a slow answer (up to 30 ms on a busy machine, bench capture) held
// back the acks behind it, and during a hand-over the two sessions' acks
// queued behind each other. An ack now goes as its frame arrives.
const ackPipeline = 8

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
	for m := c.ackMax.Load(); d > m && !c.ackMax.CompareAndSwap(m, d); m = c.ackMax.Load() {
	}
	if err != nil && ctx.Err() == nil { // not cut short by Stop
		c.ackErrs.Add(1)
	}
}
