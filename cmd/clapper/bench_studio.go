package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// benchModes reads --capture: live, studio, or both (repeated or comma
// separated), each once, in the order given. With pictures,
// studio-screenshot is a mode too: studio capture taking each picture with
// its begin-frame instead of from the screencast beside the frame pump,
// to compare the two ways in one run.
func benchModes(vals []string, pictures bool) ([]string, error) {
	var modes []string
	for _, v := range vals {
		for _, m := range strings.Split(v, ",") {
			m = strings.TrimSpace(m)
			switch {
			case m == "live" || m == "studio":
			case m == studioScreenshot && pictures:
			case pictures:
				return nil, usageErr("--capture %q: use live, studio or %s (or live,studio to compare them)", m, studioScreenshot)
			default:
				return nil, usageErr("--capture %q: use live or studio (or live,studio to compare them)", m)
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

// studioScreenshot is the benchmarks' mode for studio capture with its
// pictures taken by each begin-frame (recorder.Options.StudioScreenshots).
const studioScreenshot = "studio-screenshot"

// benchScale splits WxH@S into WxH and the device scale S (1 or 2; 1
// when absent).
func benchScale(s string) (string, float64, error) {
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

// benchLabel names a size (and mode, when several are compared) in the
// report.
func benchLabel(w, h int, scale float64, mode string, withMode bool) string {
	l := fmt.Sprintf("%dx%d", w, h)
	if scale != 1 {
		l += "@" + strconv.FormatFloat(scale, 'f', -1, 64)
	}
	if withMode {
		l += " " + mode
	}
	return l
}

// benchDirName names a kept take: WxH-runN for live (as before studio
// capture existed), WxH-studio-runN for studio, with @S after the size
// at a device scale other than 1.
func benchDirName(w, h int, scale float64, mode string, n int) string {
	return strings.ReplaceAll(benchLabel(w, h, scale, mode, mode != "live"), " ", "-") + fmt.Sprintf("-run%d", n)
}

// benchStudioRun films the bench page in studio mode: the headless shell
// with begin-frame control, the page loaded and run for a second of
// virtual time (filmed into a scratch take), then o.seconds of virtual
// time filmed into the measured take. Its run time is the wall time those
// frames took to make; CPU is per second of that wall time.
func benchStudioRun(ctx context.Context, o benchCaptureOptions, w, h int, scale float64, pageURL string, n int, mode string) (benchRun, string, error) {
	shell, err := session.FindShell(o.shell)
	if err != nil {
		return benchRun{}, "", err
	}
	dir, drop, err := benchTakeDir(o.keep, benchDirName(w, h, scale, mode, n))
	if err != nil {
		return benchRun{}, "", err
	}
	defer drop()
	scratch, err := os.MkdirTemp("", "clapper-bench-")
	if err != nil {
		return benchRun{}, "", err
	}
	defer os.RemoveAll(scratch)
	if err := settle(ctx, o.settle); err != nil {
		return benchRun{}, "", err
	}
	b, err := session.Launch(ctx, session.LaunchOptions{Path: shell, Studio: true, Scale: scale, NoSandbox: o.noSandbox, Width: w, Height: h, Args: o.args})
	if err != nil {
		if errors.Is(err, session.ErrRootNeedsNoSandbox) {
			return benchRun{}, "", usageErr("%w", err)
		}
		return benchRun{}, "", err
	}
	defer b.Close()
	tab, closeTab, err := b.NewStudioTab(ctx, w, h)
	if err != nil {
		return benchRun{}, "", err
	}
	defer closeTab()
	version, _ := session.Version(tab)
	if err := session.SetViewport(tab, w, h, scale); err != nil {
		return benchRun{}, "", fmt.Errorf("set viewport: %w", err)
	}
	clock := recorder.NewVirtualClock()
	opts := func(dir string, log *timeline.FrameLog) recorder.Options {
		return recorder.Options{Dir: dir, Log: log, Clock: clock, Tab: "bench", Quality: o.quality, InitialURL: pageURL, StudioScreenshots: mode == studioScreenshot}
	}

	// Load the page and let it run for a second of its time.
	slog, err := timeline.CreateTake(filepath.Join(scratch, "take"))
	if err != nil {
		return benchRun{}, "", err
	}
	warm, err := recorder.StartStudio(tab, opts(filepath.Join(scratch, "take"), slog), recorder.DefaultFPS)
	if err != nil {
		slog.Close()
		return benchRun{}, "", err
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
		return benchRun{}, "", fmt.Errorf("open the bench page: %w", nerr)
	}
	if wres.Err != nil {
		return benchRun{}, "", wres.Err
	}

	log, err := timeline.CreateTake(dir)
	if err != nil {
		return benchRun{}, "", err
	}
	tl := &timeline.Timeline{
		Name: "bench capture", Tool: "clapper " + version, Outcome: "ok",
		Viewport: timeline.Viewport{Width: w, Height: h, Scale: scale},
		Steps:    []timeline.Step{}, Receipts: []timeline.Receipt{}, Holds: []timeline.Hold{},
	}
	cpu0, chrome0, busy0 := selfCPU(), groupCPU(b.Pid()), machineBusy()
	wall0 := time.Now()
	capt, err := recorder.StartStudio(tab, opts(dir, log), recorder.DefaultFPS)
	if err != nil {
		log.Close()
		return benchRun{}, "", err
	}
	serr := virtualSleep(ctx, clock, o.seconds, capt.Done())
	res := capt.Stop(context.Background())
	wall := time.Since(wall0)
	cpu1, chrome1, busy1 := selfCPU(), groupCPU(b.Pid()), machineBusy()
	if err := sealBenchTake(dir, log, tl, res, serr); err != nil {
		return benchRun{}, "", err
	}
	closeTab()
	b.Close()

	fig, err := benchpage.Analyze(dir)
	if err != nil {
		return benchRun{}, "", err
	}
	secs := wall.Seconds()
	return benchRun{
		Figures: fig, RecorderCPU: (cpu1 - cpu0).Seconds() / secs, ChromiumCPU: (chrome1 - chrome0).Seconds() / secs,
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
	case <-ended:
		return errors.New("the capture ended early")
	case <-ctx.Done():
		return ctx.Err()
	}
}
