package main

import (
	"os/exec"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/internal/bench"
	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/timeline"
)

// clapper bench: the flags of each benchmark into package bench's options.

func benchCommand() *cli.Command {
	capture := benchCaptureCommand()
	return &cli.Command{
		Name:  "bench",
		Usage: "capture and render benchmarks",
		Description: "Measure capture, render and whole runs on the bench page, a page that paints a code in every frame;\n" +
			"docs/internals.md has the figures and the commands that took them.\n" +
			"Example: clapper bench run --capture live,studio",
		HideHelpCommand: true,
		Subcommands:     []*cli.Command{capture, benchRenderCommand(), benchRunCommand(), benchSuiteCommand()},
		Action: func(c *cli.Context) error {
			return usageErr("bench needs a benchmark: clapper bench capture, clapper bench render, clapper bench run, or clapper bench suite")
		},
	}
}

func benchCaptureCommand() *cli.Command {
	return &cli.Command{
		Name:  "capture",
		Usage: "record the bench page for a fixed time and report rate, coverage, order, timing error and recorder CPU, from the take alone",
		Description: "Live and studio side by side with --capture live,studio (studio-screencast: studio with its pictures from a screencast\n" +
			"begin-frame instead of from the screencast); run time against the take, and the CPU of every process.\n" +
			"Example: clapper bench capture --capture studio,studio-screencast --seconds 3 --size 1280x720 --size 1280x720@2",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "size", Value: cli.NewStringSlice("1280x720"), Usage: "viewport WIDTHxHEIGHT, or WIDTHxHEIGHT@2 for device scale 2; repeatable"},
			&cli.StringSliceFlag{Name: "capture", Value: cli.NewStringSlice("live"), Usage: "capture mode: live, studio, or studio-screencast (studio with its pictures from a screencast beside the frame pump instead of with each begin-frame); repeatable (or live,studio) to compare them in one run"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.Float64Flag{Name: "seconds", Value: 10, Usage: "capture length per run, in seconds"},
			&cli.IntFlag{Name: "runs", Value: 3, Usage: "runs per size; figures are their medians"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.IntFlag{Name: "quality", Value: recorder.DefaultQuality, Usage: "JPEG quality"},
			&cli.IntFlag{Name: "in-flight", Value: recorder.DefaultFramesInFlight, Usage: "maxFramesInFlight asked of Chromium"},
			&cli.BoolFlag{Name: "send-last-frame", Value: recorder.DefaultSendLastFrame, Usage: "ask Chromium to send the last frame it held back on the next ack (--send-last-frame=false turns it off)"},
			&cli.IntFlag{Name: "every-nth", Value: 1, Usage: "ask Chromium for one frame in n"},
			&cli.StringFlag{Name: "mapping", Usage: "force the source-time mapping: monotonic or wall-offset"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringSliceFlag{Name: "chromium-arg", Usage: "extra Chromium flag, e.g. --chromium-arg=--disable-gpu-vsync; repeatable"},
			&cli.StringFlag{Name: "keep", Usage: "keep each run's take in this folder"},
			&cli.DurationFlag{Name: "settle", Value: 30 * time.Second, Usage: "before each run, wait up to this long for other work on the machine to fall under a third of a core (0: do not wait)"},
		},
		Action: func(cc *cli.Context) error {
			c := lineageFlags{cc}
			o := bench.CaptureOptions{
				Seconds: time.Duration(c.Float64("seconds") * float64(time.Second)), Runs: c.Int("runs"), JSON: c.Bool("json"),
				Quality: c.Int("quality"), InFlight: c.Int("in-flight"), EveryNth: c.Int("every-nth"),
				SendLast: c.Bool("send-last-frame"), Mapping: c.String("mapping"), Chromium: c.String("chromium"),
				NoSandbox: c.Bool("no-sandbox"), Args: c.StringSlice("chromium-arg"), Keep: c.String("keep"),
				Settle: c.Duration("settle"),
			}
			modes, err := bench.Modes(c.StringSlice("capture"), true)
			if err != nil {
				return err
			}
			o.Modes, o.Shell = modes, c.String("chromium-shell")
			for _, s := range c.StringSlice("size") {
				s, scale, err := bench.Scale(s)
				if err != nil {
					return usageErr("--size %q: %v", s, err)
				}
				o.Scales = append(o.Scales, scale)
				w, h, err := parseSize(s)
				if err != nil {
					return usageErr("--size %q: %v", s, err)
				}
				if w < benchpage.MinWidth || h < benchpage.MinHeight {
					return usageErr("--size %q: the bench page's code needs at least %dx%d", s, benchpage.MinWidth, benchpage.MinHeight)
				}
				o.Sizes = append(o.Sizes, [2]int{w, h})
			}
			switch {
			case o.Seconds <= 0 || o.Runs <= 0:
				return usageErr("--seconds and --runs must be positive")
			case o.Quality < 1 || o.Quality > 100:
				return usageErr("--quality must be 1 to 100")
			case o.InFlight < 1 || o.EveryNth < 1:
				return usageErr("--in-flight and --every-nth must be at least 1")
			case o.Mapping != "" && o.Mapping != string(timeline.MappingMonotonic) && o.Mapping != string(timeline.MappingWallOffset):
				return usageErr("--mapping must be monotonic or wall-offset")
			}
			return bench.Capture(cc.Context, o, cc.App.Writer, cc.App.ErrWriter)
		},
	}
}

// lineageFlags reads a flag from the nearest command level that set it.
type lineageFlags struct{ c *cli.Context }

func (l lineageFlags) at(name string) *cli.Context {
	for _, x := range l.c.Lineage() {
		if x.Command != nil && x.IsSet(name) {
			return x
		}
	}
	return l.c
}

func (l lineageFlags) StringSlice(n string) []string { return l.at(n).StringSlice(n) }
func (l lineageFlags) String(n string) string        { return l.at(n).String(n) }
func (l lineageFlags) Float64(n string) float64      { return l.at(n).Float64(n) }
func (l lineageFlags) Int(n string) int              { return l.at(n).Int(n) }
func (l lineageFlags) Bool(n string) bool            { return l.at(n).Bool(n) }
func (l lineageFlags) Duration(n string) time.Duration {
	return l.at(n).Duration(n)
}

func benchRenderCommand() *cli.Command {
	return &cli.Command{
		Name:        "render",
		Usage:       "render speed (720p30, 1080p60, with and without overlays) and resampling quality on a take of the bench page",
		Description: "Example: clapper bench render --seconds 5 --runs 3",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "take", Usage: "a take of the bench page (from bench capture --keep); default: record one"},
			&cli.StringFlag{Name: "size", Value: "1280x720", Usage: "viewport of the take to record"},
			&cli.Float64Flag{Name: "seconds", Value: 10, Usage: "length of the take to record, and of the synthetic take for speed"},
			&cli.IntFlag{Name: "fps", Value: 60, Usage: "output rate for the quality check"},
			&cli.IntFlag{Name: "runs", Value: 3, Usage: "renders per speed case; figures are their medians"},
			&cli.BoolFlag{Name: "no-speed", Usage: "skip the speed cases"},
			&cli.StringFlag{Name: "x264-preset", Usage: "x264 preset for the speed cases (default: the compositor's)"},
			&cli.BoolFlag{Name: "no-quality", Usage: "skip the quality check (and recording a take)"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			w, h, err := parseSize(c.String("size"))
			if err != nil {
				return usageErr("--size: %v", err)
			}
			secs := time.Duration(c.Float64("seconds") * float64(time.Second))
			return bench.Render(c.Context, bench.RenderOptions{Take: c.String("take"), W: w, H: h, Secs: secs, FPS: c.Int("fps"), Runs: c.Int("runs"),
				Speed: !c.Bool("no-speed"), Quality: !c.Bool("no-quality"), NoSandbox: c.Bool("no-sandbox"), JSON: c.Bool("json"), Preset: c.String("x264-preset")}, c.App.Writer)
		},
	}
}

func benchRunCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a scripted scenario on the bench page end to end (record and video) and report wall time, CPU of every process, coverage, freezes, drift and repeated frames",
		Description: "The scenario (typing, a navigation, a wheel scroll) is recorded and rendered through clapper run's own path. It\n" +
			"reports wall time against the scenario's length, the time from the last step to the video written, the longest\n" +
			"freeze of each run (where it began, and the step running), the screencast restarts, drift (each frame's source time\n" +
			"less its animation-frame time, against the frames within 500 ms of it, and against its whole document), repeated video frames\n" +
			"and the first frame; live and studio side by side, and how many video frames and stored pictures of each run are\n" +
			"the first run's. CPU is broken down by process (Chromium's browser, gpu and renderer, ffmpeg, clapper). Every\n" +
			"series is also measured from its video alone (coverage, freeze, drift), the same measure for any recorder: with\n" +
			"--playwright the same scenario runs as a Playwright script recorded by its recordVideo, taking turns with clapper's.\n" +
			"Example: clapper bench run --capture live,studio --runs 3 --playwright .bench/playwright",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "size", Value: "1280x720", Usage: "viewport and video WIDTHxHEIGHT"},
			&cli.IntFlag{Name: "fps", Value: 60, Usage: "video frame rate"},
			&cli.IntFlag{Name: "runs", Value: 3, Usage: "runs per mode; figures are their medians"},
			&cli.StringSliceFlag{Name: "capture", Value: cli.NewStringSlice("live"), Usage: "capture mode: live, studio, or studio-screencast (studio with its pictures from a screencast beside the frame pump instead of with each begin-frame); repeatable (or live,studio) to compare them in one run"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.StringFlag{Name: "settled-by", Value: "both", Usage: "live: how the settled picture after a step is had: frame (one more screencast frame), screenshot, or both (runs alternate)"},
			&cli.StringFlag{Name: "restart-screencast", Value: "on", Usage: "live: restart the screencast after each 750 ms of steady frames (on, as clapper run), keep one (off), or both (runs alternate)"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringFlag{Name: "keep", Usage: "keep each run's output folder in this folder"},
			&cli.DurationFlag{Name: "settle", Value: 30 * time.Second, Usage: "before each run, wait up to this long for other work on the machine to fall under a third of a core (0: do not wait)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "playwright", Usage: "also run the scenario as a Playwright script recorded with recordVideo, runs taking turns with clapper's: a playwright-core package folder, or a folder whose node_modules holds one; " + bench.PlaywrightInstallHint},
			&cli.StringFlag{Name: "node", Value: "node", Usage: "the Node.js that runs the Playwright script"},
			&cli.BoolFlag{Name: "render-while-capturing", Value: true, Usage: "render the video's chunks during a studio capture, as clapper run does (--render-while-capturing=false: render after it; live takes are rendered in one ffmpeg run after the capture)"},
		},
		Action: func(c *cli.Context) error {
			w, h, err := parseSize(c.String("size"))
			if err != nil {
				return usageErr("--size: %v", err)
			}
			if w < 1160 || h < 640 {
				return usageErr("--size %q: the scenario's field and list need at least 1160x640", c.String("size"))
			}
			captures, err := bench.Modes(c.StringSlice("capture"), true)
			if err != nil {
				return err
			}
			modes, err := bench.RunModes(captures, c.String("settled-by"), c.String("restart-screencast"))
			if err != nil {
				return err
			}
			o := bench.RunOptions{W: w, H: h, FPS: c.Int("fps"), Runs: c.Int("runs"), NoSandbox: c.Bool("no-sandbox"), JSON: c.Bool("json"), Modes: modes,
				Chromium: c.String("chromium"), Shell: c.String("chromium-shell"), FFmpeg: c.String("ffmpeg"), Keep: c.String("keep"),
				Early: onOff(c, "render-while-capturing"), QuietWait: c.Duration("settle"), Tool: "clapper " + version, Revision: revision,
				Playwright: c.String("playwright"), Node: c.String("node")}
			if o.Runs < 1 || o.FPS < 1 {
				return usageErr("--runs and --fps must be positive")
			}
			if o.Playwright != "" {
				if _, err := bench.FindPlaywright(o.Playwright); err != nil {
					return err
				}
				if _, err := exec.LookPath(o.Node); err != nil {
					return usageErr("--node %q: %v (Node.js runs the Playwright script: install it, or pass --node PATH)", o.Node, err)
				}
				o.Modes = append(o.Modes, bench.PlaywrightMode)
			}
			return bench.Run(c.Context, o, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func benchSuiteCommand() *cli.Command {
	return &cli.Command{
		Name:  "suite",
		Usage: "film copies of a script one clapper run after another and as a suite with each number of workers, live and studio, and report wall time and CPU of each",
		Description: "The copies go to a temporary folder with the script's folder's other files (a served site) and the parts it\n" +
			"includes. Runs alternate between the ways; CPU counts clapper and everything it started.\n" +
			"Example: clapper bench suite --copies 12 --workers 1,2,3 --capture live,studio",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "script", Value: "samples/quickstart.yaml", Usage: "the script to copy"},
			&cli.IntFlag{Name: "copies", Value: 12, Usage: "how many copies make the suite"},
			&cli.IntSliceFlag{Name: "workers", Value: cli.NewIntSlice(1, 2, 3), Usage: "the numbers of workers to compare (repeatable, or 1,2,3)"},
			&cli.StringSliceFlag{Name: "capture", Value: cli.NewStringSlice("live", "studio"), Usage: "capture modes: live, studio (repeatable, or live,studio)"},
			&cli.IntFlag{Name: "runs", Value: 1, Usage: "runs of each way; figures are their medians"},
			&cli.BoolFlag{Name: "no-video", Usage: "film the takes only, as clapper run --no-video"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringFlag{Name: "keep", Usage: "keep each way's output folder in this folder"},
			&cli.DurationFlag{Name: "settle", Value: 30 * time.Second, Usage: "before each way, wait up to this long for other work on the machine to fall under a third of a core (0: do not wait)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			captures, err := bench.Modes(c.StringSlice("capture"), false)
			if err != nil {
				return err
			}
			o := bench.SuiteOptions{Script: c.String("script"), Copies: c.Int("copies"), Workers: c.IntSlice("workers"), Captures: captures, Runs: c.Int("runs"),
				NoVideo: c.Bool("no-video"), NoSandbox: c.Bool("no-sandbox"), JSON: c.Bool("json"), Chromium: c.String("chromium"), Shell: c.String("chromium-shell"),
				FFmpeg: c.String("ffmpeg"), Keep: c.String("keep"), QuietWait: c.Duration("settle"), Tool: "clapper " + version, Revision: revision}
			if o.Copies < 1 || o.Runs < 1 || slices.Min(append(o.Workers, 1)) < 1 {
				return usageErr("--copies, --runs and --workers must be 1 or more")
			}
			return bench.Suite(c.Context, o, c.App.Writer, c.App.ErrWriter)
		},
	}
}
