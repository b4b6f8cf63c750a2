package compositor

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// Early renders a run's video chunks while the take is captured, from
// the take as far as its journal and frame index go, so the video is
// finished soon after the last step. The final render uses a chunk only
// when the finished take gives it the same inputs (ChunkCache).
type Early struct {
	cache *ChunkCache
	idle  *Idle // its ffmpeg, until the capture ends
	stop  chan struct{}
	wg    sync.WaitGroup
	logf  func(string, ...any)

	mu       sync.Mutex
	chunks   int  // rendered while capturing
	have     int  // whole chunks found rendered (renderEarly)
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
// of idle in studio, measured no better (docs/internals.md), and two in
// hand cost a live capture some of the page's frames.
const (
	earlyEvery      = 250 * time.Millisecond
	earlyCostFactor = 8
)

// StartEarly begins rendering a run's video while its take is captured
// in takeDir, filmed in mode, or returns nil (every method is nil-safe)
// when the video is not rendered in chunks (WebM, PNG frames, a take
// filmed live: Chunked) or no cache can be made. Its ffmpeg
// runs only on cores the capture leaves idle (Idle): a frame the encoder
// delayed would be a slower capture.
func StartEarly(ctx context.Context, takeDir, mode string, outs []string, s Settings, logf func(string, ...any)) *Early {
	if !Chunked(mode, outs) {
		return nil
	}
	cache, err := NewChunkCache()
	if err != nil {
		logf("rendering while capturing is off: %v", err)
		return nil
	}
	e := &Early{cache: cache, stop: make(chan struct{}), logf: logf, idle: &Idle{}}
	e.wg.Add(1)
	go e.loop(WithIdle(ctx, e.idle), takeDir, s) // ends when stop closes (finish) or ctx ends
	return e
}

// loop looks at the take every earlyEvery (or less often when a look is
// costly) and starts the next settled chunk when none is in hand. The
// chunk is made on a goroutine of its own, so that finish need not wait
// for it.
func (e *Early) loop(ctx context.Context, takeDir string, s Settings) {
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
func (e *Early) once(ctx context.Context, takeDir string, s Settings) {
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
		return renderEarly(ctx, &timeline.Take{Dir: filepath.Clean(takeDir), Timeline: tl}, s, e.cache, have, func() bool {
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
func (e *Early) going() bool {
	select {
	case <-e.stop:
		return false
	default:
		return true
	}
}

// Finish stops rendering early and returns the cache for the final render
// at once; nil-safe. The chunks in hand go on, in the normal scheduling
// class (the capture is over), and the final render waits for each when
// it comes to it instead of making it again; it makes the others
// meanwhile.
func (e *Early) Finish() *ChunkCache {
	if e == nil {
		return nil
	}
	close(e.stop)
	e.idle.End()
	return e.cache
}

// Report waits for the chunks in hand and says, after the final render, how
// many of the chunks rendered while capturing it took (the others the
// finished take changed); nil-safe.
func (e *Early) Report() {
	if e == nil {
		return
	}
	e.wg.Wait()
	e.logf("%d video chunks rendered while capturing", e.chunks)
	if e.chunks > 0 {
		e.logf("%d of the %d video chunks rendered while capturing were used", e.cache.Used.Load(), e.chunks)
	}
}

// Remove waits for the chunks in hand (a failed or interrupted final render
// leaves them running) and deletes the cache; nil-safe.
func (e *Early) Remove() {
	if e != nil {
		e.wg.Wait()
		_ = e.cache.Remove()
	}
}
