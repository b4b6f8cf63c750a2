// Package film runs a script from start to finish, as clapper run does:
// it checks what the run needs before anything launches, holds the output
// folder, films the take (session.Run), renders the video (while the
// capture goes on, then after it), writes the JUnit file and the report,
// and compares the take with a baseline. The command line, a suite runner
// and the benchmarks call Run with options; none of them repeats its steps.
package film

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/internal/ownerlock"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// Options are what a run is given: clapper run's flags.
type Options struct {
	// Script is the run script's path; Out the output folder (default
	// out/<script name>): the take goes to Out/take, videos to Out.
	Script, Out string
	// ScriptDir, when set, is where the script's relative paths start
	// (replay films a take's copy of a script).
	ScriptDir string
	// Env sets script variables (-e KEY=VALUE).
	Env map[string]string
	// NoSandbox runs Chromium without its sandbox (needed as root).
	NoSandbox bool
	// Chromium, Shell and FFmpeg name the executables ("" to search).
	Chromium, Shell, FFmpeg string
	// Capture is live or studio, "" for the script's choice.
	Capture string
	// Headed shows the browser's window, whatever the script says.
	Headed bool
	// NoVideo records the take only.
	NoVideo bool
	// Early renders the video's chunks while capturing: "on", "off", or
	// "" for the default (on).
	Early string
	// JUnit, when set, is where the JUnit XML goes.
	JUnit string
	// View writes the take's report (Out/report.html) when the run ends.
	View bool
	// Shared is where the run's browser is when others share it.
	Shared host.Shared
	// Studio, when set, is the endpoint of a headless shell a studio run
	// films in, in a browser context of its own, instead of launching one
	// (session.RunOptions.Studio): a suite lends its studio scripts' runs
	// its shells.
	Studio string
	// Baseline is the take the run's take is compared with afterwards.
	Baseline Baseline
	// UI shows progress and results (nil: NewUI(false, os.Stdout, os.Stderr)).
	UI *UI
	// Silent drops the summary lines too (the bench reports its own).
	Silent bool
	// OnCaptured, when set, is called as the capture ends, before the
	// render (clapper bench run times what follows the last step).
	OnCaptured func()
	// Tuning tunes the recorder (clapper bench run compares settings).
	Tuning recorder.Options
	// Tool is the version string the take records ("clapper v1.2.0");
	// Revision the VCS revision, for its manifest.
	Tool, Revision string
}

// LockFile, in an output folder, names the run writing it.
const LockFile = ".clapper.lock"

// FolderInUse says whether a live run holds dir, and who.
func FolderInUse(dir string) (ownerlock.Owner, bool) {
	o, err := ownerlock.Read(filepath.Join(dir, LockFile))
	return o, err == nil && o.Alive()
}

// loadScript parses a script (headed: as --headed says), printing its
// errors on errw and returning them as a usage exit.
func loadScript(path string, env map[string]string, headed bool, dir string, errw io.Writer) (*scripts.Script, error) {
	s, err := scripts.Load(path, scripts.LoadOptions{Env: env, LookupEnv: os.LookupEnv, Headed: headed, Dir: dir})
	if err != nil {
		fmt.Fprintln(errw, err)
		return nil, &exit.Error{Code: exit.Usage, Err: &exit.Quiet{Err: err}}
	}
	return s, nil
}

// DefaultOut is the output folder of a script when none is given.
func DefaultOut(script string) string {
	return filepath.Join("out", strings.TrimSuffix(filepath.Base(script), filepath.Ext(script)))
}

// Run films o.Script. The error says how the run ended (exit.Error's
// code): a script or usage error before anything launched (2), a failed
// step, capture, render or comparison (1).
func Run(ctx context.Context, o Options) error {
	_, err := Film(ctx, o)
	return err
}

// Result is what a run made: where, and how it went.
type Result struct {
	// Out is the output folder, TakeDir the take's folder in it.
	Out, TakeDir string
	// Timeline is the take's record; nil when the run ended before it
	// filmed anything.
	Timeline *timeline.Timeline
	// Failed is the step that failed the run, nil when none did.
	Failed *session.StepFailure
	// Videos are the videos rendered, as they are on disk (a file, or the
	// folder of a PNG output's frames); Report the take's
	// report when one was written.
	Videos []string
	Report string
}

// Film is Run, also returning what the run made (nil when it stopped
// before its output folder was made).
func Film(ctx context.Context, o Options) (*Result, error) {
	ui := o.UI
	if ui == nil {
		ui = NewUI(false, os.Stdout, os.Stderr)
	}
	if o.Silent {
		ui.out = io.Discard
	}
	s, err := loadScript(o.Script, o.Env, o.Headed, o.ScriptDir, ui.errw)
	if err != nil {
		return nil, err
	}
	if err := checkBaseline(o.Baseline); err != nil {
		return nil, err
	}
	out := o.Out
	if out == "" {
		out = DefaultOut(o.Script)
	}
	// Render settings are checked before anything launches, too.
	rc := ConfigOf(s.Output)
	settings, err := RenderSettings(rc, RenderFlags{FFmpeg: o.FFmpeg})
	if err != nil {
		err = OutputError(o.Script, s, err)
		ui.Errorln(err.Error())
		return nil, &exit.Error{Code: exit.Usage, Err: &exit.Quiet{Err: err}}
	}
	attach, leased, err := host.Resolve(s, o.Shared)
	if err != nil {
		return nil, err
	}
	if o.Capture != "" && o.Capture != scripts.CaptureLive && o.Capture != scripts.CaptureStudio {
		return nil, exit.Usagef("--capture %q: use live or studio", o.Capture)
	}
	shell, shellErr := session.FindShell(o.Shell)
	ask := session.AskOf(s, session.CaptureAsk{Flag: o.Capture, Attach: attach != "", Chromium: o.Chromium != "",
		Video: !o.NoVideo && len(s.Output.Video) > 0})
	choice, err := session.ChooseCapture(ask, shell, shellErr)
	if err != nil {
		return nil, &exit.Error{Code: exit.Failed, Err: err}
	}
	if choice.Note != "" {
		ui.Warnf("%s", choice.Note)
	}
	needs := needsOf(s, o, settings.FFmpeg)
	if choice.Mode == scripts.CaptureStudio {
		needs.chromium = choice.Shell // the shell is what launches
	}
	if err := preflight(needs, os.Geteuid(), FindChromium, LookFFmpeg); err != nil {
		return nil, err
	}
	// One writer per take: the run holds its output folder for its whole
	// life, and a second run given the same folder is refused before
	// anything launches.
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	lock, stale, err := ownerlock.Acquire(filepath.Join(out, LockFile), "clapper run "+o.Script)
	var held *ownerlock.HeldError
	switch {
	case errors.As(err, &held):
		return nil, exit.Usagef("output folder %s is in use by %s: wait for it to end, or pass another -o", out, held.Owner)
	case err != nil:
		return nil, err
	case stale != nil:
		ui.Warnf("took over %s from %s, which is gone", out, stale)
	}
	defer lock.Release()
	// What killed runs left in the temporary folder goes (the browser's
	// profiles are swept when it launches).
	compositor.SweepWorkDirs(os.TempDir())
	bundle.SweepTemp(os.TempDir())
	takeDir := filepath.Join(out, "take")
	if err := os.MkdirAll(takeDir, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	if err := compositor.WriteRenderConfig(takeDir, rc); err != nil {
		return nil, err
	}
	started := time.Now()
	var early *compositor.Early
	if !o.NoVideo && RenderEarly(o.Early) {
		early = compositor.StartEarly(ctx, takeDir, choice.Mode, s.Output.Video, settings, ui.Logf)
		defer early.Remove()
	}
	res, runErr := session.Run(ctx, s, session.RunOptions{
		TakeDir: takeDir, NoSandbox: o.NoSandbox, Chromium: o.Chromium, Tool: o.Tool, Revision: o.Revision,
		Progress: ui.Step, Logf: ui.Logf, Attach: attach, Leases: leased, Handoff: ui.Handoff,
		Filming: &choice, Capture: o.Tuning, Studio: o.Studio,
	})
	ui.DoneSteps()
	if o.OnCaptured != nil {
		o.OnCaptured()
	}
	cache := early.Finish()
	if runErr != nil && res == nil {
		if errors.Is(runErr, session.ErrRootNeedsNoSandbox) {
			return nil, exit.Usagef("%w", runErr)
		}
		return &Result{Out: out, TakeDir: takeDir}, fmt.Errorf("run %s: %w", o.Script, runErr)
	}
	tl := res.Timeline
	r := &Result{Out: out, TakeDir: takeDir, Timeline: tl, Failed: res.Failed}
	ui.Printf("take: %s (%.1fs, %d frames, run took %.1fs)\n", takeDir, time.Duration(tl.End-tl.Start).Seconds(), tl.Capture.Frames.Delivered, time.Since(started).Seconds())
	if line := timeline.OptionalFailures(tl); line != "" && !o.Silent {
		// Said even with --quiet: the run passes, but not everything did.
		ui.Warnf("%s", line)
	}
	if o.JUnit != "" {
		x, err := timeline.JUnit(tl)
		if err == nil {
			err = os.WriteFile(o.JUnit, x, 0o644)
		}
		if err != nil {
			return r, fmt.Errorf("write JUnit report: %w", err)
		}
	}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	// The video is made up to the point reached, even when a step failed.
	var renderErr error
	if !o.NoVideo {
		renderErr = RenderOutputsCached(ctx, takeDir, takeDir, out, s.Output.Video, settings, ui, cache)
		if renderErr == nil {
			early.Report()
			for _, p := range outputPaths(out, s.Output.Video) {
				r.Videos = append(r.Videos, compositor.OnDisk(p))
			}
		}
	}
	viewErr := afterRun(ctx, takeDir, out, o.View, ui)
	if o.View && viewErr == nil {
		r.Report = filepath.Join(out, "report.html")
	}
	passed := res.Failed == nil && (tl.Capture.EndReason == "stopped" || tl.Capture.EndReason == "")
	diffErr := compareBaseline(ctx, o.Baseline, takeDir, out, passed, ui)
	switch {
	case res.Failed != nil:
		ui.Errorln(res.Failed.Error())
		ui.Errorln(viewHint(takeDir, out, o.View && viewErr == nil))
		return r, &exit.Error{Code: exit.Failed, Err: &exit.Quiet{Err: res.Failed}}
	case tl.Capture.EndReason != "stopped" && tl.Capture.EndReason != "":
		return r, &exit.Error{Code: exit.Failed, Err: fmt.Errorf("capture ended early: %s (the take so far is in %s)", tl.Capture.EndReason, takeDir)}
	}
	if renderErr != nil {
		return r, renderErr
	}
	if diffErr != nil {
		return r, diffErr
	}
	return r, viewErr
}

// RenderEarly decides whether a run may render its video while
// capturing: as asked, else yes. Only a video rendered in chunks is
// (compositor.Chunked: an MP4 of a studio take); in studio mode virtual
// time waits for the encoder, so the footage loses nothing. Pure.
func RenderEarly(asked string) bool {
	return asked != "off"
}
