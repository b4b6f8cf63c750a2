package compositor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// LookAhead is how far past a chunk's end the take must be known before
// the chunk is rendered early. An input moves the cursor over at most 120 ms
// after it, and ripples, captions, keys and zoom motions start at their
// receipt or step; what could still reach back (a zoom held to the take's
// end, an open step that becomes a cut) is caught by the chunk's digest.
const LookAhead = time.Second

// earlyTicks is how many leading ticks of sched are settled when the take
// is known up to known: the ticks whose take time is at least LookAhead
// before it. Pure.
func earlyTicks(sched *Schedule, known timeline.Time) int {
	return sched.TicksBefore(known - timeline.FromDuration(LookAhead))
}

// knownUpTo is how far a take still being captured is known: its end as
// recovered (the latest of its journal's records and its frames), else its
// last frame's time. A still page stores no frame for seconds, in studio
// mode above all (a repeat is not stored), while its steps go on: the
// journal says the take got that far. A frame still on its way to the
// index is caught by the chunk's digest. Pure.
func knownUpTo(tl *timeline.Timeline, last timeline.Frame) timeline.Time {
	if tl.End > 0 {
		return max(tl.End, last.Source)
	}
	return last.Source
}

// RenderEarly renders into cache the MP4 chunks of tk (a take still being
// captured, as far as it is known: timeline.Recover of its folder) that lie
// wholly before the take's last known time less LookAhead, with settings s,
// and returns how many chunks it rendered: at most max (0: no limit), so a
// caller that must stop waits for one chunk at most. A chunk is kept by its inputs'
// digest, so the final render (RenderAllCached) uses it only when the
// finished take gives it exactly the same frames, overlays and camera;
// otherwise it renders it again. Chunks already in cache are skipped.
func RenderEarly(ctx context.Context, tk *timeline.Take, s Settings, cache *ChunkCache, max int) (int, error) {
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
	known := knownUpTo(tk.Timeline, ti.last)
	p, err := newPlan(tk, ti, s, s.FPS, s.Width, s.Height)
	if err != nil {
		return 0, err
	}
	upTo := earlyTicks(p.schedule, known)
	if upTo < chunkSeconds*p.schedule.FPS() {
		return 0, nil
	}
	work, err := newWorkDir("clapper render")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(work)
	sp, err := prepare(tk, p, s, filepath.Join(work, "main"))
	if err != nil {
		return 0, err
	}
	n := 0
	out := outputSpec{Format: formatMP4, CRF: s.CRF, Preset: s.X264Preset}
	_, err = encodeChunks(ctx, bin, tk, p.schedule, sp, out, filepath.Join(work, "main"), cache, upTo, nil, func() bool { n++; return max <= 0 || n < max })
	return n, err
}

// Chunked reports whether the video outputs outs are rendered in chunks,
// and so can be rendered early: every one that is not a GIF is an MP4
// (WebM and PNG frames are rendered in one ffmpeg run at the end, GIFs in
// their two passes at the end).
func Chunked(outs []string) bool {
	var videos []outputSpec
	for _, o := range outs {
		f, err := formatOf(o)
		if err != nil {
			return false
		}
		if f != formatGIF {
			videos = append(videos, outputSpec{Format: f})
		}
	}
	return onlyMP4(videos)
}

// NewChunkCache makes an empty cache in the temporary folder, owned by
// this process (a killed run's cache is swept like a render's working
// folder); remove it with os.RemoveAll(c.Dir).
func NewChunkCache() (*ChunkCache, error) {
	dir, err := newWorkDir("clapper run")
	if err != nil {
		return nil, err
	}
	return &ChunkCache{Dir: filepath.Join(dir, "chunks")}, nil
}

// Remove deletes the cache and its folder.
func (c *ChunkCache) Remove() error { return os.RemoveAll(filepath.Dir(c.Dir)) }
