package recorder

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// acker is the goroutine that acks frames: it starts each ack in the
// order the frames arrived, without waiting for the answers before (they
// may come in any order), with up to ackPipeline acks on their way at
// once, or twice the frames in flight if that is more (a hand-over has
// two sessions' frames to ack). It stops acking once the capture interval
// has ended, which stops Chromium sending more, and returns when Stop
// tells it to (the screencast is stopped by then: frames still queued need
// no ack), once the acks on their way are answered or cut short.
func (c *Capture) acker() {
	defer c.ackWG.Done()
	slots := make(chan struct{}, max(ackPipeline, 2*c.opts.MaxFramesInFlight))
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
// (Options.MaxFramesInFlight, 3 by default) are unacked. Acked one round
// trip after the other, a slow answer (on a busy machine) held back the
// acks behind it, and during a hand-over the
// two sessions' acks queued behind each other. An ack now goes as its
// frame arrives.
const ackPipeline = 8

// ackItem is a frame to ack: the session that sent it (0 the tab's, 1 the
// second one of restart.go) and its screencast session id.
type ackItem struct {
	cast int
	id   int64
}

// screencastAck acks screencast frame id on the session of ctx.
func screencastAck(ctx context.Context, id int64) error {
	_, err := chromedp.Call(ctx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: id})
	return err
}

// ack acks one frame on the session ctx and times the round trip.
func (c *Capture) ack(ctx context.Context, id int64) {
	t0 := Monotonic()
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	send := c.ackSend
	if send == nil {
		send = screencastAck
	}
	err := send(actx, id)
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
