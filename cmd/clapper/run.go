package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/clapper-dev/clapper/bundle"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/ownerlock"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

type runOptions struct {
	script    string
	out       string
	noSandbox bool
	chromium  string
	env       map[string]string
	noVideo   bool
	// early renders the video's chunks while capturing (earlyRender):
	// "on", "off", or "" for the default (on).
	early   string
	quiet   bool
	junit   string
	ffmpeg  string
	shared  sharedFlags
	view    bool
	headed  bool
	capture string
	shell   string
	// onCaptured, when set, is called as the capture ends, before the
	// render (clapper bench run times what follows the last step).
	onCaptured func()
	// capture tunes the recorder (clapper bench run compares settings);
	// silent drops the summary lines too (the bench reports its own).
	tuning recorder.Options
	silent bool
	// scriptDir, when set, is where the script's relative paths start
	// (replay: the take's copy of a script).
	scriptDir string
	// baseline is the take the run's take is compared with afterwards.
	baseline baselineOptions
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a script: the take goes to DIR/take/, videos to DIR/",
		Description: "Films SCRIPT in a Chromium clapper launches (with --browser, in a tab of its own of a shared browser) and renders\n" +
			"its videos. The take goes to DIR/take/ and the videos to DIR/ (default out/<script file name>); --view also writes\n" +
			"DIR/report.html, and --baseline compares the take with an approved one. A run that renders a video films in studio\n" +
			"capture, one with --no-video films live; --capture chooses. Exit 0 when every step passed, 1 when a step or\n" +
			"expectation failed (the take and the video up to it are kept), 2 for a usage or script error.\n" +
			"Example: clapper run samples/quickstart.yaml -o out/quickstart",
		ArgsUsage: "SCRIPT",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output folder (default out/<script file name>)"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "set a script variable, KEY=VALUE (repeatable)"},
			&cli.BoolFlag{Name: "no-video", Usage: "record the take only; render later with clapper render"},
			&cli.BoolFlag{Name: "render-while-capturing", Value: true, Usage: "render the MP4 video's settled chunks during the capture, so the video is done soon after the last step; the encoder runs only on what the capture leaves idle (--render-while-capturing=false: render after it)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML (one case per expect and per failing step) to FILE"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable"},
			&cli.StringFlag{Name: "capture", Usage: "live (the page in real time) or studio (every frame, on virtual time; needs chromium-headless-shell); default: the script's browser.capture, else studio when the run renders a video and live with --no-video (a run that attaches, shows its window or names its Chromium films live)"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.BoolFlag{Name: "view", Usage: "write the take's report (DIR/report.html, as clapper view does) when the run ends"},
			&cli.BoolFlag{Name: "headed", Usage: "show the browser's window (needed by handoff steps), whatever the script says"},
			&cli.StringFlag{Name: "baseline", Usage: "compare the take with this one (folder or .clap) step by step when the run ends, as clapper diff does; exit 1 when they differ"},
			&cli.BoolFlag{Name: "update", Usage: "with --baseline: make the new take the baseline (when the run passed), whatever the comparison says"},
		}, append(sharedRunFlags(), compareFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("run takes one script, e.g. clapper run samples/quickstart.yaml")
			}
			env, err := parseEnv(c.StringSlice("env"))
			if err != nil {
				return err
			}
			if c.Bool("update") && c.String("baseline") == "" {
				return usageErr("--update needs --baseline, the take to replace, e.g. --baseline baselines/quickstart.clap --update")
			}
			diff, err := compareOptionsOf(c)
			if err != nil {
				return err
			}
			return runScript(c.Context, runOptions{
				script: c.Args().First(), out: c.String("out"), noSandbox: c.Bool("no-sandbox"),
				chromium: c.String("chromium"), env: env, noVideo: c.Bool("no-video"), early: onOff(c, "render-while-capturing"), quiet: c.Bool("quiet"), junit: c.String("junit"),
				ffmpeg: c.String("ffmpeg"), shared: sharedFlagsOf(c), view: c.Bool("view"), headed: c.Bool("headed"),
				capture: c.String("capture"), shell: c.String("chromium-shell"),
				baseline: baselineOptions{path: c.String("baseline"), update: c.Bool("update"), diff: diff},
			})
		},
	}
}

func parseEnv(kvs []string) (map[string]string, error) {
	env := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErr("-e %q: use KEY=VALUE", kv)
		}
		env[k] = v
	}
	return env, nil
}

// loadScript parses a script (headed: as --headed says), turning its
// errors into a usage exit.
func loadScript(path string, env map[string]string, headed bool, dir string) (*scripts.Script, error) {
	s, err := scripts.Load(path, scripts.LoadOptions{Env: env, LookupEnv: os.LookupEnv, Headed: headed, Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return nil, &exitError{code: exitUsage, err: &quietError{err}}
	}
	return s, nil
}

func runScript(ctx context.Context, o runOptions) error {
	s, err := loadScript(o.script, o.env, o.headed, o.scriptDir)
	if err != nil {
		return err
	}
	if err := checkBaseline(o.baseline); err != nil {
		return err
	}
	out := o.out
	if out == "" {
		out = filepath.Join("out", strings.TrimSuffix(filepath.Base(o.script), filepath.Ext(o.script)))
	}
	// Render settings are checked before anything launches, too.
	rc := configOf(s.Output)
	settings, err := renderSettings(rc, renderFlags{ffmpeg: o.ffmpeg})
	if err != nil {
		err = outputError(o.script, s, err)
		fmt.Fprintln(os.Stderr, err)
		return &exitError{code: exitUsage, err: &quietError{err}}
	}
	attach, leased, err := sharedRun(s, o.shared)
	if err != nil {
		return err
	}
	if o.capture != "" && o.capture != scripts.CaptureLive && o.capture != scripts.CaptureStudio {
		return usageErr("--capture %q: use live or studio", o.capture)
	}
	shell, shellErr := session.FindShell(o.shell)
	ask := session.AskOf(s, session.CaptureAsk{Flag: o.capture, Attach: attach != "", Chromium: o.chromium != "",
		Video: !o.noVideo && len(s.Output.Video) > 0})
	choice, err := session.ChooseCapture(ask, shell, shellErr)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if choice.Note != "" {
		fmt.Fprintln(os.Stderr, "clapper: "+choice.Note)
	}
	needs := needsOf(s, o, settings.FFmpeg)
	if choice.Mode == scripts.CaptureStudio {
		needs.chromium = choice.Shell // the shell is what launches
	}
	if err := preflight(needs, os.Geteuid(), findChromium, lookFFmpeg); err != nil {
		return err
	}
	// One writer per take: the run holds its output folder for its whole
	// life, and a second run given the same folder is refused before
	// anything launches.
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create output folder: %w", err)
	}
	lock, stale, err := ownerlock.Acquire(filepath.Join(out, lockFile), "clapper run "+o.script)
	var held *ownerlock.HeldError
	switch {
	case errors.As(err, &held):
		return usageErr("output folder %s is in use by %s: wait for it to end, or pass another -o", out, held.Owner)
	case err != nil:
		return err
	case stale != nil:
		fmt.Fprintf(os.Stderr, "clapper: took over %s from %s, which is gone\n", out, stale)
	}
	defer lock.Release()
	// What killed runs left in the temporary folder goes (the browser's
	// profiles are swept when it launches).
	compositor.SweepWorkDirs(os.TempDir())
	bundle.SweepTemp(os.TempDir())
	takeDir := filepath.Join(out, "take")
	if err := os.MkdirAll(takeDir, 0o755); err != nil {
		return fmt.Errorf("create output folder: %w", err)
	}
	if err := compositor.WriteRenderConfig(takeDir, rc); err != nil {
		return err
	}
	ui := newUI(o.quiet)
	if o.silent {
		ui.out = io.Discard
	}
	started := time.Now()
	var early *earlyRender
	if !o.noVideo && renderEarly(o.early) {
		early = startEarlyRender(ctx, takeDir, s.Output.Video, settings, ui.logf)
		defer early.remove()
	}
	res, runErr := session.Run(ctx, s, session.RunOptions{
		TakeDir: takeDir, NoSandbox: o.noSandbox, Chromium: o.chromium, Tool: "clapper " + version, Revision: revision,
		Progress: ui.step, Logf: ui.logf, Attach: attach, Leases: leased, Handoff: ui.handoff,
		Filming: &choice, Capture: o.tuning,
	})
	ui.doneSteps()
	if o.onCaptured != nil {
		o.onCaptured()
	}
	cache := early.finish()
	if runErr != nil && res == nil {
		if errors.Is(runErr, session.ErrRootNeedsNoSandbox) {
			return usageErr("%w", runErr)
		}
		return fmt.Errorf("run %s: %w", o.script, runErr)
	}
	tl := res.Timeline
	ui.printf("take: %s (%.1fs, %d frames, run took %.1fs)\n", takeDir, time.Duration(tl.End-tl.Start).Seconds(), tl.Capture.Frames.Delivered, time.Since(started).Seconds())
	if line := timeline.OptionalFailures(tl); line != "" && !o.silent {
		// Said even with --quiet: the run passes, but not everything did.
		fmt.Fprintln(os.Stderr, "clapper: "+line)
	}
	if o.junit != "" {
		x, err := timeline.JUnit(tl)
		if err == nil {
			err = os.WriteFile(o.junit, x, 0o644)
		}
		if err != nil {
			return fmt.Errorf("write JUnit report: %w", err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// The video is made up to the point reached, even when a step failed.
	var renderErr error
	if !o.noVideo {
		renderErr = renderOutputsCached(ctx, takeDir, takeDir, out, s.Output.Video, settings, ui, cache)
		if renderErr == nil {
			early.used()
		}
	}
	viewErr := afterRun(ctx, takeDir, out, o.view, ui)
	passed := res.Failed == nil && (tl.Capture.EndReason == "stopped" || tl.Capture.EndReason == "")
	diffErr := compareBaseline(ctx, o.baseline, takeDir, out, passed, ui)
	switch {
	case res.Failed != nil:
		fmt.Fprintln(os.Stderr, res.Failed.Error())
		fmt.Fprintln(os.Stderr, viewHint(takeDir, out, o.view && viewErr == nil))
		return &exitError{code: exitFailed, err: &quietError{res.Failed}}
	case tl.Capture.EndReason != "stopped" && tl.Capture.EndReason != "":
		return &exitError{code: exitFailed, err: fmt.Errorf("capture ended early: %s (the take so far is in %s)", tl.Capture.EndReason, takeDir)}
	}
	if renderErr != nil {
		return renderErr
	}
	if diffErr != nil {
		return diffErr
	}
	return viewErr
}

// lockFile, in an output folder, names the run writing it.
const lockFile = ".clapper.lock"

// folderInUse says whether a live run holds dir, and who.
func folderInUse(dir string) (ownerlock.Owner, bool) {
	o, err := ownerlock.Read(filepath.Join(dir, lockFile))
	return o, err == nil && o.Alive()
}

// onOff reads a boolean flag as "on", "off", or "" when it was not given.
func onOff(c *cli.Context, name string) string {
	switch {
	case !c.IsSet(name):
		return ""
	case c.Bool(name):
		return "on"
	default:
		return "off"
	}
}

// renderEarly decides whether a run renders its video while capturing:
// as asked, else yes, filming in either mode. In studio mode virtual time
// waits for the encoder, so the footage loses nothing. Live, the encoder
// (idle class, one thread a chunk) takes only what the capture leaves: on
// the bench run at 1280x720 it brought the run from 1.47x to 1.36x its
// scenario, with no difference in coverage through the noise. Pure.
func renderEarly(asked string) bool {
	return asked != "off"
}
