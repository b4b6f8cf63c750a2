package compositor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// LookAhead is how far past a chunk's end the take must be known before
// the chunk is rendered early. An input moves the cursor over at most 120
// ms after it, and ripples, captions, keys and zoom motions start at their
// receipt or step; what could still reach back (a zoom held to the take's
// end, a running step that becomes a cut) is kept out by knownUpTo, or
// caught by the chunk's digest. Half a second leaves the cursor's 120 ms
// and a receipt sent before the journal's last record but written after it.
//
// StudioLookAhead is LookAhead for a studio take. Its clock stands while
// the session works (a command in flight holds each frame for its
// answer), so a receipt is written within a frame or two of its time, not
// after a real-time delay; the cursor's 120 ms and a few frames are left.
// On the quickstart this starts the first chunk about a second sooner: the
// studio capture of its typing runs at a third of real time.
const (
	LookAhead       = 500 * time.Millisecond
	StudioLookAhead = 200 * time.Millisecond
)

// earlyTicks is how many leading ticks of sched are settled when the take
// is known up to known: the ticks whose take time is at least the look-ahead
// of the take's capture mode before it. Pure.
func earlyTicks(sched *Schedule, known timeline.Time, mode string) int {
	ahead := LookAhead
	if mode == timeline.CaptureStudio {
		ahead = StudioLookAhead
	}
	return sched.TicksBefore(known - timeline.FromDuration(ahead))
}

// knownUpTo is how far a take still being captured is known: as far as
// its journal goes (timeline.Recovery.Journaled), where its steps and input
// are, and no further than the start of a running step whose end can
// change the video before it (reachesBack). Its frames are indexed as they
// are stored and may go further, but the cursor, ripples and zoom of those
// ticks come from receipts the journal has not flushed yet: a chunk
// rendered from them was always made again. A still page stores no frame
// for seconds, in studio mode above all (a repeat is not stored), while the
// journal goes on. A frame still on its way to the index is caught by the
// chunk's digest. Pure.
func knownUpTo(tl *timeline.Timeline) timeline.Time {
	if tl.Recovered == nil {
		return tl.End
	}
	known := tl.Recovered.Journaled
	for _, st := range tl.Steps {
		if slices.Contains(tl.Recovered.Open, st.Index) && reachesBack(st) {
			known = min(known, st.Start)
		}
	}
	return known
}

// reachesBack reports whether a step still running may change the video
// from its start on once it ends: a wait (played faster when it turns out
// long), a cut or hidden step, a zoom, and a step on an element whose box is
// not known yet (the camera eases toward it from the step's start). Pure.
func reachesBack(st timeline.Step) bool {
	return st.Traits.Waits || st.Traits.Cut || st.Hidden || st.Kind == kindZoom || st.Traits.Focus && st.Region == nil
}

// renderEarly renders into cache the MP4 chunks of tk (a take still being
// captured, as far as it is known: timeline.Recover of its folder) that lie
// wholly before the take's last known time less the look-ahead of its
// capture mode (LookAhead, StudioLookAhead), with settings s, one at a
// time.
// goOn (nil: always) is asked before each chunk is started; a chunk it
// refuses is left for the final render, so a caller that must stop waits
// for no new chunk. It returns how many chunks it rendered and how many
// whole chunks the take has so far. When that is no more than have (the
// whole chunks a call before found or made) it returns at once, without
// preparing the overlays: a caller may ask often. A chunk is kept by its
// inputs' digest, so the final render (RenderAllCached) uses it only when
// the finished take gives it exactly the same frames, overlays and camera;
// otherwise it renders it again. A final render that needs a chunk still
// being made here waits for it. Chunks already in cache are skipped.
func renderEarly(ctx context.Context, tk *timeline.Take, s Settings, cache *ChunkCache, have int, goOn func() bool) (rendered, whole int, err error) {
	s, err = s.normalize()
	if err != nil {
		return 0, 0, fmt.Errorf("render settings: %w", err)
	}
	if tk == nil || tk.Timeline == nil || cache == nil {
		return 0, 0, errors.New("render early: no take or no cache")
	}
	bin, err := LookFFmpeg(s.FFmpeg)
	if err != nil {
		return 0, 0, err
	}
	ti, err := scanFrames(tk)
	if err != nil {
		return 0, 0, err
	}
	p, err := newPlan(tk, ti, s, s.FPS, s.Width, s.Height)
	if err != nil {
		return 0, 0, err
	}
	upTo := earlyTicks(p.schedule, knownUpTo(tk.Timeline), tk.Timeline.Capture.Mode)
	whole = wholeChunks(upTo, p.schedule.FPS())
	if whole <= have {
		return 0, whole, nil
	}
	// Only whole chunks: the last chunk of a take is cut otherwise.
	last := planChunks(upTo, p.schedule.FPS())[whole-1]
	upTo = last.First + last.Count
	work, err := newWorkDir("clapper render")
	if err != nil {
		return 0, whole, err
	}
	defer os.RemoveAll(work)
	sp, err := prepare(tk, p, s, filepath.Join(work, "main"))
	if err != nil {
		return 0, whole, err
	}
	out := outputSpec{Format: formatMP4, CRF: s.CRF, Preset: s.X264Preset}
	_, rendered, err = encodeChunks(ctx, bin, tk, p.schedule, sp, out, filepath.Join(work, "main"), cache, upTo, nil, func() bool { return goOn == nil || goOn() })
	return rendered, whole, err
}

// Chunked reports whether the video outputs outs of a take filmed in
// mode are rendered in chunks, and so can be rendered early: every one that
// is not a GIF is an MP4 (WebM and PNG frames are rendered in one ffmpeg
// run at the end, and GIFs at the end too), and the take is not filmed
// live (chunkedTake).
func Chunked(mode string, outs []string) bool {
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
	return chunkedTake(mode, videos)
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
