package compositor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/ownerlock"
	"github.com/clapper-dev/clapper/timeline"
)

// LookAhead is how far past a chunk's end the take must be known before
// the chunk is rendered early: the cursor's easing toward the next input,
// a click's ripple and an automatic zoom's motion all reach about this far.
const LookAhead = 1500 * time.Millisecond

// earlyTicks is how many leading ticks of sched are settled when the take
// is known up to known: the ticks whose take time is at least LookAhead
// before it. Pure.
func earlyTicks(sched *Schedule, known timeline.Time) int {
	return sched.TicksBefore(known - timeline.FromDuration(LookAhead))
}

// RenderEarly renders into cache the MP4 chunks of tk (a take still being
// captured, as far as it is known: timeline.Recover of its folder) that lie
// wholly before the take's last known time less LookAhead, with settings s,
// and returns how many chunks it rendered. A chunk is kept by its inputs'
// digest, so the final render (RenderAllCached) uses it only when the
// finished take gives it exactly the same frames, overlays and camera;
// otherwise it renders it again. Chunks already in cache are skipped.
func RenderEarly(ctx context.Context, tk *timeline.Take, s Settings, cache *ChunkCache) (int, error) {
	s, err := s.normalize()
	if err != nil {
		return 0, fmt.Errorf("render settings: %w", err)
	}
	if tk == nil || tk.Timeline == nil || cache == nil {
		return 0, errors.New("render early: no take or no cache")
	}
	bin, err := LookFFmpeg(s.FFmpeg)
	if err != nil {
		return 0, err
	}
	ti, err := scanFrames(tk)
	if err != nil {
		return 0, err
	}
	known := ti.last.Source
	if tk.Timeline.End > 0 && tk.Timeline.End < known {
		known = tk.Timeline.End
	}
	p, err := newPlan(tk, ti, s, s.FPS, s.Width, s.Height)
	if err != nil {
		return 0, err
	}
	upTo := earlyTicks(p.schedule, known)
	if upTo < chunkSeconds*p.schedule.FPS() {
		return 0, nil
	}
	SweepWorkDirs(os.TempDir())
	work, err := os.MkdirTemp("", strings.TrimSuffix(workPattern, "*"))
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(work)
	if _, _, err := ownerlock.Acquire(filepath.Join(work, workOwner), "clapper render"); err != nil {
		return 0, err
	}
	sp, err := prepare(tk, p, s, filepath.Join(work, "main"))
	if err != nil {
		return 0, err
	}
	n := 0
	out := outputSpec{Format: formatMP4, CRF: s.CRF, Preset: s.X264Preset}
	_, err = encodeChunks(ctx, bin, tk, p.schedule, sp, out, filepath.Join(work, "main"), cache, upTo, nil, func() { n++ })
	return n, err
}
