package compositor

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/clapper-dev/clapper/internal/ownerlock"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/timeline"
)

// plan is everything decided before ffmpeg starts, for one frame rate and
// one picture size.
type plan struct {
	settings Settings
	schedule *Schedule
	geometry Geometry
	track    *CursorTrack
	zoom     *ZoomTrack
	lowres   int  // the pictures are decoded at a 2^lowres-th of their size (encodeSpec.Lowres)
	varied   bool // some picture is not the first one's size (takeInfo.varied)
}

// takeInfo is what one streaming pass over the frame index finds.
type takeInfo struct {
	first, last timeline.Frame
	n           int
	// start is the first frame of the first real document when the take
	// opens on a blank lead-in (see findLeadIn); hasStart says it was found.
	start    timeline.Frame
	hasStart bool
	// varied says some frame is not the first one's size.
	varied bool
}

// scanFrames streams the frame index once (not the images).
func scanFrames(tk *timeline.Take) (takeInfo, error) {
	var ti takeInfo
	li, skip := findLeadIn(tk.Timeline)
	loaded := false
	for fr, err := range tk.Frames() {
		if err != nil {
			return ti, err
		}
		if ti.n == 0 {
			ti.first = fr
		}
		if skip && !loaded && li.shows(fr) {
			// The first frame after the load wins over an earlier one
			// after the commit.
			if loaded = li.loaded(fr); loaded || !ti.hasStart {
				ti.start, ti.hasStart = fr, true
			}
		}
		ti.varied = ti.varied || fr.Width != ti.first.Width || fr.Height != ti.first.Height
		ti.last = fr
		ti.n++
	}
	if ti.n == 0 {
		return ti, errors.New("take has no frames to render")
	}
	return ti, nil
}

// newPlan decides the schedule (cuts included), the geometry and the camera
// for rendering tk at fps into width x height (0 x 0: the capture size).
func newPlan(tk *timeline.Take, ti takeInfo, s Settings, fps, width, height int) (*plan, error) {
	tl := tk.Timeline
	start, end := tl.Start, tl.End
	if ti.hasStart && ti.start.Source > start && (end <= start || ti.start.Source < end) {
		start = ti.start.Source // no blank lead-in
	}
	if end <= start {
		// A take cut short may lack its end: run to the last frame.
		end = ti.last.Source + timeline.Time(second/int64(fps))
		if end <= start {
			end = start + timeline.Time(second/int64(fps))
		}
	}
	var cuts []Segment
	if s.Cuts {
		cuts = hiddenCuts(tl)
	}
	sched, err := NewPacedSchedule(fps, start, end, cuts, longWaits(tl, s.SpeedUp))
	if err != nil {
		return nil, err
	}
	fr := s.Frame
	geo, err := layout(ti.first.Width, ti.first.Height, tl.Viewport, width, height, s.Fit, fr)
	if err != nil {
		return nil, fmt.Errorf("frame %d: %w", ti.first.Seq, err)
	}
	vp := tl.Viewport
	if vp.Width <= 0 || vp.Height <= 0 {
		vp.Width, vp.Height = int(geo.ViewportW), int(geo.ViewportH)
	}
	return &plan{
		settings: s,
		schedule: sched,
		geometry: geo,
		track:    NewCursorTrack(filmedReceipts(tl), tl.Capture.Tab),
		zoom:     newZoomTrack(zoomShots(tl, s.Zoom), sched, vp, s.Zoom.Ease),
		varied:   ti.varied,
	}, nil
}

// Render renders the take to out with settings s; the format follows the
// extension (see RenderAll). progress, if not nil, is called on the calling
// goroutine as frames are handed to ffmpeg, with the frames done and the
// total; it must not block.
func Render(ctx context.Context, tk *timeline.Take, out string, s Settings, progress func(done, total int)) error {
	return RenderAll(ctx, tk, []string{out}, s, progress)
}

// formatOf returns the output format for a file name.
func formatOf(out string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(out)); ext {
	case ".mp4":
		return formatMP4, nil
	case ".webm":
		return formatWebM, nil
	case ".gif":
		return formatGIF, nil
	case ".png":
		return formatPNG, nil
	default:
		return "", fmt.Errorf("%s: unsupported output format %q (use .mp4, .webm, .gif or .png)", out, ext)
	}
}

// RenderAll renders the take once into every file in outs: .mp4 (H.264),
// .webm (VP9), .gif (a palette made from its own frames, at s.GIF's width
// and rate) and .png (PNG frames: NAME.png becomes the folder NAME/ of
// 000001.png...; a name holding a printf pattern such as shots/f%04d.png
// is used as it is). MP4s alone (GIFs aside) of a take not filmed live
// are rendered in chunks joined without re-encoding (encodeChunks:
// chunkedTake); otherwise the videos share one ffmpeg run. The GIFs share one more, or two when long (gifOnePass). Captions (.vtt) and chapters (.chapters.vtt) files land
// beside the first output.
//
// The take is never modified. Every file is written under a temporary name
// beside its destination and renamed into place only when all succeed; on
// any failure, or when ctx ends (ffmpeg is killed), they are removed.
func RenderAll(ctx context.Context, tk *timeline.Take, outs []string, s Settings, progress func(done, total int)) error {
	return RenderAllCached(ctx, tk, outs, s, progress, nil)
}

// RenderAllCached is RenderAll taking the MP4 video's chunks already in
// cache (rendered from the same inputs while the take was being captured,
// see ChunkCache) instead of rendering them again; nil is no cache.
func RenderAllCached(ctx context.Context, tk *timeline.Take, outs []string, s Settings, progress func(done, total int), cache *ChunkCache) error {
	s, err := s.normalize()
	if err != nil {
		return fmt.Errorf("render settings: %w", err)
	}
	if len(outs) == 0 {
		return errors.New("render: no output files")
	}
	if tk == nil || tk.Timeline == nil {
		return errors.New("render: no take")
	}
	var videos, gifs []outputSpec
	for _, o := range outs {
		f, err := formatOf(o)
		if err != nil {
			return fmt.Errorf("render %w", err)
		}
		spec := outputSpec{Format: f, Path: o, CRF: s.CRF, Preset: s.X264Preset}
		if f == formatGIF {
			gifs = append(gifs, spec)
		} else {
			videos = append(videos, spec)
		}
	}
	bin, err := LookFFmpeg(s.FFmpeg)
	if err != nil {
		return err
	}
	ti, err := scanFrames(tk)
	if err != nil {
		return fmt.Errorf("render %s: %w", tk.Dir, err)
	}
	var plans []*plan
	var main, gif *plan
	gifOne := false // the GIF is made in one pass (gifOnePass)
	if len(videos) > 0 {
		if main, err = newPlan(tk, ti, s, s.FPS, s.Width, s.Height); err != nil {
			return fmt.Errorf("render %s: %w", tk.Dir, err)
		}
		plans = append(plans, main)
	}
	if len(gifs) > 0 {
		gw, gh, k := gifSize(ti.first, s)
		gs := s
		// The frame keeps its proportions in the smaller picture.
		gs.Frame.Padding = int(float64(s.Frame.Padding) * k)
		gs.Frame.Radius = int(float64(s.Frame.Radius) * k)
		if gif, err = newPlan(tk, ti, gs, s.GIF.FPS, gw, gh); err != nil {
			return fmt.Errorf("render %s: %w", tk.Dir, err)
		}
		// (A take without its viewport, whose viewport the plan takes
		// from the pictures' size, keeps them whole.)
		if n := gifLowres(gif.geometry, gif.zoom.MaxZoom()); n > 0 && tk.Timeline.Viewport.Width > 0 && tk.Timeline.Viewport.Height > 0 {
			// Planned again on the decoded pictures' size.
			lt := ti
			lt.first.Width, lt.first.Height = decodedSize(ti.first.Width, n), decodedSize(ti.first.Height, n)
			if gif, err = newPlan(tk, lt, gs, s.GIF.FPS, gw, gh); err != nil {
				return fmt.Errorf("render %s: %w", tk.Dir, err)
			}
			gif.lowres = n
		}
		// Its ticks are counted for each pass.
		if gifOne = gifOnePass(gif.schedule.Ticks(), gif.geometry.OutW, gif.geometry.OutH, s.tune.gifOnePassLimit()); gifOne {
			plans = append(plans, gif)
		} else {
			plans = append(plans, gif, gif)
		}
	}
	total := 0
	for _, p := range plans {
		total += p.schedule.Ticks()
	}
	// The main video and the GIF run side by side, each its own ffmpeg
	// (a long GIF's two passes one after the other): on two cores the
	// encoder of one leaves room for the other. Progress is the sum.
	var pmu sync.Mutex
	var doneBy [2]int
	// reporter reports job's progress, after the first skip ticks of it.
	reporter := func(job, skip int) func(n int) {
		return func(n int) {
			pmu.Lock()
			defer pmu.Unlock()
			doneBy[job] = skip + n
			if progress != nil {
				progress(doneBy[0]+doneBy[1], total)
			}
		}
	}

	work, err := newWorkDir("clapper render")
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	defer os.RemoveAll(work)
	pub := &publisher{newOnly: s.NewFilesOnly}
	defer pub.abort()

	tl := tk.Timeline
	// Every output's temporary name is reserved before anything runs.
	var mainOuts, gifOuts []outputSpec
	for _, v := range videos {
		tmp, err := pub.reserve(v.Path, v.Format == formatPNG)
		if err != nil {
			return fmt.Errorf("render %s: %w", v.Path, err)
		}
		if v.Format == formatPNG {
			tmp = filepath.Join(tmp, pngPattern(v.Path))
		}
		v.Path = tmp
		mainOuts = append(mainOuts, v)
	}
	for _, g := range gifs {
		tmp, err := pub.reserve(g.Path, false)
		if err != nil {
			return fmt.Errorf("render %s: %w", g.Path, err)
		}
		g.Path = tmp
		gifOuts = append(gifOuts, g)
	}
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var jobs []func() error
	if main != nil {
		report := reporter(0, 0)
		jobs = append(jobs, func() error {
			sp, err := prepare(tk, main, s, filepath.Join(work, "main"))
			if err != nil {
				return fmt.Errorf("render: %w", err)
			}
			var chapFile string
			if s.Chapters && len(chapters(tl)) > 0 {
				chapFile = filepath.Join(work, "chapters.txt")
				if err := writeFile(chapFile, func(w io.Writer) error {
					return writeFFMetadata(w, chapters(tl), main.schedule, tl.Name)
				}); err != nil {
					return fmt.Errorf("render: chapters: %w", err)
				}
			}
			if chunkedTake(tl.Capture.Mode, mainOuts) {
				// MP4 is rendered in chunks, some of them perhaps while
				// the take was captured (cache), then joined.
				files, _, err := encodeChunks(jctx, bin, tk, main.schedule, sp, mainOuts[0], filepath.Join(work, "main"), cache, main.schedule.Ticks(), report, nil)
				if err != nil {
					return fmt.Errorf("render %s: %w", strings.Join(outs, ", "), err)
				}
				for _, v := range mainOuts {
					v.Chapters = chapFile
					if err := joinChunks(jctx, bin, files, v, work, sp.tune); err != nil {
						return fmt.Errorf("render %s: %w", v.Path, err)
					}
				}
				return nil
			}
			for _, v := range mainOuts {
				if v.Format == formatMP4 || v.Format == formatWebM {
					v.Chapters = chapFile
				}
				sp.Outputs = append(sp.Outputs, v)
			}
			if err := encode(jctx, bin, tk, main.schedule, sp, report); err != nil {
				return fmt.Errorf("render %s: %w", strings.Join(outs, ", "), err)
			}
			return nil
		})
	}
	if gif != nil {
		jobs = append(jobs, func() error {
			sp, err := prepare(tk, gif, gif.settings, filepath.Join(work, "gif"))
			if err != nil {
				return fmt.Errorf("render: %w", err)
			}
			sp.Lowres = gif.lowres
			skip := 0
			if gifOne {
				// Progress counts the frames given to ffmpeg; the palette and
				// the encode of a short GIF come after the last of them.
				sp.PaletteInGraph = true
			} else {
				skip = gif.schedule.Ticks() // the palette pass's
				palette := filepath.Join(work, "palette.png")
				pass := sp
				pass.Outputs = []outputSpec{{Format: formatPalette, Path: palette}}
				if err := encode(jctx, bin, tk, gif.schedule, pass, reporter(1, 0)); err != nil {
					return fmt.Errorf("render %s (palette): %w", gifs[0].Path, err)
				}
				sp.Palette = palette
			}
			sp.Outputs = append(sp.Outputs, gifOuts...)
			if err := encode(jctx, bin, tk, gif.schedule, sp, reporter(1, skip)); err != nil {
				return fmt.Errorf("render %s: %w", gifs[0].Path, err)
			}
			return nil
		})
	}
	// The first failure is the render's; it stops the other job, whose
	// own error then only says it was cut short.
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for _, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := job(); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("render interrupted: %w", ctx.Err())
	}
	if first != nil {
		return first
	}
	// Sidecars beside the first output, on the main (or GIF) schedule.
	p := main
	if p == nil {
		p = gif
	}
	base := strings.TrimSuffix(outs[0], filepath.Ext(outs[0]))
	if (s.Captions == "vtt" || s.Captions == "both") && len(captions(tl, s.StepLabels)) > 0 {
		if err := pub.writeSidecar(base+".vtt", func(w io.Writer) error {
			return writeCaptionsVTT(w, captions(tl, s.StepLabels), p.schedule)
		}); err != nil {
			return fmt.Errorf("render captions: %w", err)
		}
	}
	if s.Chapters && len(chapters(tl)) > 0 {
		if err := pub.writeSidecar(base+".chapters.vtt", func(w io.Writer) error {
			return writeChaptersVTT(w, chapters(tl), p.schedule)
		}); err != nil {
			return fmt.Errorf("render chapters: %w", err)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("render interrupted: %w", ctx.Err())
	}
	return pub.commit()
}

// defaultGIFOnePassBytes bounds what a GIF made in one pass may hold: ffmpeg
// keeps every frame until the palette is made from them all at the end
// (about 4 bytes a pixel of each frame; the bound counts gifHeldPerPixel,
// twice that). Within it (6 s of an 800x450 GIF at 15 fps), one pass
// decodes, zooms and overlays each frame once instead of twice and starts
// one ffmpeg instead of two, for less CPU time and the same bytes out
// (docs/internals.md, "GIFs"). A longer GIF takes two passes, in
// bounded memory. (Settings' tuning changes it: a test makes the two
// passes.)
const defaultGIFOnePassBytes int64 = 256 << 20

const gifHeldPerPixel = 8

// gifOnePass reports whether a GIF of ticks frames of w x h pixels is made
// in one pass, within limit bytes held. Pure.
func gifOnePass(ticks, w, h int, limit int64) bool {
	return int64(ticks)*int64(w)*int64(h)*gifHeldPerPixel <= limit
}

// gifSize is the GIF's picture: s.GIF.Width wide (never wider than the
// main picture), keeping the main picture's aspect ratio; k is the GIF's
// width over the main picture's.
func gifSize(first timeline.Frame, s Settings) (w, h int, k float64) {
	mw, mh := s.Width, s.Height
	if mw == 0 || mh == 0 {
		g, err := layout(first.Width, first.Height, timeline.Viewport{}, 0, 0, s.Fit, s.Frame)
		if err != nil {
			return 0, 0, 1
		}
		mw, mh = g.OutW, g.OutH
	}
	w = even(min(s.GIF.Width, mw))
	h = even(int(float64(mh)*float64(w)/float64(mw) + 0.5))
	return w, h, float64(w) / float64(mw)
}

// prepare writes the files a plan's ffmpeg run reads (the overlay script and
// the frame picture) into dir, and returns the run's spec without outputs.
func prepare(tk *timeline.Take, p *plan, s Settings, dir string) (encodeSpec, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return encodeSpec{}, err
	}
	tl := tk.Timeline
	sp := encodeSpec{FPS: p.schedule.FPS(), Ticks: p.schedule.Ticks(), Geometry: p.geometry, Background: s.Background,
		GraphFile: filepath.Join(dir, "graph.txt"), Varied: p.varied, tune: s.tune}
	if p.zoom.Active() {
		sp.Zoom = p.zoom
	}
	in := overlayInput{Schedule: p.schedule, Geometry: p.geometry, Cursor: s.Cursor, Track: p.track,
		Hides: cursorHides(tl), Zoom: p.zoom}
	if s.Frame.Enabled {
		sp.FrameImage = filepath.Join(dir, "frame.yuv")
		var corners [4]color.RGBA
		if err := writeFile(sp.FrameImage, func(w io.Writer) error {
			var err error
			corners, err = writeBackground(w, p.geometry, s.Frame)
			return err
		}); err != nil {
			return sp, fmt.Errorf("frame picture: %w", err)
		}
		in.Corners, in.Radius = &corners, s.Frame.Radius
		in.URLs = documentURLs(tl, s.Frame.Host)
	}
	if s.Captions == "burn" || s.Captions == "both" {
		in.Captions = captions(tl, s.StepLabels)
	}
	if s.Keys {
		in.Keys = keyPresses(tl)
	}
	needed := s.Cursor.Enabled || in.Corners != nil || len(in.Captions) > 0 || len(in.Keys) > 0 || len(in.URLs) > 0
	if needed {
		sp.Overlay = filepath.Join(dir, "overlay.ass")
		if err := writeFile(sp.Overlay, func(w io.Writer) error { return writeOverlay(w, in) }); err != nil {
			return sp, fmt.Errorf("overlay script: %w", err)
		}
	}
	return sp, nil
}

// encode runs one ffmpeg over the take's frames on schedule sched.
func encode(ctx context.Context, bin string, tk *timeline.Take, sched *Schedule, sp encodeSpec, progress func(done int)) error {
	args, graph, err := buildArgs(sp)
	if err != nil {
		return err
	}
	for i, a := range args {
		if a == "-filter_complex_script" {
			if err := os.WriteFile(args[i+1], []byte(graph), 0o644); err != nil {
				return fmt.Errorf("filter graph: %w", err)
			}
		}
	}
	return runFFmpeg(ctx, bin, args, sp.tune, func(w io.Writer) error {
		return feedFrames(ctx, tk, sched, w, func(done, _ int) {
			if progress != nil {
				progress(done)
			}
		})
	})
}

// pngPattern is the file pattern inside a PNG output's folder.
func pngPattern(out string) string {
	if strings.Contains(filepath.Base(out), "%") {
		return filepath.Base(out)
	}
	return "%06d.png"
}

// OnDisk is what an output named out is on disk: the file itself, or for
// PNG frames the folder they land in.
func OnDisk(out string) string {
	if f, err := formatOf(out); err == nil && f == formatPNG {
		return pngFolder(out)
	}
	return out
}

// pngFolder is where a PNG output's frames land.
func pngFolder(out string) string {
	if strings.Contains(filepath.Base(out), "%") {
		return filepath.Dir(out)
	}
	return strings.TrimSuffix(out, filepath.Ext(out))
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// feedFrames streams the take's frames through the resampler and writes
// each run of output ticks to w (feed.go), one frame's bytes in memory at
// a time.
// Errors reading the take are feedErrors.
func feedFrames(ctx context.Context, tk *timeline.Take, sched *Schedule, w io.Writer, progress func(done, total int)) error {
	rs := NewResampler(sched)
	total := sched.Ticks()
	done := 0
	fd := newFeed(w, sched.FPS())
	write := func(run Run) error {
		if err := fd.run(ctx, tk, run); err != nil {
			return err
		}
		done += run.Count
		if progress != nil {
			progress(done, total)
		}
		return nil
	}
	for fr, err := range tk.Frames() {
		if err != nil {
			return feedError{err}
		}
		if run, ok := rs.Push(fr); ok {
			if err := write(run); err != nil {
				return err
			}
		}
	}
	if run, ok := rs.Flush(); ok {
		if err := write(run); err != nil {
			return err
		}
	}
	return fd.close()
}

// workPattern matches the renders' working folders in the temporary
// folder; workOwner, in each, names the process rendering.
const (
	workPattern = "clapper-render-*"
	workOwner   = "clapper-owner.json"
)

// newWorkDir sweeps the folders gone renders left, then makes a working
// folder in the temporary folder owned by this process (by the name who),
// so that a kill leaves nothing a later sweep would not remove.
func newWorkDir(who string) (string, error) {
	SweepWorkDirs(os.TempDir())
	return ownerlock.MkdirOwned(os.TempDir(), strings.TrimSuffix(workPattern, "*"), workOwner, who)
}

// SweepWorkDirs removes the working folders in tmp of renders whose
// process is gone (killed before it could clean up), and returns them.
// A live render's folder is never touched.
func SweepWorkDirs(tmp string) []string {
	return ownerlock.Sweep(filepath.Join(tmp, workPattern), workOwner, killUsers)
}

// killUsers ends the processes a gone render left working in dir (an
// ffmpeg still encoding a chunk into it), so the folder can go.
func killUsers(dir string) {
	for _, p := range procfs.List() {
		if p.Pid != os.Getpid() && strings.Contains(p.Cmdline, dir+string(filepath.Separator)) {
			_ = syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	}
}

// chunkedTake reports whether the video outputs of a take filmed in mode
// are rendered in chunks: when every one is an MP4 (WebM and PNG frames
// keep one ffmpeg run over the whole take) and the take was not filmed
// live. A live take is rendered in one ffmpeg run after its capture: on a
// busy machine its chunks, each an ffmpeg of its own, cost most of twice
// the CPU of one run, and those made while capturing took CPU from the
// page being filmed without giving the video sooner (docs/internals.md).
// The choice follows from the take alone, so that clapper render of a
// take makes the video its run made. Pure.
func chunkedTake(mode string, videos []outputSpec) bool {
	return mode != timeline.CaptureLive && onlyMP4(videos)
}

// onlyMP4 reports whether every video output is an MP4.
func onlyMP4(videos []outputSpec) bool {
	for _, v := range videos {
		if v.Format != formatMP4 {
			return false
		}
	}
	return len(videos) > 0
}
