package recorder

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// acker acks a tab's screencast frames, for whichever capture casts: the
// live screencast and its hand-overs (live.go, restart.go), or a studio
// capture's pictures from a screencast (studiocast.go). Its goroutine
// starts each ack in the order the frames arrived, without waiting for the
// answers before (they may come in any order), with up to ackPipeline acks
// on their way at once, or twice the frames in flight if that is more (a
// hand-over has two sessions' frames to ack). It stops acking once the
// capture interval has ended, which stops Chromium sending more, and
// returns when stopped (the screencast is stopped by then: frames still
// queued need no ack), once the acks on their way are answered or cut
// short.
type acker struct {
	mu   sync.Mutex
	q    []ackItem
	quit bool
	// send sends one ack (Page.screencastFrameAck on the session of ctx);
	// unit tests put their own.
	send func(ctx context.Context, id int64) error
	// second is the tab's second CDP session, which a screencast is
	// handed over to and back (restart.go); set by the restarter.
	second *castSession

	wake     chan struct{}
	ctx      context.Context // the tab's, cancelled by stop
	cancel   context.CancelFunc
	ended    *atomic.Bool // the capture interval ended: ack no more
	pipeline int
	wg       sync.WaitGroup

	acks, errs, nanos, most atomic.Int64
}

// ackPipeline is how many acks may be on their way at once. Chromium sends
// a screencast's next frame only while fewer than its frames in flight
// (Options.MaxFramesInFlight, 3 by default) are unacked. Acked one round
// trip after the other, a slow answer (on a busy machine) held back the
// acks behind it, and during a hand-over the two sessions' acks queued
// behind each other. An ack now goes as its frame arrives.
const ackPipeline = 8

// ackItem is a frame to ack: the session that sent it (0 the tab's, 1 the
// second one of restart.go) and its screencast session id.
type ackItem struct {
	cast int
	id   int64
}

// newAcker makes the acker of the tab of ctx and starts its goroutine;
// stop ends it.
func newAcker(ctx context.Context, inFlight int, ended *atomic.Bool) *acker {
	a := &acker{send: screencastAck, wake: make(chan struct{}, 1), ended: ended, pipeline: max(ackPipeline, 2*inFlight)}
	a.ctx, a.cancel = context.WithCancel(ctx)
	a.wg.Add(1)
	go a.run()
	return a
}

// add queues the ack of frame id, sent on session cast (nil: a capture
// with no acker, whose pictures do not come from a screencast, has none to
// send).
func (a *acker) add(cast int, id int64) {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.q = append(a.q, ackItem{cast: cast, id: id})
	a.mu.Unlock()
	signal(a.wake)
}

// useSecond gives the acker the tab's second session, for the frames it
// sends.
func (a *acker) useSecond(cs *castSession) {
	a.mu.Lock()
	a.second = cs
	a.mu.Unlock()
}

// stop ends the goroutine, cutting short the acks on their way, and waits
// for it (nil: no acker, nothing to end).
func (a *acker) stop() {
	if a == nil {
		return
	}
	a.halt()
	a.wg.Wait()
}

// halt tells the goroutine to end and cuts short the acks on their way
// on the tab's session; wait waits for it.
func (a *acker) halt() {
	a.mu.Lock()
	a.quit = true
	a.mu.Unlock()
	signal(a.wake)
	a.cancel()
}

func (a *acker) wait() { a.wg.Wait() }

func (a *acker) run() {
	defer a.wg.Done()
	slots := make(chan struct{}, a.pipeline)
	var sent sync.WaitGroup
	defer sent.Wait()
	for {
		a.mu.Lock()
		items, quit, second, send := a.q, a.quit, a.second, a.send
		a.q = nil
		a.mu.Unlock()
		if quit {
			return
		}
		for _, it := range items {
			if a.ended.Load() {
				break
			}
			ctx := a.ctx
			if it.cast == 1 && second != nil {
				ctx = second.ctx
			}
			select {
			case slots <- struct{}{}:
			case <-a.ctx.Done():
				return
			}
			sent.Add(1)
			go func() { // ends with its call (bounded: ack)
				defer sent.Done()
				defer func() { <-slots }()
				a.ack(ctx, send, it.id)
			}()
		}
		select {
		case <-a.wake:
		case <-a.ctx.Done():
			return
		}
	}
}

// screencastAck acks screencast frame id on the session of ctx.
func screencastAck(ctx context.Context, id int64) error {
	_, err := chromedp.Call(ctx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: id})
	return err
}

// ack acks one frame on the session ctx and times the round trip.
func (a *acker) ack(ctx context.Context, send func(context.Context, int64) error, id int64) {
	t0 := Monotonic()
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := send(actx, id)
	cancel()
	d := Monotonic() - t0
	a.acks.Add(1)
	a.nanos.Add(d)
	for m := a.most.Load(); d > m && !a.most.CompareAndSwap(m, d); m = a.most.Load() {
	}
	if err != nil && ctx.Err() == nil { // not cut short by stop
		a.errs.Add(1)
	}
}

// record puts the acks' counts and round trips in a capture's result (nil:
// none were sent).
func (a *acker) record(r *Result) {
	if a == nil {
		return
	}
	r.Acks, r.AckErrors, r.AckMax = a.acks.Load(), a.errs.Load(), time.Duration(a.most.Load())
	if r.Acks > 0 {
		r.AckMean = time.Duration(a.nanos.Load() / r.Acks)
	}
}
