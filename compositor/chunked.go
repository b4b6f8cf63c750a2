package compositor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// ChunkCache holds encoded chunks by the digest of everything their ffmpeg
// run reads, so a chunk rendered while the take was still being captured is
// used by the final render only when its inputs are exactly the final ones.
type ChunkCache struct {
	Dir string
	// Used counts the chunks final renders (RenderAllCached) took from
	// the cache instead of making them.
	Used atomic.Int64

	mu   sync.Mutex
	busy map[string]chan struct{} // chunks being made, by key; closed when done
}

func (c *ChunkCache) path(key string) string { return filepath.Join(c.Dir, key+".mp4") }

// claim takes the making of the chunk with this key: mine is true when the
// caller is to make it (and then release it), false when the cache holds
// it (wait is nil) or another render is making it (wait closes when that
// one is done, made or not: claim again then). A nil cache is always mine.
func (c *ChunkCache) claim(key string) (mine bool, wait <-chan struct{}) {
	if c == nil {
		return true, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.busy[key]; ok {
		return false, ch
	}
	if c.has(key) {
		return false, nil
	}
	if c.busy == nil {
		c.busy = map[string]chan struct{}{}
	}
	c.busy[key] = make(chan struct{})
	return true, nil
}

// release ends the caller's claim on key, made or not.
func (c *ChunkCache) release(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.busy[key]; ok {
		close(ch)
		delete(c.busy, key)
	}
}

// await claims key, waiting while another render makes it: it returns
// true when the caller is to make the chunk, false when the cache has it.
func (c *ChunkCache) await(ctx context.Context, key string) (mine bool, err error) {
	for {
		mine, wait := c.claim(key)
		if mine || wait == nil {
			return mine, nil
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return false, context.Cause(ctx)
		}
	}
}

// has reports whether the cache holds the chunk with this key.
func (c *ChunkCache) has(key string) bool {
	if c == nil {
		return false
	}
	_, err := os.Stat(c.path(key))
	return err == nil
}

// chunkRuns pulls resampled runs and cuts them at chunk boundaries.
type chunkRuns struct {
	next func() (timeline.Frame, error, bool)
	rs   *Resampler
	pend Run
	have bool
	done bool
}

func newChunkRuns(tk *timeline.Take, sched *Schedule) (*chunkRuns, func()) {
	next, stop := iter.Pull2(tk.Frames())
	return &chunkRuns{next: next, rs: NewResampler(sched)}, stop
}

// take returns the runs covering ticks [c.First, c.First+c.Count).
func (cr *chunkRuns) take(c chunk) ([]Run, error) {
	end := c.First + c.Count
	var out []Run
	for {
		if cr.have {
			r := cr.pend
			if r.First >= end {
				return out, nil
			}
			if r.First+r.Count > end {
				out = append(out, Run{Frame: r.Frame, First: r.First, Count: end - r.First})
				cr.pend = Run{Frame: r.Frame, First: end, Count: r.First + r.Count - end}
				return out, nil
			}
			out = append(out, r)
			cr.have = false
		}
		if cr.done {
			return out, nil
		}
		fr, err, ok := cr.next()
		switch {
		case !ok:
			cr.done = true
			cr.pend, cr.have = cr.rs.Flush()
		case err != nil:
			return nil, feedError{err}
		default:
			cr.pend, cr.have = cr.rs.Push(fr)
		}
	}
}

// chunkKey digests one chunk's ffmpeg run: its arguments and graph (paths
// inside dir named relatively), the files it reads from dir (those its
// arguments name, and reads: those only its graph names, the cut overlay),
// and the frames it is fed. A graph passed as a script file is digested as
// the graph, not as that file, whose paths are the render's own.
func chunkKey(args []string, graph, dir string, reads []string, runs []Run) (string, error) {
	h := sha256.New()
	digest := func(file string) error {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(h, f)
		return err
	}
	for i, a := range args {
		fmt.Fprintf(h, "%q\n", strings.ReplaceAll(a, dir, "@"))
		script := i > 0 && args[i-1] == "-filter_complex_script"
		if strings.HasPrefix(a, dir) && !strings.HasSuffix(a, ".mp4") && !script {
			if err := digest(a); err != nil {
				return "", err
			}
		}
	}
	fmt.Fprintf(h, "%q\n", strings.ReplaceAll(graph, dir, "@"))
	for _, file := range reads {
		fmt.Fprintf(h, "%q\n", strings.ReplaceAll(file, dir, "@"))
		if err := digest(file); err != nil {
			return "", err
		}
	}
	for _, r := range runs {
		fmt.Fprintf(h, "%d %s %d %d %d\n", r.Frame.Seq, r.Frame.File, r.Frame.Source, r.First, r.Count)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// chunkWorkers is how many chunks the final render encodes at once. Each
// ffmpeg's filter graph runs on one thread, so on two cores two chunks side
// by side go nearly twice as fast as one after the other.
const chunkWorkers = 2

// chunkThreads is each chunk encoder's threads. Two chunks at a time on one
// thread each spend less of the machine, in wall and CPU time, than two
// on ffmpeg's default threads, which contend for the same two cores
// (docs/internals.md, "Chunk encoders"). While capturing, one chunk at a
// time keeps to one core.
const chunkThreads = 1

// chunkJob is one chunk ready to encode: its ffmpeg arguments, the runs of
// frames it is fed, where it lands and its cache key.
type chunkJob struct {
	i     int
	args  []string
	runs  []Run
	path  string
	key   string
	ticks int
}

// encodeChunks renders the MP4 video of sp in chunks (planChunks), each its
// own ffmpeg run starting on a key frame with the same encoder settings,
// and returns the chunk files in order. Chunks found in cache are not
// rendered again; rendered ones are added to it. sp's frame picture is
// shared; its overlay script is cut to each chunk. Chunks are prepared in
// order (the resampler runs once over the frame index) and encoded by
// chunkWorkers ffmpeg runs at a time (one, in order, while capturing). A
// chunk another render is making
// (one made while capturing, still running when the capture ended) is
// waited for, not made twice. early is nil for a final render; rendering
// while capturing, it is asked before each chunk is started whether to
// start it, and the chunks it does not start are left for the final
// render. made is how many chunks this call encoded.
func encodeChunks(ctx context.Context, bin string, tk *timeline.Take, sched *Schedule, sp encodeSpec, out outputSpec, dir string, cache *ChunkCache, upTo int, progress func(done int), early func() bool) (files []string, made int, err error) {
	cr, stop := newChunkRuns(tk, sched)
	defer stop()
	workers := chunkWorkers
	if early != nil {
		workers = 1 // while capturing, on one core, in order
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var mu sync.Mutex // guards files (by chunk, "" until made) and the rest
	var doneBy []int  // ticks done, by chunk
	var first error
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel()
	}
	report := func(i, n int) {
		mu.Lock()
		defer mu.Unlock()
		doneBy[i] = n
		if progress != nil {
			total := 0
			for _, d := range doneBy {
				total += d
			}
			progress(total)
		}
	}
	enough := false // early said to stop
	useCached := func(j chunkJob) {
		if early == nil { // a final render, not one while capturing
			cache.Used.Add(1)
		}
		mu.Lock()
		files[j.i] = cache.path(j.key)
		mu.Unlock()
		report(j.i, j.ticks)
	}
	// do makes chunk j, or takes it from the cache. A chunk another render
	// is making is skipped rendering early; a final render puts it off
	// (later) while there are others to make, and then waits for it: a
	// worker does not sit idle behind it.
	var later []chunkJob
	do := func(j chunkJob, wait bool) {
		mu.Lock()
		skip := enough
		mu.Unlock()
		if skip { // rendering early was told to stop: left for later
			return
		}
		mine, busy := cache.claim(j.key)
		if !mine && busy != nil {
			if early != nil {
				return
			}
			if !wait {
				mu.Lock()
				later = append(later, j)
				mu.Unlock()
				return
			}
			var err error
			if mine, err = cache.await(ctx, j.key); err != nil {
				fail(err)
				return
			}
		}
		if !mine {
			useCached(j)
			return
		}
		if early != nil {
			mu.Lock()
			if !enough && !early() {
				enough = true
			}
			skip := enough
			mu.Unlock()
			if skip {
				cache.release(j.key)
				return
			}
		}
		err := encodeRuns(ctx, bin, tk, j.args, j.runs, sp, func(n int) { report(j.i, n) })
		if err == nil && cache != nil {
			if err := os.MkdirAll(cache.Dir, 0o755); err == nil {
				_ = os.Link(j.path, cache.path(j.key))
			}
		}
		cache.release(j.key)
		if err != nil {
			fail(err)
			return
		}
		mu.Lock()
		files[j.i] = j.path
		made++
		mu.Unlock()
	}
	jobs := make(chan chunkJob)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				do(j, false)
			}
			for {
				mu.Lock()
				if len(later) == 0 {
					mu.Unlock()
					return
				}
				j := later[0]
				later = later[1:]
				mu.Unlock()
				do(j, true)
			}
		}()
	}
	err = func() error {
		defer close(jobs)
		for i, c := range planChunks(sched.Ticks(), sched.FPS()) {
			if c.First+c.Count > upTo {
				return nil
			}
			j, err := prepareChunk(i, c, cr, sched, sp, out, dir)
			if err != nil {
				return err
			}
			mu.Lock()
			stopNow := enough || first != nil
			if !stopNow {
				files, doneBy = append(files, ""), append(doneBy, 0)
			}
			mu.Unlock()
			if stopNow {
				return nil
			}
			if cache.has(j.key) {
				useCached(j)
				continue
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		return nil
	}()
	wg.Wait()
	if first != nil { // a failed chunk, not the others it cut short
		return nil, made, first
	}
	if err != nil {
		return nil, made, err
	}
	// A chunk not made (rendering early stopped) ends the list: what is
	// returned is the leading chunks, in order. A final render makes
	// every chunk or fails.
	for i, f := range files {
		if f == "" {
			if early == nil {
				return nil, made, fmt.Errorf("chunk %d of %d was not made", i, len(files))
			}
			return files[:i], made, nil
		}
	}
	return files, made, nil
}

// prepareChunk writes chunk i's graph and cut overlay into its folder and
// returns its job: the runs of frames that feed it (taken in order from
// cr) and its cache key.
func prepareChunk(i int, c chunk, cr *chunkRuns, sched *Schedule, sp encodeSpec, out outputSpec, dir string) (chunkJob, error) {
	runs, err := cr.take(c)
	if err != nil {
		return chunkJob{}, err
	}
	cdir := filepath.Join(dir, fmt.Sprintf("chunk%05d", i))
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return chunkJob{}, err
	}
	csp := sp
	csp.PTSOffset = c.First
	csp.Ticks = c.Count
	csp.GraphFile = filepath.Join(cdir, "graph.txt")
	csp.Varied = false // of the pictures this chunk is fed (decoded whole: an MP4)
	for _, r := range runs {
		csp.Varied = csp.Varied || r.Frame.Width != sp.Geometry.CaptureW || r.Frame.Height != sp.Geometry.CaptureH
	}
	if sp.Zoom != nil {
		csp.Zoom = sp.Zoom.cut(c)
		csp.Starts = runStarts(runs, c.First)
		if !csp.tune.zoomWholeChunks && csp.Zoom.whole() {
			// The same picture without zoompan, and the same graph
			// as a chunk rendered early before the take had a zoom.
			csp.Zoom, csp.Starts = nil, nil
		}
	}
	if sp.Overlay != "" {
		csp.Overlay = filepath.Join(cdir, "overlay.ass")
		if err := cutOverlayFile(sp.Overlay, csp.Overlay, sched, c); err != nil {
			return chunkJob{}, err
		}
	}
	o := out
	o.Chapters = ""
	o.Threads = chunkThreads
	o.Path = filepath.Join(cdir, "video.mp4")
	csp.Outputs = []outputSpec{o}
	args, graph, err := buildArgs(csp)
	if err != nil {
		return chunkJob{}, err
	}
	if err := writeGraph(args, graph); err != nil {
		return chunkJob{}, err
	}
	key, err := chunkKey(args, graph, dir, graphReads(csp), runs)
	if err != nil {
		return chunkJob{}, err
	}
	return chunkJob{i: i, args: args, runs: runs, path: o.Path, key: key, ticks: c.Count}, nil
}

// runStarts returns the ticks, from first, where each of runs starts.
func runStarts(runs []Run, first int) []int {
	out := make([]int, 0, len(runs))
	for _, r := range runs {
		out = append(out, r.First-first)
	}
	return out
}

// cutOverlayFile writes the overlay script src cut to chunk c into dst.
func cutOverlayFile(src, dst string, sched *Schedule, c chunk) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeFile(dst, func(w io.Writer) error {
		return cutASS(in, w, time.Duration(sched.tickOutput(c.First)), time.Duration(sched.tickOutput(c.First+c.Count)))
	})
}

// encodeRuns runs one ffmpeg fed the given runs of frames, at fps.
func encodeRuns(ctx context.Context, bin string, tk *timeline.Take, args []string, runs []Run, sp encodeSpec, progress func(done int)) error {
	done := 0
	return runFFmpeg(ctx, bin, args, sp.tune, func(w io.Writer) error {
		fd := newFeed(w, sp.FPS)
		for _, run := range runs {
			if err := fd.run(ctx, tk, run); err != nil {
				return err
			}
			done += run.Count
			progress(done)
		}
		return fd.close()
	})
}

// writeGraph writes the filter graph where the arguments name a script.
func writeGraph(args []string, graph string) error {
	for i, a := range args {
		if a == "-filter_complex_script" {
			if err := os.WriteFile(args[i+1], []byte(graph), 0o644); err != nil {
				return fmt.Errorf("filter graph: %w", err)
			}
		}
	}
	return nil
}

// joinArgs are ffmpeg's arguments that join chunk files (listed in list)
// into out without re-encoding, carrying chapters when given. Pure.
func joinArgs(list string, out outputSpec) []string {
	args := []string{"-hide_banner", "-nostats", "-loglevel", "error", "-y",
		"-f", "concat", "-safe", "0", "-i", list}
	if out.Chapters != "" {
		args = append(args, "-f", "ffmetadata", "-i", out.Chapters)
	}
	args = append(args, "-map", "0:v", "-c", "copy")
	if out.Chapters != "" {
		args = append(args, "-map_metadata", "1", "-map_chapters", "1")
	}
	return append(args, "-movflags", "+faststart", "-f", "mp4", out.Path)
}

// joinChunks joins the chunk files into out.
func joinChunks(ctx context.Context, bin string, files []string, out outputSpec, dir string, tune tuning) error {
	list := filepath.Join(dir, "chunks.txt")
	if err := writeFile(list, func(w io.Writer) error {
		for _, f := range files {
			if _, err := fmt.Fprintf(w, "file '%s'\n", strings.ReplaceAll(f, "'", `'\''`)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return runFFmpeg(ctx, bin, joinArgs(list, out), tune, func(io.Writer) error { return nil })
}
