package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// scenario is the scripted scenario of clapper bench run, on the bench
// page (which paints a new frame on every animation frame): a pause, a
// click and typing, a navigation, a wheel scroll, each followed by a pause
// in which the recorder takes its settled picture.
const scenario = `name: Bench scenario
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
  - type: {into: "#field", text: "%[4]s", delay: %[6]s}
  - pause: 2s
  - goto: ${BENCH_URL}second
  - pause: 2s
  - scroll: {by: %[5]d, in: "#list", duration: %[7]s}
  - pause: 2s
`

// RunOptions are clapper bench run's settings.
type RunOptions struct {
	W, H, FPS, Runs int
	Modes           []RunMode
	NoSandbox, JSON bool
	Chromium        string
	Shell           string
	FFmpeg          string
	Keep            string
	Early           string // render while capturing: on, off, or "" for clapper run's default
	QuietWait       time.Duration
	// Tool and Revision name clapper in the takes, as clapper run does.
	Tool, Revision string
	// Playwright is a playwright-core package (or a folder whose
	// node_modules holds one) to run with Node (node on PATH when empty),
	// for the Playwright series (PlaywrightMode among Modes).
	Playwright, Node string
}

// RunMode is how one series of runs films: the capture mode and, live,
// how its settled pictures are had and whether it keeps one screencast
// (no restarts) for the whole take.
type RunMode struct {
	Capture string `json:"capture"`
	// Screencast: studio, the pictures from a screencast beside the pump.
	Screencast bool   `json:"screencast,omitempty"`
	SettledBy  string `json:"settled_by,omitempty"`
	NoRestart  bool   `json:"no_restart,omitempty"`
}

func (m RunMode) String() string {
	if m.Capture == playwrightCapture {
		return "playwright recordVideo"
	}
	if m.Capture == scripts.CaptureStudio {
		if m.Screencast {
			return studioScreencast
		}
		return "studio"
	}
	if m.NoRestart {
		return "live, settled by " + m.SettledBy + ", one screencast"
	}
	return "live, settled by " + m.SettledBy
}

// RunModes are the series --capture, --settled-by and
// --restart-screencast ask for: each live one per way of settling and of
// restarting, studio once per way of taking its pictures (it needs no
// settled picture: every frame is made on request, and its screencast
// is not restarted that way). Pure.
func RunModes(captures []string, settled, restart string) ([]RunMode, error) {
	var ways []string
	switch settled {
	case "both":
		ways = []string{settledByFrame, settledByScreenshot}
	case settledByFrame, settledByScreenshot:
		ways = []string{settled}
	default:
		return nil, exit.Usagef("--settled-by %q: use frame, screenshot or both", settled)
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
		return nil, exit.Usagef("--restart-screencast %q: use on, off or both", restart)
	}
	var modes []RunMode
	for _, c := range captures {
		if c == scripts.CaptureStudio || c == studioScreencast {
			modes = append(modes, RunMode{Capture: scripts.CaptureStudio, Screencast: c == studioScreencast})
			continue
		}
		for _, w := range ways {
			for _, nr := range noRestart {
				modes = append(modes, RunMode{Capture: c, SettledBy: w, NoRestart: nr})
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
	// CPUBy is CPUS by kind of process (procKind; this process is
	// "clapper", or "bench" when it only measures, as in the Playwright
	// series), in seconds.
	CPUBy map[string]float64 `json:"cpu_by_process"`
	// CPUPerVideoS is CPUS per second of the video made: the figure that
	// compares with any recorder's, whatever its video's length.
	CPUPerVideoS float64 `json:"cpu_per_video_s"`
	// CPUPerFootageS is CPUS per second of the video that films the page
	// (Footage.SpanMs: no blank lead-in, no last frame held at the end):
	// the figure to compare recorders by, since one may pad its video.
	CPUPerFootageS float64 `json:"cpu_per_footage_s"`
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
	// LateSteps counts the steps whose timed parts (pointer paths, the
	// scroll, typing) ran late; LateWhere names the latest, with the
	// take's reason.
	LateSteps int    `json:"late_steps"`
	LateWhere string `json:"late_where,omitempty"`
	// SettledFrames and SettledShots count how the settled pictures were had.
	SettledFrames int64 `json:"settled_frames"`
	SettledShots  int64 `json:"settled_screenshots"`
	// Footage are the figures the video alone gives (coverage, freeze
	// and drift of the frames it shows, at its own ticks): the same
	// measure for every recorder, Playwright's included. NoTake says the
	// run kept no take (Playwright's), so the figures above are these.
	Footage benchpage.ScenarioFigures `json:"footage"`
	NoTake  bool                      `json:"no_take,omitempty"`
	// ticks are the video's decoded frames, samples the take's, kept to
	// compare runs.
	ticks   []benchpage.VideoTick
	samples []benchpage.Sample
}

type scenarioMode struct {
	Mode   RunMode       `json:"mode"`
	Runs   []scenarioRun `json:"runs"`
	Median scenarioRun   `json:"median"`
	// SameAsFirst says, for each run after the first, how many of its
	// video's frames are the very pictures of the first run's (by hash of
	// the decoded frame): how reproducible the mode's footage is.
	SameAsFirst []sameFrames `json:"same_as_first_run"`
	// Failed are the runs that did not finish (a step failed, the
	// recorder or the browser gave up): the figures are the others'.
	Failed []failedRun `json:"failed,omitempty"`
}

// failedRun is a run of a series that did not finish, and why.
type failedRun struct {
	Run   int    `json:"run"`
	Error string `json:"error"`
}

// failures says which runs failed, one line, or "" when none did; the
// bench run then ends with it as its error, after the report of the
// others. Pure.
func failures(modes []scenarioMode) string {
	var parts []string
	of := 0
	for _, m := range modes {
		of += len(m.Runs) + len(m.Failed)
		for _, f := range m.Failed {
			first, _, _ := strings.Cut(f.Error, "\n")
			parts = append(parts, fmt.Sprintf("%s run %d: %s", m.Mode, f.Run, first))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d runs failed, and the figures are the others' (%s)", len(parts), of, strings.Join(parts, "; "))
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
		p := fmt.Sprintf("run %d %d of %d video frames", s.Run, s.Same, s.Of)
		if !m.Median.NoTake {
			p += fmt.Sprintf(", %d of %d stored pictures (%d but for the page's performance.now())", s.Stored, s.StoredOf, s.StoredButNow)
		}
		parts = append(parts, p)
	}
	return "; identical to run 1's: " + strings.Join(parts, ", ")
}

// Run films the scenario on the bench page o.Runs times in each mode,
// through film.Run as clapper run does, the modes taking turns run by run.
// It prints each run's line to progress and the medians (or the JSON
// report) to w.
func Run(ctx context.Context, o RunOptions, w, progress io.Writer) error {
	srv, pageURL, err := servePage()
	if err != nil {
		return err
	}
	defer srv.Close()
	work := o.Keep
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
	if err := os.WriteFile(script, []byte(fmt.Sprintf(scenario, o.W, o.H, o.FPS, scenarioText, scenarioScrollBy, scenarioTypeDelay, scenarioScroll)), 0o644); err != nil {
		return err
	}
	on := thisMachine()
	modes := make([]scenarioMode, len(o.Modes))
	var pw *playwrightSetup
	for i, m := range o.Modes {
		modes[i].Mode = m
		if m == PlaywrightMode && pw == nil {
			if pw, err = setupPlaywright(o, work); err != nil {
				return err
			}
		}
	}
	// Modes alternate run by run, so both see the same machine.
	for n := 1; n <= o.Runs; n++ {
		for i := range modes {
			m := modes[i].Mode
			out := filepath.Join(work, fmt.Sprintf("%s%s%s-run%d", m.Capture, m.SettledBy, map[bool]string{true: "-onecast"}[m.NoRestart], n))
			var r scenarioRun
			var err error
			if m == PlaywrightMode {
				r, err = runPlaywright(ctx, o, pw, pageURL, out)
			} else {
				r, err = runOnce(ctx, o, script, pageURL, out, m, progress)
			}
			if err != nil {
				// A failed run is reported, and the others go on: a
				// sitting on a busy machine keeps what it measured.
				if ctx.Err() != nil {
					return fmt.Errorf("bench run (%s) %d: %w", m, n, err)
				}
				modes[i].Failed = append(modes[i].Failed, failedRun{Run: n, Error: err.Error()})
				fmt.Fprintf(progress, "%-26s run %d: failed: %v\n", m, n, err)
				continue
			}
			modes[i].Runs = append(modes[i].Runs, r)
			if !o.JSON {
				fmt.Fprintf(progress, "%-26s run %d: %s\n", m, n, r.runLine())
			}
		}
	}
	for i := range modes {
		if len(modes[i].Runs) > 0 {
			modes[i].Median = medianScenario(modes[i].Runs)
			modes[i].SameAsFirst = sameAsFirst(modes[i].Runs)
		}
	}
	failed := failures(modes)
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		report := map[string]any{"size": fmt.Sprintf("%dx%d", o.W, o.H), "fps": o.FPS, "runs": o.Runs, "machine": on, "modes": modes}
		if pw != nil {
			report["playwright"] = pw.version
		}
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "bench run: %dx%d, %d fps video, medians of %d runs on %s%s\n", o.W, o.H, o.FPS, o.Runs, on, pw.header())
		for _, m := range modes {
			if len(m.Runs) == 0 {
				fmt.Fprintf(w, "%-26s median: none, every run failed\n", m.Mode)
				continue
			}
			fmt.Fprintf(w, "%-26s median: %s%s\n", m.Mode, m.Median.line(), m.sameLine())
		}
		fmt.Fprint(w, sideBySide(modes))
	}
	if failed != "" {
		return fmt.Errorf("bench run: %s", failed)
	}
	return nil
}

// sideBySide is the series' main figures in columns, each the median of
// the runs with the worst in brackets, every footage figure from the
// video alone, so that any recorder compares with any; a series whose
// runs all failed is left out. Pure.
func sideBySide(all []scenarioMode) string {
	var modes []scenarioMode // the series with a run that finished
	for _, m := range all {
		if len(m.Runs) > 0 {
			modes = append(modes, m)
		}
	}
	if len(modes) < 2 {
		return ""
	}
	type row struct {
		name  string
		value func(r scenarioRun) float64
		worst func(a, b float64) float64
		unit  string
		prec  int
	}
	rows := []row{
		{"wall time, launch to video", func(r scenarioRun) float64 { return r.WallS }, math.Max, " s", 2},
		{"scenario", func(r scenarioRun) float64 { return r.ScenarioS }, math.Max, " s", 2},
		{"CPU-s per second of the page filmed", func(r scenarioRun) float64 { return r.CPUPerFootageS }, math.Max, "", 2},
		{"page frames the video shows", func(r scenarioRun) float64 { return r.Footage.Coverage }, math.Min, "", 3},
		{"longest freeze in the video", func(r scenarioRun) float64 { return r.Footage.LongestFreezeMs }, math.Max, " ms", 0},
		{"drift p95 in the video", func(r scenarioRun) float64 { return r.Footage.Drift.P95 }, math.Max, " ms", 1},
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "side by side: median (worst)")
	for _, m := range modes {
		fmt.Fprintf(tw, "\t%s", m.Mode)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprint(tw, r.name)
		for _, m := range modes {
			worst := r.value(m.Runs[0])
			for _, run := range m.Runs[1:] {
				worst = r.worst(worst, r.value(run))
			}
			fmt.Fprintf(tw, "\t%.*f%s (%.*f%s)", r.prec, r.value(m.Median), r.unit, r.prec, worst, r.unit)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return b.String()
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

// lateSteps counts tl's steps that ran late and says the latest (by
// its time over its own). Pure.
func lateSteps(tl *timeline.Timeline) (int, string) {
	n, where := 0, ""
	var worst time.Duration
	for _, st := range tl.Steps {
		if l := st.Late; l != nil {
			n++
			if over := l.Took - l.Planned; over > worst {
				worst = over
				where = fmt.Sprintf("step %d %s took %.2fs for its own %.2fs (%s)", st.Index+1, st.Kind, l.Took.Seconds(), l.Planned.Seconds(), l.Why)
			}
		}
	}
	return n, where
}

// runLine is line with where the longest freeze began, for one run (a
// median has no place).
func (r scenarioRun) runLine() string {
	s := r.line()
	if r.FreezeWhere != "" {
		s += "; the longest freeze began " + r.FreezeWhere
	}
	if r.LateWhere != "" {
		s += "; the latest step: " + r.LateWhere
	}
	return s
}

func (r scenarioRun) line() string {
	v := r.Footage
	footage := fmt.Sprintf("in the video alone: coverage %.3f (%d of %d), longest freeze %.0f ms, drift p95 %.1f ms (against the document's median %.1f ms)",
		v.Coverage, v.Distinct, v.Painted, v.LongestFreezeMs, v.Drift.P95, v.DocumentDrift.P95)
	head := fmt.Sprintf("wall %.2fs for a %.2fs scenario (launch %.2fs, after the last step %.2fs; %.2fx scenario+launch), CPU %.1fs (%s; others %.1fs; %.2f CPU-s per second of video, %.2f per second of the page in it), the page painting %.1f frames a second, ",
		r.WallS, r.ScenarioS, r.LaunchS, r.TailS, r.Ratio, r.CPUS, cpuByLine(r.CPUBy), r.OthersCPUS, r.CPUPerVideoS, r.CPUPerFootageS, r.pageRate())
	video := fmt.Sprintf("video: %d of %d ticks repeated, longest still %.0f ms, first frame the page %v",
		r.Video.Repeated, r.Video.Ticks, r.Video.LongestStillMs, r.FirstFrameIsPage)
	if r.NoTake {
		return head + "no take; " + footage + "; " + video
	}
	return head + fmt.Sprintf("coverage %.3f (%d of the %d frames the page painted), longest freeze %.0f ms, drift p95 %.1f ms (against the document's median %.1f ms); ",
		r.Coverage, r.Distinct, r.Painted, r.LongestFreezeMs, r.Drift.P95, r.DocumentDrift.P95) +
		footage + "; " + video + fmt.Sprintf("; settled pictures %d by frame, %d by screenshot; %d screencast restarts; %d steps ran late",
		r.SettledFrames, r.SettledShots, r.Restarts, r.LateSteps)
}

// pageRate is how many frames a second the page painted while its video
// filmed it, read from the video (the page slows down when the recorder
// leaves it less of the machine, and a recorder whose page paints more
// has more to film). Pure.
func (r scenarioRun) pageRate() float64 {
	return perSecond(float64(r.Footage.Painted), r.Footage.SpanMs/1000)
}

// cpuPerVideoSecond is cpu seconds over the length of a video of ticks
// frames at fps (0 for no video). Pure.
func cpuPerVideoSecond(cpu float64, ticks, fps int) float64 {
	if fps <= 0 {
		return 0
	}
	return perSecond(cpu, float64(ticks)/float64(fps))
}

// perSecond is v per second of secs (0 for none). Pure.
func perSecond(v, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return v / secs
}

// cpuByLine says the CPU of each kind of process, the most first. Pure.
func cpuByLine(by map[string]float64) string {
	shown := maps.Clone(by)
	maps.DeleteFunc(shown, func(_ string, v float64) bool { return v < 0.05 }) // would read 0.0
	return breakdown(shown, func(v float64) string { return fmt.Sprintf("%.1f", v) })
}

// breakdown lists by's kinds, the largest first (ties by name), each
// with its value as f writes it. Pure.
func breakdown(by map[string]float64, f func(float64) string) string {
	kinds := slices.Collect(maps.Keys(by))
	slices.SortFunc(kinds, func(a, b string) int {
		if c := cmp.Compare(by[b], by[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, k+" "+f(by[k]))
	}
	if len(parts) == 0 {
		return "no process seen"
	}
	return strings.Join(parts, ", ")
}

// runOnce runs the scenario once through clapper run's own path into
// out, and measures it.
func runOnce(ctx context.Context, o RunOptions, script, pageURL, out string, mode RunMode, progress io.Writer) (scenarioRun, error) {
	var captured time.Time
	var t0 time.Time
	m, err := measured(ctx, o, out, "clapper", func() error {
		t0 = time.Now()
		return film.Run(ctx, film.Options{
			Script: script, Out: out, NoSandbox: o.NoSandbox, Chromium: o.Chromium, FFmpeg: o.FFmpeg, UI: film.NewUI(true, io.Discard, progress), Silent: true, Early: o.Early,
			Capture: mode.Capture, Shell: o.Shell,
			Env:        map[string]string{"BENCH_URL": pageURL},
			Tuning:     recorder.Options{SettleByFrame: mode.SettledBy == settledByFrame, NoRestart: mode.NoRestart, StudioScreencast: mode.Screencast},
			OnCaptured: func() { captured = time.Now() },
			Tool:       o.Tool, Revision: o.Revision,
		})
	})
	if err != nil {
		return scenarioRun{}, err
	}
	takeDir := filepath.Join(out, "take")
	tk, samples, err := benchpage.DecodeTake(takeDir)
	if err != nil {
		return scenarioRun{}, err
	}
	tl := tk.Timeline
	r := m.run()
	r.ScenarioS, r.ScenarioFigures, r.samples = time.Duration(tl.End-tl.Start).Seconds(), benchpage.SummarizeScenario(samples), samples
	if !tl.Clock.Wall.IsZero() {
		r.LaunchS = tl.Clock.Wall.Add(time.Duration(tl.Start)).Sub(t0).Seconds()
	}
	r.TailS = m.end.Sub(captured).Seconds()
	r.Ratio = r.WallS / (r.ScenarioS + r.LaunchS)
	r.Restarts = tl.Capture.Restarts
	if r.LongestFreezeMs > 0 {
		r.FreezeWhere = freezeWhere(tl, r.LongestFreezeAt)
	}
	if s := tl.Capture.Settled; s != nil {
		r.SettledFrames, r.SettledShots = s.Frames, s.Screenshots
	}
	r.LateSteps, r.LateWhere = lateSteps(tl)
	ticks, err := benchpage.DecodeVideo(ctx, filepath.Join(out, "bench.mp4"), o.W, o.H, tl.Viewport.Width, o.FFmpeg)
	if err != nil {
		return scenarioRun{}, err
	}
	r.fromVideo(ticks, o.FPS)
	return r, nil
}

// measurement is what measured saw of one run.
type measurement struct {
	end        time.Time
	wall, used time.Duration
	others     float64
	by         map[string]float64
}

// measured waits for a quiet machine, makes out, and runs the run,
// sampling the CPU of this process (named self) and of every process it
// starts, and the rest of the machine's.
func measured(ctx context.Context, o RunOptions, out, self string, run func() error) (measurement, error) {
	if err := settle(ctx, o.QuietWait); err != nil {
		return measurement{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return measurement{}, err
	}
	cpu := startTreeCPU()
	busy0 := machineBusy()
	t0 := time.Now()
	err := run()
	m := measurement{end: time.Now()}
	m.wall = m.end.Sub(t0)
	m.used = cpu.stop()
	m.others = max(0, (machineBusy() - busy0 - m.used).Seconds())
	m.by = cpu.byKind(self)
	return m, err
}

// run starts a run's figures from its measurement.
func (m measurement) run() scenarioRun {
	return scenarioRun{WallS: m.wall.Seconds(), CPUS: m.used.Seconds(), OthersCPUS: m.others, CPUBy: m.by}
}

// fromVideo fills in the figures a run's video gives, decoded into ticks
// at fps: its repeats, the footage's own figures and the CPU per second
// of each.
func (r *scenarioRun) fromVideo(ticks []benchpage.VideoTick, fps int) {
	r.Video = benchpage.SummarizeVideo(ticks, fps)
	r.Footage = benchpage.SummarizeFootage(ticks, fps)
	r.CPUPerVideoS = cpuPerVideoSecond(r.CPUS, r.Video.Ticks, fps)
	r.CPUPerFootageS = perSecond(r.CPUS, r.Footage.SpanMs/1000)
	r.ticks = ticks
	r.FirstFrameIsPage = len(ticks) > 0 && ticks[0].Decoded
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
	kind  map[procKey]string // procKind of each process seen
	self  time.Duration      // this process's, set by stop
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
	c := &treeCPU{self0: selfCPU(), base: map[procKey]time.Duration{}, seen: map[procKey]time.Duration{}, kind: map[procKey]string{}, quit: make(chan struct{})}
	for _, p := range procfs.Descendants(procfs.List(), os.Getpid()) {
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

func (c *treeCPU) sample() { c.note(procfs.Descendants(procfs.List(), os.Getpid())) }

// note records what the processes ps have used since sampling began.
func (c *treeCPU) note(ps []procfs.Proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range ps {
		k := procKey{p.Pid, p.Start}
		c.seen[k] = max(c.seen[k], p.CPU-c.base[k])
		// The latest command line names it: a process forked from
		// Chromium's zygote wears the zygote's until it names itself.
		if _, ok := c.kind[k]; c.kind != nil && (!ok || p.Cmdline != "") {
			c.kind[k] = procKind(p)
		}
	}
}

// procKind names what a process of a run is, for the CPU breakdown:
// Chromium's browser, gpu, renderer, utility (the network service, the
// storage and the like) and zygote processes, ffmpeg, node (Playwright's
// driver), or other. Pure.
func procKind(p procfs.Proc) string {
	args := strings.Fields(p.Cmdline)
	exe := p.Comm
	if len(args) > 0 {
		exe = filepath.Base(args[0])
	}
	for _, a := range args {
		if t, ok := strings.CutPrefix(a, "--type="); ok {
			switch t {
			case "gpu-process":
				return "gpu"
			case "renderer", "utility", "zygote":
				return t
			}
			return "other chromium"
		}
	}
	// named says whether the executable's name or the short name has it.
	named := func(has func(name string) bool) bool { return has(exe) || has(p.Comm) }
	contains := func(part string) func(string) bool {
		return func(name string) bool { return strings.Contains(name, part) }
	}
	switch {
	case named(contains("crashpad")):
		return "other chromium"
	case named(contains("chrom")) || named(contains("headless_shell")):
		return "browser"
	case named(func(name string) bool { return strings.HasPrefix(name, "ffmpeg") }):
		return "ffmpeg"
	case named(func(name string) bool { return name == "node" }):
		return "node"
	}
	return "other"
}

// byKind is the CPU time used by each kind of process (procKind), this
// process's named self; after stop. Zero kinds are left out.
func (c *treeCPU) byKind(self string) map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]float64{}
	if c.self > 0 {
		out[self] = c.self.Seconds()
	}
	for k, d := range c.seen {
		if d > 0 {
			out[c.kind[k]] += d.Seconds()
		}
	}
	return out
}

// stop ends the sampling and returns the CPU time used since the start:
// this process's and its descendants'.
func (c *treeCPU) stop() time.Duration {
	c.sample()
	close(c.quit)
	c.wg.Wait()
	c.self = selfCPU() - c.self0
	total := c.self
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
	out.LongestFreezeAt, out.FreezeWhere, out.LateWhere = 0, "", "" // each run's own
	out.CPUBy = medianBy(runs, func(r scenarioRun) map[string]float64 { return r.CPUBy })
	return out
}
