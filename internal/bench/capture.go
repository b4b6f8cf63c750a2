package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// The capture benchmark measures the recorder alone: a browser on the
// bench page, a capture of a fixed length with no steps, and the CPU of
// this process, of Chromium and of the rest of the machine sampled right
// around the capture's start and stop. It therefore drives session's
// browser and the recorder itself rather than session.Run, whose capture
// begins with the first tab and takes in the launch, the navigation and
// the steps; Run (the scenario) is the benchmark of the whole path.

// CaptureOptions are clapper bench capture's settings.
type CaptureOptions struct {
	Sizes     [][2]int
	Scales    []float64 // device scale of each size (WxH@2)
	Modes     []string  // capture modes to compare, in order
	Shell     string    // chromium-headless-shell, for studio
	Seconds   time.Duration
	Runs      int
	JSON      bool
	Quality   int
	InFlight  int
	EveryNth  int
	SendLast  bool
	Mapping   string
	Chromium  string
	NoSandbox bool
	Args      []string
	Keep      string
	Settle    time.Duration
}

// studioScreencast is the benchmarks' mode for studio capture with its
// pictures from a screencast beside the frame pump
// (recorder.Options.StudioScreencast).
const studioScreencast = "studio-screencast"

// Modes reads --capture: live, studio, or both (repeated or comma
// separated), each once, in the order given. With pictures,
// studio-screencast is a mode too: studio capture taking its pictures from
// a screencast beside the frame pump instead of with each begin-frame, to
// compare the two ways in one run.
func Modes(vals []string, pictures bool) ([]string, error) {
	var modes []string
	for _, v := range vals {
		for _, m := range strings.Split(v, ",") {
			m = strings.TrimSpace(m)
			switch {
			case m == "live" || m == "studio":
			case m == studioScreencast && pictures:
			case pictures:
				return nil, exit.Usagef("--capture %q: use live, studio or %s (or live,studio to compare them)", m, studioScreencast)
			default:
				return nil, exit.Usagef("--capture %q: use live or studio (or live,studio to compare them)", m)
			}
			dup := false
			for _, x := range modes {
				dup = dup || x == m
			}
			if !dup {
				modes = append(modes, m)
			}
		}
	}
	return modes, nil
}

// Scale splits WxH@S into WxH and the device scale S (1 or 2; 1 when
// absent).
func Scale(s string) (string, float64, error) {
	size, sc, ok := strings.Cut(s, "@")
	if !ok {
		return s, 1, nil
	}
	v, err := strconv.ParseFloat(sc, 64)
	if err != nil || (v != 1 && v != 2) {
		return s, 0, errors.New("the device scale after @ must be 1 or 2")
	}
	return size, v, nil
}

// label names a size (and mode, when several are compared) in the report.
func label(w, h int, scale float64, mode string, withMode bool) string {
	l := fmt.Sprintf("%dx%d", w, h)
	if scale != 1 {
		l += "@" + strconv.FormatFloat(scale, 'f', -1, 64)
	}
	if withMode {
		l += " " + mode
	}
	return l
}

// dirName names a kept take: WxH-runN for live (as before studio capture
// existed), WxH-studio-runN for studio, with @S after the size at a
// device scale other than 1.
func dirName(w, h int, scale float64, mode string, n int) string {
	return strings.ReplaceAll(label(w, h, scale, mode, mode != "live"), " ", "-") + fmt.Sprintf("-run%d", n)
}

// captureRun is one run's figures: the take's, plus CPU measured around
// the capture.
type captureRun struct {
	benchpage.Figures
	// RecorderCPU is this process's CPU time (user + system, all threads)
	// per second of capture: 0.05 is 5% of one core. Chromium is not in it.
	RecorderCPU float64 `json:"recorder_cpu"`
	// ChromiumCPU is the CPU time of Chromium's process group per second of
	// capture (read from /proc), for context.
	ChromiumCPU float64 `json:"chromium_cpu"`
	// ChromiumBy is ChromiumCPU by kind of process (browser, gpu,
	// renderer, …), per second of capture.
	ChromiumBy map[string]float64 `json:"chromium_by_process"`
	// OthersCPU is the rest of the machine's busy CPU time per second of
	// capture (from /proc/stat, minus this process and Chromium): other
	// work sharing the cores, which the figures above do not control.
	OthersCPU float64 `json:"others_cpu"`
	// CrossCheckMs is the largest difference between the wall-offset and
	// the monotonic mapping of one frame's source time.
	CrossCheckMs float64 `json:"cross_check_ms"`
	// AckMeanMs and AckMaxMs are the round trips of the frame acks.
	AckMeanMs float64 `json:"ack_mean_ms"`
	AckMaxMs  float64 `json:"ack_max_ms"`
	EndReason string  `json:"end_reason"`
	// Mode is the capture mode; RunTimeRatio is the capture's wall time
	// over its take time (studio: how much slower than real time the
	// frames were made; live is 1 by construction).
	Mode         string  `json:"mode"`
	RunTimeRatio float64 `json:"run_time_ratio"`
	// AllCPU is this process, Chromium and the rest of the machine
	// together, per second of wall time of the capture.
	AllCPU float64 `json:"all_cpu"`
}

type captureSize struct {
	Size   string       `json:"size"`
	Runs   []captureRun `json:"runs"`
	Median captureRun   `json:"median"`
}

type captureReport struct {
	Chromium string         `json:"chromium"`
	Machine  machine        `json:"machine"`
	Settings map[string]any `json:"settings"`
	Sizes    []captureSize  `json:"sizes"`
}

// Capture runs the capture benchmark: each size, each mode, o.Runs times,
// the modes taking turns run by run. It prints each run's line to
// progress and the medians (or the JSON report) to w.
func Capture(ctx context.Context, o CaptureOptions, w, progress io.Writer) error {
	srv, pageURL, err := servePage()
	if err != nil {
		return err
	}
	defer srv.Close()

	rep := captureReport{Machine: thisMachine(), Settings: map[string]any{
		"seconds": o.Seconds.Seconds(), "runs": o.Runs, "quality": o.Quality, "in_flight": o.InFlight,
		"send_last_frame": o.SendLast, "every_nth": o.EveryNth, "chromium_args": o.Args, "mapping": o.Mapping,
	}}
	for si, sz := range o.Sizes {
		// The modes take turns run by run, so that both see the same
		// moments of a shared machine.
		sizes := make([]captureSize, len(o.Modes))
		for m, mode := range o.Modes {
			sizes[m] = captureSize{Size: label(sz[0], sz[1], o.Scales[si], mode, len(o.Modes) > 1)}
		}
		for i := 0; i < o.Runs; i++ {
			for m, mode := range o.Modes {
				bs := &sizes[m]
				var r captureRun
				var version string
				var err error
				if mode != "live" {
					r, version, err = studioRun(ctx, o, sz[0], sz[1], o.Scales[si], pageURL, i+1, mode)
				} else {
					r, version, err = liveRun(ctx, o, sz[0], sz[1], o.Scales[si], pageURL, i+1)
				}
				if err != nil {
					return fmt.Errorf("bench capture %s run %d: %w", bs.Size, i+1, err)
				}
				r.Mode = mode
				rep.Chromium = version
				bs.Runs = append(bs.Runs, r)
				if !o.JSON {
					fmt.Fprintf(progress, "%s run %d: %s\n", bs.Size, i+1, r.line())
				}
			}
		}
		for m := range sizes {
			sizes[m].Median = medianCapture(sizes[m].Runs)
			rep.Sizes = append(rep.Sizes, sizes[m])
		}
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "chromium %s on %s; %v per run, %d runs, quality %d, in-flight %d, send-last-frame %v, every-nth %d",
		rep.Chromium, rep.Machine, o.Seconds, o.Runs, o.Quality, o.InFlight, o.SendLast, o.EveryNth)
	if len(o.Args) > 0 {
		fmt.Fprintf(w, ", flags %s", strings.Join(o.Args, " "))
	}
	fmt.Fprintln(w)
	for _, bs := range rep.Sizes {
		fmt.Fprintf(w, "%-18s median: %s\n", bs.Size, bs.Median.line())
	}
	return nil
}

func (r captureRun) line() string {
	return fmt.Sprintf("%.1f frames/s received (%.1f delivered), coverage %.3f (%d of %d page frames), late %d, duplicates %d, overflow %d, rejected %d, backwards %d, repeats %d, undecodable %d, longest gap %.1f ms, "+
		"timing error p50/p95/max %.2f/%.2f/%.2f ms (rAF time; performance.now() %.2f/%.2f/%.2f), offset %.2f ms, latency p50/p95 %.1f/%.1f ms, recorder CPU %.1f%% of a core, chromium %.0f%% (%s), others %.0f%%, ack round trip mean/max %.2f/%.1f ms, %s mapping",
		r.ReceivedPerSec, r.DeliveredPerSec, r.Coverage, r.Distinct, r.Painted, r.Late, r.Duplicates, r.Overflow, r.Rejected, r.Backwards, r.Repeats, r.Undecodable, r.LongestGapMs,
		r.ErrorRAF.P50, r.ErrorRAF.P95, r.ErrorRAF.Max, r.ErrorNow.P50, r.ErrorNow.P95, r.ErrorNow.Max, r.OffsetMs, r.Latency.P50, r.Latency.P95,
		100*r.RecorderCPU, 100*r.ChromiumCPU, percentBy(r.ChromiumBy), 100*r.OthersCPU, r.AckMeanMs, r.AckMaxMs, r.Mapping) +
		fmt.Sprintf(", run time %.2fx the take, all CPU %.0f%%", r.RunTimeRatio, 100*r.AllCPU)
}

// percentBy says a breakdown per second as percents of a core, the most
// first. Pure.
func percentBy(by map[string]float64) string {
	return breakdown(by, func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) })
}

// medianCapture takes the median of every numeric figure across runs;
// text fields come from the first run.
func medianCapture(runs []captureRun) captureRun {
	if len(runs) == 0 {
		return captureRun{}
	}
	out := runs[0]
	medianFields(reflect.ValueOf(&out).Elem(), fieldOfRuns(runs), nil)
	out.ChromiumBy = medianBy(runs, func(r captureRun) map[string]float64 { return r.ChromiumBy })
	return out
}

// launch starts a browser for one capture run (the headless shell with
// begin-frame control when studio), opens a tab at the size and scale,
// and returns it with the browser's version and what closes both.
func launch(ctx context.Context, o CaptureOptions, w, h int, scale float64, studio bool) (b *session.Browser, tab context.Context, closeAll func(), version string, err error) {
	lo := session.LaunchOptions{Path: o.Chromium, Headless: true, NoSandbox: o.NoSandbox, Width: w, Height: h, Args: o.Args}
	if studio {
		shell, err := session.FindShell(o.Shell)
		if err != nil {
			return nil, nil, nil, "", err
		}
		lo = session.LaunchOptions{Path: shell, Studio: true, Scale: scale, NoSandbox: o.NoSandbox, Width: w, Height: h, Args: o.Args}
	}
	b, err = session.Launch(ctx, lo)
	if err != nil {
		if errors.Is(err, session.ErrRootNeedsNoSandbox) {
			return nil, nil, nil, "", exit.Usagef("%w", err)
		}
		return nil, nil, nil, "", err
	}
	var closeTab func()
	if studio {
		tab, closeTab, err = b.NewStudioTab(ctx, w, h, "")
	} else {
		tab, closeTab, err = b.NewTab(ctx)
	}
	if err != nil {
		b.Close()
		return nil, nil, nil, "", err
	}
	closeAll = func() { closeTab(); b.Close() }
	version, _ = session.Version(tab)
	if err := session.SetViewport(tab, w, h, scale); err != nil {
		closeAll()
		return nil, nil, nil, "", fmt.Errorf("set viewport: %w", err)
	}
	return b, tab, closeAll, version, nil
}

// benchTimeline is the timeline of a capture benchmark's take: no steps.
func benchTimeline(version string, w, h int, scale float64) *timeline.Timeline {
	return &timeline.Timeline{
		Name: "bench capture", Tool: "clapper " + version, Outcome: "ok",
		Viewport: timeline.Viewport{Width: w, Height: h, Scale: scale},
		Steps:    []timeline.Step{}, Receipts: []timeline.Receipt{}, Holds: []timeline.Hold{},
	}
}

// liveRun launches a Chromium at the size, opens the bench page, records
// it for o.Seconds into a take, closes the browser, and analyses the
// take.
func liveRun(ctx context.Context, o CaptureOptions, w, h int, scale float64, pageURL string, n int) (captureRun, string, error) {
	dir, drop, err := takeDir(o.Keep, dirName(w, h, scale, "live", n))
	if err != nil {
		return captureRun{}, "", err
	}
	defer drop()
	if err := settle(ctx, o.Settle); err != nil {
		return captureRun{}, "", err
	}
	b, tab, closeAll, version, err := launch(ctx, o, w, h, scale, false)
	if err != nil {
		return captureRun{}, "", err
	}
	defer closeAll()
	if err := session.Navigate(tab, pageURL); err != nil {
		return captureRun{}, "", fmt.Errorf("open the bench page: %w", err)
	}
	// Let the page settle into its animation before measuring.
	if err := sleepCtx(ctx, time.Second); err != nil {
		return captureRun{}, "", err
	}
	origin, err := session.EvalNumber(tab, `performance.timeOrigin`)
	if err != nil {
		return captureRun{}, "", fmt.Errorf("read the page clock: %w", err)
	}

	log, err := timeline.CreateTake(dir)
	if err != nil {
		return captureRun{}, "", err
	}
	clock := recorder.NewClock()
	tl := benchTimeline(version, w, h, scale)
	cpu0, by0, busy0 := selfCPU(), groupCPUBy(b.Pid()), machineBusy()
	chrome0 := total(by0)
	t0 := clock.Now()
	capt, err := recorder.Start(tab, recorder.Options{
		Dir: dir, Log: log, Clock: clock, Tab: "bench", Quality: o.Quality, MaxWidth: int(float64(w) * scale), MaxHeight: int(float64(h) * scale),
		EveryNthFrame: o.EveryNth, InitialURL: pageURL, MaxFramesInFlight: o.InFlight, NoSendLastFrame: !o.SendLast,
		Mapping: timeline.Mapping(o.Mapping),
	})
	if err != nil {
		log.Close()
		return captureRun{}, "", err
	}
	serr := sleepCtx(ctx, o.Seconds)
	res := capt.Stop(context.Background())
	t1 := clock.Now()
	cpu1, by1, busy1 := selfCPU(), groupCPUBy(b.Pid()), machineBusy()
	chrome1 := total(by1)
	if err := sealTake(dir, log, tl, res, serr); err != nil {
		return captureRun{}, "", err
	}
	info, _ := json.Marshal(benchpage.Info{TimeOrigin: origin})
	if err := os.WriteFile(filepath.Join(dir, benchpage.InfoFile), info, 0o644); err != nil {
		return captureRun{}, "", err
	}
	closeAll()

	fig, err := benchpage.Analyze(dir)
	if err != nil {
		return captureRun{}, "", err
	}
	secs := (t1 - t0).Seconds()
	return captureRun{
		Figures: fig, RecorderCPU: (cpu1 - cpu0).Seconds() / secs, ChromiumCPU: (chrome1 - chrome0).Seconds() / secs, ChromiumBy: perSecondBy(by0, by1, secs),
		OthersCPU:    max(0, ((busy1-busy0)-(cpu1-cpu0)-(chrome1-chrome0)).Seconds()/secs),
		CrossCheckMs: durMs(res.CrossCheck.MaxDiff), EndReason: res.Capture.EndReason,
		AckMeanMs: durMs(res.AckMean), AckMaxMs: durMs(res.AckMax), RunTimeRatio: 1, AllCPU: (busy1 - busy0).Seconds() / secs,
	}, version, nil
}

// studioRun films the bench page in studio mode: the headless shell with
// begin-frame control, the page loaded and run for a second of virtual
// time (filmed into a scratch take), then o.Seconds of virtual time
// filmed into the measured take. Its run time is the wall time those
// frames took to make; CPU is per second of that wall time.
func studioRun(ctx context.Context, o CaptureOptions, w, h int, scale float64, pageURL string, n int, mode string) (captureRun, string, error) {
	if _, err := session.FindShell(o.Shell); err != nil {
		return captureRun{}, "", err
	}
	dir, drop, err := takeDir(o.Keep, dirName(w, h, scale, mode, n))
	if err != nil {
		return captureRun{}, "", err
	}
	defer drop()
	scratch, err := os.MkdirTemp("", "clapper-bench-")
	if err != nil {
		return captureRun{}, "", err
	}
	defer os.RemoveAll(scratch)
	if err := settle(ctx, o.Settle); err != nil {
		return captureRun{}, "", err
	}
	b, tab, closeAll, version, err := launch(ctx, o, w, h, scale, true)
	if err != nil {
		return captureRun{}, "", err
	}
	defer closeAll()
	clock := recorder.NewVirtualClock()
	opts := func(dir string, log *timeline.FrameLog) recorder.Options {
		return recorder.Options{Dir: dir, Log: log, Clock: clock, Tab: "bench", Quality: o.Quality, InitialURL: pageURL, StudioScreencast: mode == studioScreencast}
	}

	// Load the page and let it run for a second of its time.
	slog, err := timeline.CreateTake(filepath.Join(scratch, "take"))
	if err != nil {
		return captureRun{}, "", err
	}
	warm, err := recorder.StartStudio(tab, opts(filepath.Join(scratch, "take"), slog), recorder.DefaultFPS)
	if err != nil {
		slog.Close()
		return captureRun{}, "", err
	}
	done := clock.Virtual.Busy() // the pump paces itself by what waits on it
	nerr := session.Navigate(tab, pageURL)
	done()
	if nerr == nil {
		nerr = virtualSleep(ctx, clock, time.Second, warm.Done())
	}
	wres := warm.Stop(context.Background())
	slog.Close()
	if nerr != nil {
		return captureRun{}, "", fmt.Errorf("open the bench page: %w", nerr)
	}
	if wres.Err != nil {
		return captureRun{}, "", wres.Err
	}

	log, err := timeline.CreateTake(dir)
	if err != nil {
		return captureRun{}, "", err
	}
	tl := benchTimeline(version, w, h, scale)
	cpu0, by0, busy0 := selfCPU(), groupCPUBy(b.Pid()), machineBusy()
	chrome0 := total(by0)
	wall0 := time.Now()
	capt, err := recorder.StartStudio(tab, opts(dir, log), recorder.DefaultFPS)
	if err != nil {
		log.Close()
		return captureRun{}, "", err
	}
	serr := virtualSleep(ctx, clock, o.Seconds, capt.Done())
	res := capt.Stop(context.Background())
	wall := time.Since(wall0)
	cpu1, by1, busy1 := selfCPU(), groupCPUBy(b.Pid()), machineBusy()
	chrome1 := total(by1)
	if err := sealTake(dir, log, tl, res, serr); err != nil {
		return captureRun{}, "", err
	}
	closeAll()

	fig, err := benchpage.Analyze(dir)
	if err != nil {
		return captureRun{}, "", err
	}
	secs := wall.Seconds()
	return captureRun{
		Figures: fig, RecorderCPU: (cpu1 - cpu0).Seconds() / secs, ChromiumCPU: (chrome1 - chrome0).Seconds() / secs, ChromiumBy: perSecondBy(by0, by1, secs),
		OthersCPU: max(0, ((busy1-busy0)-(cpu1-cpu0)-(chrome1-chrome0)).Seconds()/secs), AllCPU: (busy1 - busy0).Seconds() / secs,
		EndReason: res.Capture.EndReason, RunTimeRatio: secs / (res.Capture.Ended - res.Capture.Started).Seconds(),
	}, version, nil
}

// virtualSleep waits d of the clock's virtual time, or until the capture
// ends or ctx does. It is a sleep to the pump, which makes frames freely
// meanwhile.
func virtualSleep(ctx context.Context, clock *recorder.Clock, d time.Duration, ended <-chan struct{}) error {
	ch, release := clock.Virtual.Sleep(d)
	defer release()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-ended:
		return errors.New("the capture ended early")
	}
}
