package film

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/timeline"
)

// earlyRender renders a run's video chunks while the take is captured, from
// the take as far as its journal and frame index go, so the video is
// finished soon after the last step. The final render uses a chunk only
// when the finished take gives it the same inputs (compositor.ChunkCache).
type earlyRender struct {
	cache *compositor.ChunkCache
	idle  *compositor.Idle // its ffmpeg, until the capture ends
	stop  chan struct{}
	wg    sync.WaitGroup
	logf  func(string, ...any)

	mu       sync.Mutex
	chunks   int  // rendered while capturing
	have     int  // whole chunks found rendered (compositor.RenderEarly)
	inHand   bool // a chunk is being made
	failed   bool
	lookCost time.Duration // what the last look at the take cost
}

// earlyEvery is how often the take is looked at again: as often as the
// journal is flushed, so that a chunk of a short take is started as soon
// as it is known. A look that costs more (a long take's frame index is
// read whole) waits earlyCostFactor times its cost, so looking takes a
// small share of a core. One chunk is in hand at a time, and the take is
// not looked at meanwhile: a look prepares the overlays to find the next
// chunk, at the page's expense. Two in hand, or the encoder niced instead
// of idle in studio, measured no better on the quickstart (make demo, four
// runs each, alternating: launch to video 8.3 s both ways against 8.1 s)
// and, two in hand filming live, the bench run kept 0.010 to 0.014 fewer
// of the page's frames in each of three pairs.
const (
	earlyEvery      = 250 * time.Millisecond
	earlyCostFactor = 8
)

// startEarlyRender begins rendering early, or returns nil when the outputs
// are not chunked (WebM, PNG frames) or no cache can be made. Its ffmpeg
// runs only on cores the capture leaves idle (compositor.Idle): filming
// live, a frame the encoder delayed would be a frame lost; in studio, a
// slower capture.
func startEarlyRender(ctx context.Context, takeDir string, outs []string, s compositor.Settings, logf func(string, ...any)) *earlyRender {
	if !compositor.Chunked(outs) {
		return nil
	}
	cache, err := compositor.NewChunkCache()
	if err != nil {
		logf("rendering while capturing is off: %v", err)
		return nil
	}
	e := &earlyRender{cache: cache, stop: make(chan struct{}), logf: logf, idle: &compositor.Idle{}}
	e.wg.Add(1)
	go e.loop(compositor.WithIdle(ctx, e.idle), takeDir, s) // ends when stop closes (finish) or ctx ends
	return e
}

// loop looks at the take every earlyEvery (or less often when a look is
// costly) and starts the next settled chunk when none is in hand. The
// chunk is made on a goroutine of its own, so that finish need not wait
// for it.
func (e *earlyRender) loop(ctx context.Context, takeDir string, s compositor.Settings) {
	defer e.wg.Done()
	for {
		e.mu.Lock()
		wait := max(earlyEvery, earlyCostFactor*e.lookCost)
		e.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-e.stop:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		e.mu.Lock()
		start := !e.inHand && !e.failed && e.going()
		e.inHand = e.inHand || start
		e.mu.Unlock()
		if start {
			e.wg.Add(1)
			go func() {
				defer e.wg.Done()
				e.once(ctx, takeDir, s)
			}()
		}
	}
}

// once starts the first settled chunk of the take so far that is neither
// rendered nor in hand, if any, and waits for it.
func (e *earlyRender) once(ctx context.Context, takeDir string, s compositor.Settings) {
	began := time.Now()
	started := false
	n, whole, err := func() (int, int, error) {
		tl, err := timeline.Recover(takeDir)
		if err != nil || tl.Capture.Frames.Delivered == 0 {
			return 0, 0, nil // not started yet
		}
		e.mu.Lock()
		have := e.have
		e.mu.Unlock()
		return compositor.RenderEarly(ctx, &timeline.Take{Dir: filepath.Clean(takeDir), Timeline: tl}, s, e.cache, have, func() bool {
			if started || !e.going() {
				return false
			}
			e.mu.Lock()
			e.lookCost = time.Since(began)
			e.mu.Unlock()
			started = true
			return true
		})
	}()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.inHand = false
	e.chunks += n
	if !started {
		e.lookCost = time.Since(began)
	}
	if err != nil && !e.failed && e.going() { // once the capture is over, the final render tells its own
		e.logf("rendering while capturing: %v (the video is rendered at the end)", err)
		e.failed = true
	}
	if !started && err == nil && e.going() {
		e.have = max(e.have, whole) // every whole chunk is in the cache
	}
}

// going says whether the capture is still on.
func (e *earlyRender) going() bool {
	select {
	case <-e.stop:
		return false
	default:
		return true
	}
}

// finish stops rendering early and returns the cache for the final render
// at once; nil-safe. The chunks in hand go on, in the normal scheduling
// class (the capture is over), and the final render waits for each when
// it comes to it instead of making it again; it makes the others
// meanwhile.
func (e *earlyRender) finish() *compositor.ChunkCache {
	if e == nil {
		return nil
	}
	close(e.stop)
	e.idle.End()
	return e.cache
}

// used waits for the chunks in hand and says, after the final render, how
// many of the chunks rendered while capturing it took (the others the
// finished take changed); nil-safe.
func (e *earlyRender) used() {
	if e == nil {
		return
	}
	e.wg.Wait()
	e.logf("%d video chunks rendered while capturing", e.chunks)
	if e.chunks > 0 {
		e.logf("%d of the %d video chunks rendered while capturing were used", e.cache.Used.Load(), e.chunks)
	}
}

// remove waits for the chunks in hand (a failed or interrupted final render
// leaves them running) and deletes the cache; nil-safe.
func (e *earlyRender) remove() {
	if e != nil {
		e.wg.Wait()
		_ = e.cache.Remove()
	}
}
