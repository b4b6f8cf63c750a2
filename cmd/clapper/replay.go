package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/film"
)

// compareFlags are the flags that tune a comparison, shared by diff,
// replay and run --baseline.
func compareFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "every-frame", Usage: "compare every frame of each step too, not only the picture it left"},
		&cli.IntFlag{Name: "tolerance", Value: compare.DefaultTolerance, Usage: "how far (of 255) a pixel's channel may move before the pixel counts as changed"},
		&cli.IntFlag{Name: "min-region", Value: compare.DefaultMinRegion, Usage: "the fewest changed pixels a changed region needs to count"},
		&cli.DurationFlag{Name: "max-slowdown", Usage: "fail when a step took longer than its old self by more than this (0: a slower step is only reported)"},
	}
}

// compareOptionsOf reads compareFlags, refusing values out of range.
func compareOptionsOf(c *cli.Context) (compare.Options, error) {
	o := compare.Options{Tolerance: c.Int("tolerance"), MinRegion: c.Int("min-region"), EveryFrame: c.Bool("every-frame"), MaxSlowdown: c.Duration("max-slowdown")}
	switch {
	case o.Tolerance < 1 || o.Tolerance > 255:
		return o, usageErr("--tolerance %d: give 1 to 255", o.Tolerance)
	case o.MinRegion < 1:
		return o, usageErr("--min-region %d: give 1 or more pixels", o.MinRegion)
	case o.MaxSlowdown < 0:
		return o, usageErr("--max-slowdown %s: give a duration of 0 or more", o.MaxSlowdown)
	}
	return o, nil
}

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "film a take's script again, with the take's capture mode, and compare the new take with it step by step",
		ArgsUsage: "TAKE",
		Description: "The script is the take's own copy (script.yaml); its relative paths (serve:, includes) start from the folder\n" +
			"the script was run from, or --dir. Secrets are supplied again, from the environment or -e.\n" +
			"Example: clapper replay out/quickstart/take -o out/quickstart-replay",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output folder (default out/<script file name>-replay)"},
			&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "set a script variable, KEY=VALUE (repeatable); a secret must be given again"},
			&cli.StringFlag{Name: "dir", Usage: "the folder the script's relative paths start from (default: the folder the take's script was in)"},
			&cli.BoolFlag{Name: "video", Usage: "render the new take's videos too"},
			&cli.BoolFlag{Name: "update", Usage: "make the new take the baseline: it replaces TAKE (when the run passed)"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
		}, compareFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("replay takes one take (folder or .clap), e.g. clapper replay out/quickstart/take")
			}
			env, err := parseEnv(c.StringSlice("env"))
			if err != nil {
				return err
			}
			diff, err := compareOptionsOf(c)
			if err != nil {
				return err
			}
			path := c.Args().First()
			old, done, err := film.OpenTakeWithPictures(c.Context, path, c.App.ErrWriter)
			if err != nil {
				return err
			}
			defer done()
			script, dir, err := film.ReplayScript(old, c.String("dir"))
			if err != nil {
				return err
			}
			if err := film.SecretsGivenAgain(script, dir, env, os.LookupEnv); err != nil {
				return err
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("out", strings.TrimSuffix(filepath.Base(old.Timeline.Script), filepath.Ext(old.Timeline.Script))+"-replay")
			}
			return film.Run(c.Context, film.Options{
				Script: script, ScriptDir: dir, Out: out, Env: env, NoVideo: !c.Bool("video"), UI: film.NewUI(c.Bool("quiet"), c.App.Writer, c.App.ErrWriter),
				NoSandbox: c.Bool("no-sandbox"), Chromium: c.String("chromium"), Shell: c.String("chromium-shell"), FFmpeg: c.String("ffmpeg"),
				Capture:  string(old.Timeline.Capture.Mode),
				Baseline: film.Baseline{Path: path, Old: old, Update: c.Bool("update"), Diff: diff, CopyOf: script, ShownAs: film.ShownPath(old.Timeline.Script)},
				Tool:     "clapper " + version, Revision: revision,
			})
		},
	}
}
