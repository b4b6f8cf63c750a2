package recorder

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// Why a live capture restarts its screencast.
//
// Chromium's screencast takes its frames from a video capturer (viz's
// FrameSinkVideoCapturer) whose oracle watches the damage of each frame.
// Once one region has been damaged steadily for a second (its
// AnimatedContentSampler), the oracle locks onto that region and from then
// on skips every frame whose damage differs, until 250 ms pass without a
// frame of that region. On a page where several things move, such as the
// bench page, whose code, box and bar all change every frame, the lock came
// about a second after each document loaded and skipped the next 16
// frames: a 267 ms freeze in the take, in both documents of the bench
// scenario, and none when only the code moved (measured with clapper bench
// run). A restarted screencast has a new capturer with no history, so a
// capture that restarts it before the lock can come never sees the lock.
// A restart is two round trips and about 0.4 frames lost (16 restarts, 6
// frames missing within 60 ms of them, against 2 x 15 in the lock).

// castRestartAfter is how long a screencast may deliver frames with no pause
// of castRestartGap before the capture restarts it: under the second of steady
// frames the oracle needs before it locks.
const castRestartAfter = 750 * time.Millisecond

// castRestartGap is a pause between frames that ends a streak: as long as the
// oracle waits before it gives a lock up, so its history restarts too.
const castRestartGap = 250 * time.Millisecond

// streak follows the frames of one screencast and says when to restart it.
// Pure; the listener owns it.
type streak struct {
	start, last timeline.Time
	on          bool
}

// frame notes a frame stamped src (frames may come slightly out of order)
// and reports whether the screencast is due for a restart: it has sent
// frames for castRestartAfter with no pause of castRestartGap. The streak then
// starts again with the restarted screencast's first frame.
func (s *streak) frame(src timeline.Time) bool {
	if !s.on || src-s.last >= timeline.FromDuration(castRestartGap) {
		s.start, s.last, s.on = src, src, true
	}
	s.last = max(s.last, src)
	if s.last-s.start >= timeline.FromDuration(castRestartAfter) {
		s.on = false
		return true
	}
	return false
}

// restarter is the goroutine that restarts the screencast when the
// listener says it is due. It holds castMu while it does, so Stop never
// stops a screencast being restarted, and quits once Stop has begun.
func (c *Capture) restarter(params page.StartScreencastParams) {
	defer c.restartWG.Done()
	for {
		select {
		case <-c.restartWake:
		case <-c.restartQuit:
			return
		}
		c.castMu.Lock()
		if c.castStopping || c.ended.Load() {
			c.castMu.Unlock()
			return
		}
		err := c.restartCast(params)
		c.castMu.Unlock()
		if err != nil {
			c.enqueue(event{kind: evEnd, at: c.clock.Now(), err: err})
			return
		}
		c.restarts.Add(1)
	}
}

// restartCast stops the screencast and starts it again with the same
// parameters. Frames Chromium is encoding meanwhile still come, and are
// acked as any other. A stop that fails means the tab is going (its end
// is told by its own events); a start that fails after a stop leaves the
// capture without frames, so it ends the interval.
func (c *Capture) restartCast(params page.StartScreencastParams) error {
	ctx, cancel := context.WithTimeout(c.ctx, 3*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.StopScreencast, cdp.Empty{}); err != nil {
		return nil
	}
	if _, err := chromedp.Call(ctx, page.StartScreencast, params); err != nil {
		return fmt.Errorf("restart the screencast: it stopped and did not start again: %w", err)
	}
	return nil
}

// quitRestarts stops the restarter before Stop stops the screencast, and
// waits for a restart under way.
func (c *Capture) quitRestarts() {
	if c.restartQuit == nil {
		return
	}
	c.castMu.Lock()
	c.castStopping = true
	c.castMu.Unlock()
	c.quitOnce.Do(func() { close(c.restartQuit) })
	c.restartWG.Wait()
}
