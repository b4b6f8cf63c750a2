package main

import (
	"strings"

	"github.com/clapper-dev/clapper/film"
	"github.com/urfave/cli/v2"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a script (the take goes to DIR/take/, videos to DIR/), or a suite of them",
		Description: "Films SCRIPT in a Chromium clapper launches (with --browser, in a tab of its own of a shared browser) and renders\n" +
			"its videos. The take goes to DIR/take/ and the videos to DIR/ (default out/<script file name>); --view also writes\n" +
			"DIR/report.html, and --baseline compares the take with an approved one. A run that renders a video films in studio\n" +
			"capture, one with --no-video films live; --capture chooses. Exit 0 when every step passed, 1 when a step or\n" +
			"expectation failed (the take and the video up to it are kept), 2 for a usage or script error.\n" +
			"Given several scripts or a folder (its .yaml scripts, not the parts they include), run films a suite: each script\n" +
			"into DIR/<its path without .yaml>/ (DIR defaults to out), --workers at once, and writes DIR/suite.json,\n" +
			"DIR/index.html (failures first) and, with --junit, one JUnit file; exit 1 when any script failed.\n" +
			"Example: clapper run samples/quickstart.yaml -o out/quickstart\n" +
			"Example: clapper run samples/ -o out/all --junit out/all/junit.xml",
		ArgsUsage: "SCRIPT...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output folder (default out/<script file name>)"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "set a script variable, KEY=VALUE (repeatable)"},
			&cli.BoolFlag{Name: "no-video", Usage: "record the take only; render later with clapper render"},
			&cli.BoolFlag{Name: "render-while-capturing", Value: true, Usage: "render the MP4 video's settled chunks during a studio capture, so the video is done soon after the last step; the encoder runs only on what the capture leaves idle (--render-while-capturing=false: render after it; a live take is always rendered in one ffmpeg run after it)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML (one case per expect and per failing step) to FILE"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable"},
			&cli.StringFlag{Name: "capture", Usage: "live (the page in real time) or studio (every frame, on virtual time; needs chromium-headless-shell); default: the script's browser.capture, else studio when the run renders a video and live with --no-video (a run that attaches, shows its window or names its Chromium films live)"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.BoolFlag{Name: "view", Usage: "write the take's report (DIR/report.html, as clapper view does) when the run ends"},
			&cli.BoolFlag{Name: "headed", Usage: "show the browser's window (needed by handoff steps), whatever the script says"},
			&cli.StringFlag{Name: "baseline", Usage: "compare the take with this one (folder or .clap) step by step when the run ends, as clapper diff does; exit 1 when they differ (with many scripts: a folder of baselines, DIR/<script path without .yaml>.clap each)"},
			&cli.BoolFlag{Name: "update", Usage: "with --baseline: make the new take the baseline (when the run passed), whatever the comparison says (with many scripts, each passing script's)"},
		}, append(append(sharedRunFlags(), compareFlags()...), suiteFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usageErr("run takes a script (or several, or folders of them), e.g. clapper run samples/quickstart.yaml")
			}
			env, err := parseEnv(c.StringSlice("env"))
			if err != nil {
				return err
			}
			o := film.Options{
				Out: c.String("out"), NoSandbox: c.Bool("no-sandbox"),
				Chromium: c.String("chromium"), Env: env, NoVideo: c.Bool("no-video"), Early: onOff(c, "render-while-capturing"), UI: film.NewUI(c.Bool("quiet"), c.App.Writer, c.App.ErrWriter), JUnit: c.String("junit"),
				FFmpeg: c.String("ffmpeg"), Shared: sharedFlagsOf(c), View: c.Bool("view"), Headed: c.Bool("headed"),
				Capture: c.String("capture"), Shell: c.String("chromium-shell"),
				Tool: "clapper " + version, Revision: revision,
			}
			if isSuite(c) {
				return runSuite(c, o)
			}
			if c.Bool("update") && c.String("baseline") == "" {
				return usageErr("--update needs --baseline, the take to replace, e.g. --baseline baselines/quickstart.clap --update")
			}
			diff, err := compareOptionsOf(c)
			if err != nil {
				return err
			}
			o.Script = c.Args().First()
			o.Baseline = film.Baseline{Path: c.String("baseline"), Update: c.Bool("update"), Diff: diff}
			return film.Run(c.Context, o)
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
