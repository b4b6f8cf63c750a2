package main

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
	cache  *compositor.ChunkCache
	idle   compositor.Idle // its ffmpeg, until the capture ends
	stop   chan struct{}
	wg     sync.WaitGroup
	chunks int // rendered while capturing
	have   int // whole chunks found rendered (compositor.RenderEarly)
	logf   func(string, ...any)
}

// earlyEvery is how often the take is looked at again when no chunk was
// ready: as often as the journal is flushed, so that a chunk of a short
// take is started as soon as it is known. A look that costs more (a long
// take's frame index is read whole) waits earlyCostFactor times its cost,
// so looking takes a small share of a core.
const (
	earlyEvery      = 250 * time.Millisecond
	earlyCostFactor = 8
)

// startEarlyRender begins rendering early, or returns nil when the outputs
// are not chunked (WebM, PNG frames) or no cache can be made.
func startEarlyRender(ctx context.Context, takeDir string, outs []string, s compositor.Settings, logf func(string, ...any)) *earlyRender {
	if !compositor.Chunked(outs) {
		return nil
	}
	cache, err := compositor.NewChunkCache()
	if err != nil {
		logf("rendering while capturing is off: %v", err)
		return nil
	}
	e := &earlyRender{cache: cache, stop: make(chan struct{}), logf: logf}
	e.wg.Add(1)
	go e.loop(ctx, takeDir, s, logf) // ends when stop closes (finish) or ctx ends
	return e
}

func (e *earlyRender) loop(ctx context.Context, takeDir string, s compositor.Settings, logf func(string, ...any)) {
	defer e.wg.Done()
	wait := earlyEvery
	quiet := false
	for {
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
		for {
			began := time.Now()
			n, err := e.once(ctx, takeDir, s)
			e.chunks += n
			if err != nil && !quiet {
				logf("rendering while capturing: %v (the video is rendered at the end)", err)
				quiet = true
			}
			if n == 0 || err != nil {
				wait = max(earlyEvery, earlyCostFactor*time.Since(began))
				break
			}
			select {
			case <-e.stop:
				return
			default:
			}
		}
	}
}

// once renders the next settled chunk, if any, of the take so far.
func (e *earlyRender) once(ctx context.Context, takeDir string, s compositor.Settings) (int, error) {
	tl, err := timeline.Recover(takeDir)
	if err != nil || tl.Capture.Frames.Delivered == 0 {
		return 0, nil // not started yet
	}
	n, whole, err := compositor.RenderEarly(compositor.WithIdle(ctx, &e.idle), &timeline.Take{Dir: filepath.Clean(takeDir), Timeline: tl}, s, e.cache, e.have, 1)
	if n == 0 && err == nil {
		e.have = whole // every whole chunk is in the cache
	}
	return n, err
}

// finish stops rendering early (after the chunk in hand, which goes on in
// the normal scheduling class: it is all that is left to wait for) and
// returns the cache for the final render; nil-safe.
func (e *earlyRender) finish() *compositor.ChunkCache {
	if e == nil {
		return nil
	}
	close(e.stop)
	e.idle.End()
	e.wg.Wait()
	e.logf("%d video chunks rendered while capturing", e.chunks)
	return e.cache
}

// used says, after the final render, how many of the chunks rendered while
// capturing it took (the others the finished take changed); nil-safe.
func (e *earlyRender) used() {
	if e != nil && e.chunks > 0 {
		e.logf("%d of the %d video chunks rendered while capturing were used", e.cache.Used.Load(), e.chunks)
	}
}

// remove deletes the cache; nil-safe.
func (e *earlyRender) remove() {
	if e != nil {
		_ = e.cache.Remove()
	}
}
