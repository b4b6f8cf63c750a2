package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// benchScenario is the scripted scenario of clapper bench run, on the bench
// page (which paints a new frame on every animation frame): a pause, a
// click and typing, a navigation, a wheel scroll, each followed by a pause
// in which the recorder takes its settled picture.
const benchScenario = `name: Bench scenario
browser:
  viewport: {width: %[1]d, height: %[2]d}
output:
  video: [bench.mp4]
  fps: %[3]d
  size: %[1]dx%[2]d
steps:
  - goto: ${BENCH_URL}
  - pause: 2s
  - click: "#field"
  - type: {into: "#field", text: "clapper films every frame"}
  - pause: 2s
  - goto: ${BENCH_URL}second
  - pause: 2s
  - scroll: {by: 600, in: "#list"}
  - pause: 2s
`

type benchRunOptions struct {
	w, h, fps, runs int
	modes           []benchRunMode
	noSandbox, json bool
	chromium        string
	shell           string
	ffmpeg          string
	keep            string
	early           string // render while capturing: on, off, or "" for clapper run's default
	quietWait       time.Duration
}

// benchRunMode is how one series of runs films: the capture mode and, live,
// how its settled pictures are had and whether it keeps one screencast
// (no restarts) for the whole take.
type benchRunMode struct {
	Capture string `json:"capture"`
	// Screenshots: studio, each picture taken by its begin-frame.
	Screenshots bool   `json:"screenshots,omitempty"`
	SettledBy   string `json:"settled_by,omitempty"`
	NoRestart   bool   `json:"no_restart,omitempty"`
}

func (m benchRunMode) String() string {
	if m.Capture == scripts.CaptureStudio {
		if m.Screenshots {
			return studioScreenshot
		}
		return "studio"
	}
	if m.NoRestart {
		return "live, settled by " + m.SettledBy + ", one screencast"
	}
	return "live, settled by " + m.SettledBy
}

// benchRunModes are the series --capture, --settled-by and
// --restart-screencast ask for: each live one per way of settling and of
// restarting, studio once per way of taking its pictures (it needs no
// settled picture: every frame is made on request, and its screencast
// is not restarted that way). Pure.
func benchRunModes(captures []string, settled, restart string) ([]benchRunMode, error) {
	var ways []string
	switch settled {
	case "both":
		ways = []string{settledByFrame, settledByScreenshot}
	case settledByFrame, settledByScreenshot:
		ways = []string{settled}
	default:
		return nil, usageErr("--settled-by %q: use frame, screenshot or both", settled)
	}
	var noRestart []bool
	switch restart {
	case "on":
		noRestart = []bool{false}
	case "off":
		noRestart = []bool{true}
	case "both":
		noRestart = []bool{false, true}
	default:
		return nil, usageErr("--restart-screencast %q: use on, off or both", restart)
	}
	var modes []benchRunMode
	for _, c := range captures {
		if c == scripts.CaptureStudio || c == studioScreenshot {
			modes = append(modes, benchRunMode{Capture: scripts.CaptureStudio, Screenshots: c == studioScreenshot})
			continue
		}
		for _, w := range ways {
			for _, nr := range noRestart {
				modes = append(modes, benchRunMode{Capture: c, SettledBy: w, NoRestart: nr})
			}
		}
	}
	return modes, nil
}

// Settled-picture modes compared by clapper bench run.
const (
	settledByFrame      = "frame"
	settledByScreenshot = "screenshot"
)

func benchRunCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a scripted scenario on the bench page end to end (record and video) and report wall time, CPU of every process, coverage, freezes, drift and repeated frames",
		Description: "The scenario (typing, a navigation, a wheel scroll) is recorded and rendered through clapper run's own path. It\n" +
			"reports wall time against the scenario's length, the time from the last step to the video written, the longest\n" +
			"freeze of each run (where it began, and the step running), the screencast restarts, drift (each frame's source time\n" +
			"less its animation-frame time, against the frames within 500 ms of it, and against its whole document), repeated video frames\n" +
			"and the first frame; live and studio side by side, and how many video frames and stored pictures of each run are\n" +
			"the first run's.\n" +
			"Example: clapper bench run --capture live,studio --runs 3",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "size", Value: "1280x720", Usage: "viewport and video WIDTHxHEIGHT"},
			&cli.IntFlag{Name: "fps", Value: 60, Usage: "video frame rate"},
			&cli.IntFlag{Name: "runs", Value: 3, Usage: "runs per mode; figures are their medians"},
			&cli.StringSliceFlag{Name: "capture", Value: cli.NewStringSlice("live"), Usage: "capture mode: live, studio, or studio-screenshot (studio with each picture taken by its begin-frame instead of from the screencast beside the frame pump); repeatable (or live,studio) to compare them in one run"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.StringFlag{Name: "settled-by", Value: "both", Usage: "live: how the settled picture after a step is had: frame (one more screencast frame), screenshot, or both (runs alternate)"},
			&cli.StringFlag{Name: "restart-screencast", Value: "on", Usage: "live: restart the screencast after each 750 ms of steady frames (on, as clapper run), keep one (off), or both (runs alternate)"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringFlag{Name: "keep", Usage: "keep each run's output folder in this folder"},
			&cli.DurationFlag{Name: "settle", Value: 30 * time.Second, Usage: "before each run, wait up to this long for other work on the machine to fall under a third of a core (0: do not wait)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.BoolFlag{Name: "render-while-capturing", Value: true, Usage: "render the video's chunks during the capture, as clapper run does (--render-while-capturing=false: render after it)"},
		},
		Action: func(c *cli.Context) error {
			w, h, err := parseSize(c.String("size"))
			if err != nil {
				return usageErr("--size: %v", err)
			}
			if w < 1160 || h < 640 {
				return usageErr("--size %q: the scenario's field and list need at least 1160x640", c.String("size"))
			}
			captures, err := benchModes(c.StringSlice("capture"), true)
			if err != nil {
				return err
			}
			modes, err := benchRunModes(captures, c.String("settled-by"), c.String("restart-screencast"))
			if err != nil {
				return err
			}
			o := benchRunOptions{w: w, h: h, fps: c.Int("fps"), runs: c.Int("runs"), noSandbox: c.Bool("no-sandbox"), json: c.Bool("json"), modes: modes,
				chromium: c.String("chromium"), shell: c.String("chromium-shell"), ffmpeg: c.String("ffmpeg"), keep: c.String("keep"),
				early: onOff(c, "render-while-capturing"), quietWait: c.Duration("settle")}
			if o.runs < 1 || o.fps < 1 {
				return usageErr("--runs and --fps must be positive")
			}
			return benchScenarioRuns(c.Context, o)
		},
	}
}

// scenarioRun is one run's figures.
type scenarioRun struct {
	// WallS is the whole run, from launching Chromium to the video
	// written; ScenarioS the take's own length (virtual time in studio
	// mode); LaunchS from the start to the take's start (Chromium's
	// launch); TailS from the capture's end (the last step done) to the
	// video written. Ratio is WallS / (ScenarioS + LaunchS).
	WallS     float64 `json:"wall_s"`
	ScenarioS float64 `json:"scenario_s"`
	LaunchS   float64 `json:"launch_s"`
	TailS     float64 `json:"tail_s"`
	Ratio     float64 `json:"ratio"`
	// CPUS is the CPU time of this process and every process it started
	// (Chromium's, ffmpeg), sampled from /proc; OthersCPUS the rest of the
	// machine's busy time meanwhile (other work on a shared machine).
	CPUS       float64 `json:"cpu_s"`
	OthersCPUS float64 `json:"others_cpu_s"`
	benchpage.ScenarioFigures
	Video benchpage.VideoRepeats `json:"video"`
	// FirstFrameIsPage says the video's first frame shows the bench page
	// (no blank lead-in).
	FirstFrameIsPage bool `json:"first_frame_is_page"`
	// FreezeWhere says where in the take the longest freeze began: its
	// time from the take's start and the step running then.
	FreezeWhere string `json:"freeze_where,omitempty"`
	// Restarts counts the screencast's restarts (recorder/restart.go):
	// hand-overs between the tab's two sessions, or restarts in place
	// when the second session is refused. Freezes were seen to gather
	// at hand-overs.
	Restarts int64 `json:"restarts"`
	// SettledFrames and SettledShots count how the settled pictures were had.
	SettledFrames int64 `json:"settled_frames"`
	SettledShots  int64 `json:"settled_screenshots"`
	// ticks are the video's decoded frames, samples the take's, kept to
	// compare runs.
	ticks   []benchpage.VideoTick
	samples []benchpage.Sample
}

type scenarioMode struct {
	Mode   benchRunMode  `json:"mode"`
	Runs   []scenarioRun `json:"runs"`
	Median scenarioRun   `json:"median"`
	// SameAsFirst says, for each run after the first, how many of its
	// video's frames are the very pictures of the first run's (by hash of
	// the decoded frame): how reproducible the mode's footage is.
	SameAsFirst []sameFrames `json:"same_as_first_run"`
}

type sameFrames struct {
	Run int `json:"run"`
	// Same of Of video frames are the first run's very pictures.
	Same int `json:"same"`
	Of   int `json:"of"`
	// Stored of StoredOf pictures in the take are byte for byte the first
	// run's; StoredButNow are, or differ only in the performance.now()
	// reading the bench page paints (Chromium jitters it).
	Stored       int `json:"stored_same"`
	StoredButNow int `json:"stored_same_but_now"`
	StoredOf     int `json:"stored_of"`
}

// sameAsFirst compares every run's video with the first run's.
func sameAsFirst(runs []scenarioRun) []sameFrames {
	var out []sameFrames
	for i := 1; i < len(runs); i++ {
		same, of := benchpage.SameFrames(runs[0].ticks, runs[i].ticks)
		s := sameFrames{Run: i + 1, Same: same, Of: of}
		s.Stored, s.StoredButNow, s.StoredOf = benchpage.SamePictures(runs[0].samples, runs[i].samples)
		out = append(out, s)
	}
	return out
}

func (m scenarioMode) sameLine() string {
	if len(m.SameAsFirst) == 0 {
		return ""
	}
	var parts []string
	for _, s := range m.SameAsFirst {
		parts = append(parts, fmt.Sprintf("run %d %d of %d video frames, %d of %d stored pictures (%d but for the page's performance.now())", s.Run, s.Same, s.Of, s.Stored, s.StoredOf, s.StoredButNow))
	}
	return "; identical to run 1's: " + strings.Join(parts, ", ")
}

func benchScenarioRuns(ctx context.Context, o benchRunOptions) error {
	srv, pageURL, err := serveBenchPage()
	if err != nil {
		return err
	}
	defer srv.Close()
	work := o.keep
	if work != "" {
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
	} else {
		if work, err = os.MkdirTemp("", "clapper-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	script := filepath.Join(work, "scenario.yaml")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(benchScenario, o.w, o.h, o.fps)), 0o644); err != nil {
		return err
	}
	modes := make([]scenarioMode, len(o.modes))
	for i, m := range o.modes {
		modes[i].Mode = m
	}
	// Modes alternate run by run, so both see the same machine.
	for n := 1; n <= o.runs; n++ {
		for i := range modes {
			m := modes[i].Mode
			r, err := benchRunOnce(ctx, o, script, pageURL, filepath.Join(work, fmt.Sprintf("%s%s%s-run%d", m.Capture, m.SettledBy, map[bool]string{true: "-onecast"}[m.NoRestart], n)), m)
			if err != nil {
				return fmt.Errorf("bench run (%s) %d: %w", m, n, err)
			}
			modes[i].Runs = append(modes[i].Runs, r)
			if !o.json {
				fmt.Fprintf(os.Stderr, "%-26s run %d: %s\n", m, n, r.runLine())
			}
		}
	}
	for i := range modes {
		modes[i].Median = medianScenario(modes[i].Runs)
		modes[i].SameAsFirst = sameAsFirst(modes[i].Runs)
	}
	if o.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"size": fmt.Sprintf("%dx%d", o.w, o.h), "fps": o.fps, "runs": o.runs, "modes": modes})
	}
	fmt.Printf("bench run: %dx%d, %d fps video, medians of %d runs\n", o.w, o.h, o.fps, o.runs)
	for _, m := range modes {
		fmt.Printf("%-26s median: %s%s\n", m.Mode, m.Median.line(), m.sameLine())
	}
	return nil
}

// freezeWhere describes the take time at: seconds from the take's start,
// and the step running then (the last one begun). Pure.
func freezeWhere(tl *timeline.Timeline, at timeline.Time) string {
	where := fmt.Sprintf("%.2f s in", time.Duration(at-tl.Start).Seconds())
	for i := len(tl.Steps) - 1; i >= 0; i-- {
		if st := tl.Steps[i]; st.Start <= at {
			return fmt.Sprintf("%s, step %d %s", where, st.Index+1, st.Kind)
		}
	}
	return where
}

// runLine is line with where the longest freeze began, for one run (a
// median has no place).
func (r scenarioRun) runLine() string {
	if r.FreezeWhere == "" {
		return r.line()
	}
	return r.line() + "; the longest freeze began " + r.FreezeWhere
}

func (r scenarioRun) line() string {
	return fmt.Sprintf("wall %.2fs for a %.2fs scenario (launch %.2fs, after the last step %.2fs; %.2fx scenario+launch), CPU %.1fs (others %.1fs), coverage %.3f (%d of the %d frames the page painted), longest freeze %.0f ms, drift p95 %.1f ms (against the document's median %.1f ms), "+
		"video: %d of %d ticks repeated, longest still %.0f ms, first frame the page %v; settled pictures %d by frame, %d by screenshot; %d screencast restarts",
		r.WallS, r.ScenarioS, r.LaunchS, r.TailS, r.Ratio, r.CPUS, r.OthersCPUS, r.Coverage, r.Distinct, r.Painted, r.LongestFreezeMs, r.Drift.P95, r.DocumentDrift.P95,
		r.Video.Repeated, r.Video.Ticks, r.Video.LongestStillMs, r.FirstFrameIsPage, r.SettledFrames, r.SettledShots, r.Restarts)
}

// benchRunOnce runs the scenario once through clapper run's own path into
// out, and measures it.
func benchRunOnce(ctx context.Context, o benchRunOptions, script, pageURL, out string, mode benchRunMode) (scenarioRun, error) {
	if err := settle(ctx, o.quietWait); err != nil {
		return scenarioRun{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return scenarioRun{}, err
	}
	cpu := startTreeCPU()
	busy0 := machineBusy()
	t0 := time.Now()
	var captured time.Time
	err := film.Run(ctx, film.Options{
		Script: script, Out: out, NoSandbox: o.noSandbox, Chromium: o.chromium, FFmpeg: o.ffmpeg, UI: film.NewUI(true), Silent: true, Early: o.early,
		Capture: mode.Capture, Shell: o.shell,
		Env:        map[string]string{"BENCH_URL": pageURL},
		Tuning:     recorder.Options{SettleByFrame: mode.SettledBy == settledByFrame, NoRestart: mode.NoRestart, StudioScreenshots: mode.Screenshots},
		OnCaptured: func() { captured = time.Now() },
		Tool:       "clapper " + version, Revision: revision,
	})
	end := time.Now()
	wall := end.Sub(t0)
	used := cpu.stop()
	others := max(0, (machineBusy() - busy0 - used).Seconds())
	if err != nil {
		return scenarioRun{}, err
	}
	takeDir := filepath.Join(out, "take")
	tk, samples, err := benchpage.DecodeTake(takeDir)
	if err != nil {
		return scenarioRun{}, err
	}
	tl := tk.Timeline
	r := scenarioRun{WallS: wall.Seconds(), ScenarioS: time.Duration(tl.End - tl.Start).Seconds(), CPUS: used.Seconds(), OthersCPUS: others,
		ScenarioFigures: benchpage.SummarizeScenario(samples), samples: samples}
	if !tl.Clock.Wall.IsZero() {
		r.LaunchS = tl.Clock.Wall.Add(time.Duration(tl.Start)).Sub(t0).Seconds()
	}
	r.TailS = end.Sub(captured).Seconds()
	r.Ratio = r.WallS / (r.ScenarioS + r.LaunchS)
	r.Restarts = tl.Capture.Restarts
	if r.LongestFreezeMs > 0 {
		r.FreezeWhere = freezeWhere(tl, r.LongestFreezeAt)
	}
	if s := tl.Capture.Settled; s != nil {
		r.SettledFrames, r.SettledShots = s.Frames, s.Screenshots
	}
	ticks, err := benchpage.DecodeVideo(ctx, filepath.Join(out, "bench.mp4"), o.w, o.h, tl.Viewport.Width, o.ffmpeg)
	if err != nil {
		return scenarioRun{}, err
	}
	r.Video = benchpage.SummarizeVideo(ticks, o.fps)
	r.ticks = ticks
	r.FirstFrameIsPage = len(ticks) > 0 && ticks[0].Decoded
	return r, nil
}

// treeCPU samples the CPU time of this process's descendants from /proc
// while a run goes on: processes that have exited keep the last time seen,
// so up to one sampling interval of a process's last work is missed. A
// process already there when sampling began (a browser of the run before
// still exiting) counts only what it used since: counting its whole life
// once gave a run more CPU than two cores could give.
type treeCPU struct {
	self0 time.Duration
	mu    sync.Mutex
	base  map[procKey]time.Duration // CPU of the processes there at the start
	seen  map[procKey]time.Duration
	quit  chan struct{}
	wg    sync.WaitGroup
}

// procKey names a process across pid reuse.
type procKey struct {
	pid   int
	start uint64
}

const treeSampleEvery = 100 * time.Millisecond

func startTreeCPU() *treeCPU {
	c := &treeCPU{self0: selfCPU(), base: map[procKey]time.Duration{}, seen: map[procKey]time.Duration{}, quit: make(chan struct{})}
	for _, p := range descendants(procfs.List(), os.Getpid()) {
		c.base[procKey{p.Pid, p.Start}] = p.CPU
	}
	c.wg.Add(1)
	go func() { // owned by c: ends in stop
		defer c.wg.Done()
		t := time.NewTicker(treeSampleEvery)
		defer t.Stop()
		for {
			c.sample()
			select {
			case <-t.C:
			case <-c.quit:
				return
			}
		}
	}()
	return c
}

// descendants are the processes of ps below pid. Pure.
func descendants(ps []procfs.Proc, pid int) []procfs.Proc {
	parent := map[int]int{}
	for _, p := range ps {
		parent[p.Pid] = p.PPid
	}
	var out []procfs.Proc
	for _, p := range ps {
		for a, hops := parent[p.Pid], 0; a != 0 && hops < 64; a, hops = parent[a], hops+1 {
			if a == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func (c *treeCPU) sample() { c.note(descendants(procfs.List(), os.Getpid())) }

// note records what the processes ps have used since sampling began.
func (c *treeCPU) note(ps []procfs.Proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range ps {
		k := procKey{p.Pid, p.Start}
		c.seen[k] = max(c.seen[k], p.CPU-c.base[k])
	}
}

// stop ends the sampling and returns the CPU time used since the start:
// this process's and its descendants'.
func (c *treeCPU) stop() time.Duration {
	c.sample()
	close(c.quit)
	c.wg.Wait()
	total := selfCPU() - c.self0
	for _, d := range c.seen {
		total += d
	}
	return total
}

// medianScenario takes the median of every numeric figure across runs.
func medianScenario(runs []scenarioRun) scenarioRun {
	out := runs[0]
	firstAll := true
	for _, r := range runs {
		firstAll = firstAll && r.FirstFrameIsPage
	}
	medianFields(reflect.ValueOf(&out).Elem(), fieldOfRuns(runs), nil)
	out.FirstFrameIsPage = firstAll
	out.LongestFreezeAt, out.FreezeWhere = 0, "" // each run's own
	return out
}
