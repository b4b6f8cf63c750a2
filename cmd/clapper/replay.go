package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
	"github.com/clapper-dev/clapper/viewer"
)

// baselineOptions are what a run compares its take against, and how.
type baselineOptions struct {
	// path is the baseline take (folder or .clap), "" for none.
	path string
	// old is the baseline already opened (replay), nil to open path.
	old *timeline.Take
	// update makes the new take the baseline at path (when the run
	// passed), whatever the comparison says.
	update bool
	diff   compare.Options
	// copyOf names the script a replay films (the take's copy), shown
	// in findings as shownAs, the script the take was filmed from.
	copyOf, shownAs string
}

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
			old, done, err := openTakeArg(c.Context, path)
			if err != nil {
				return err
			}
			defer done()
			script, dir, err := replayScript(old, c.String("dir"))
			if err != nil {
				return err
			}
			if err := secretsGivenAgain(script, dir, env, os.LookupEnv); err != nil {
				return err
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("out", strings.TrimSuffix(filepath.Base(old.Timeline.Script), filepath.Ext(old.Timeline.Script))+"-replay")
			}
			return runScript(c.Context, runOptions{
				script: script, scriptDir: dir, out: out, env: env, noVideo: !c.Bool("video"), quiet: c.Bool("quiet"),
				noSandbox: c.Bool("no-sandbox"), chromium: c.String("chromium"), shell: c.String("chromium-shell"), ffmpeg: c.String("ffmpeg"),
				capture:  string(old.Timeline.Capture.Mode),
				baseline: baselineOptions{path: path, old: old, update: c.Bool("update"), diff: diff, copyOf: script, shownAs: shownPath(old.Timeline.Script)},
			})
		},
	}
}

// replayScript is the take's copy of its script and the folder its
// relative paths start from: dir when given, else the folder the script
// was run from, which must still be there.
func replayScript(old *timeline.Take, dir string) (script, from string, err error) {
	script = filepath.Join(old.Dir, timeline.ScriptFile)
	if _, err := os.Stat(script); err != nil {
		return "", "", &exitError{code: exitFailed, err: fmt.Errorf("the take keeps no copy of its script (%s): run the script again with clapper run --baseline", timeline.ScriptFile)}
	}
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", "", usageErr("--dir %s: not a folder", dir)
		}
		return script, dir, nil
	}
	from = filepath.Dir(old.Timeline.Script)
	if st, err := os.Stat(from); old.Timeline.Script == "" || err != nil || !st.IsDir() {
		return "", "", usageErr("the folder the take's script was run from (%s) is not here: pass --dir with the folder its relative paths (serve:, includes) start from", from)
	}
	return script, from, nil
}

// secretsGivenAgain refuses a replay whose script had secret values masked
// in the take when a secret it declares is not given again (-e or the
// environment): the take keeps no secret. It reads the script's secrets:
// list as the loader does; the loader checks the rest.
func secretsGivenAgain(script, dir string, env map[string]string, lookup func(string) (string, bool)) error {
	b, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	_, lerr := scripts.Load(script, scripts.LoadOptions{Env: env, LookupEnv: lookup, Dir: dir})
	if lerr == nil || !strings.Contains(string(b), scripts.Masked) {
		return nil // the run loads it again and says what is wrong
	}
	return usageErr("%s: the take hides its secrets' values (%s): give each secret the script declares again with -e NAME=VALUE or in the environment\n%v", script, scripts.Masked, lerr)
}

// shownPath is path relative to the working folder when it is under it,
// else as it is.
func shownPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// checkBaseline refuses, before anything launches, a baseline that is not
// there (unless --update makes it).
func checkBaseline(b baselineOptions) error {
	if b.path == "" || b.old != nil {
		return nil
	}
	if _, err := os.Stat(b.path); errors.Is(err, fs.ErrNotExist) {
		if b.update {
			return nil
		}
		return usageErr("no baseline at %s: film one with --update, or pass a take (folder or .clap) with --baseline", b.path)
	}
	return nil
}

// compareBaseline compares the take a run wrote with its baseline, prints
// the findings, keeps the comparison beside the take (diff.json) and, with
// update, makes the new take the baseline. It returns an exit error when
// the comparison fails (and update was not asked).
func compareBaseline(ctx context.Context, b baselineOptions, takeDir, out string, passed bool, ui *ui) error {
	if b.path == "" {
		return nil
	}
	tk, err := timeline.Open(takeDir)
	if err != nil {
		return err
	}
	old := b.old
	if old == nil {
		if _, err := os.Stat(b.path); errors.Is(err, fs.ErrNotExist) && b.update {
			return updateBaseline(ctx, b.path, takeDir, passed, ui)
		}
		var done func()
		if old, done, err = openTakeArg(ctx, b.path); err != nil {
			return err
		}
		defer done()
	}
	res, err := compare.Compare(old, tk, b.diff)
	if err != nil {
		return err
	}
	for i := range res.Findings {
		if f := &res.Findings[i]; b.copyOf != "" && f.File == b.copyOf {
			f.File = b.shownAs
		}
	}
	if j, err := json.MarshalIndent(res, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(out, "diff.json"), append(j, '\n'), 0o644)
	}
	report := filepath.Join(out, "diff.html")
	if err := viewer.WriteDiffReport(report, old, tk, res); err != nil {
		fmt.Fprintf(os.Stderr, "clapper: the comparison's report was not written: %v\n", err)
	} else {
		ui.printf("report: %s\n", report)
	}
	if w := scriptWarning(old.Timeline, tk.Timeline); w != "" {
		fmt.Fprintln(os.Stderr, "clapper: warning: "+w)
	}
	fmt.Fprintf(os.Stdout, "compared with %s:\n", b.path)
	printDiff(os.Stdout, res)
	if b.update {
		return updateBaseline(ctx, b.path, takeDir, passed, ui)
	}
	if res.Fails() {
		return &exitError{code: exitFailed, err: fmt.Errorf("the take differs from the baseline %s (clapper run --update makes it the baseline)", b.path)}
	}
	return nil
}

// updateBaseline makes the take in takeDir the baseline at path: a .clap
// written anew, or a folder replaced, each put in place whole. A failed
// run's take is not made a baseline.
func updateBaseline(ctx context.Context, path, takeDir string, passed bool, ui *ui) error {
	if !passed {
		fmt.Fprintf(os.Stderr, "clapper: the run failed: the baseline %s is left as it was\n", path)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if bundle.IsBundle(path) {
		if _, err := bundle.PackContext(ctx, takeDir, path); err != nil {
			return fmt.Errorf("update the baseline: %w", err)
		}
		ui.printf("baseline: %s\n", path)
		return nil
	}
	// A folder: the take is packed, unpacked beside the old baseline
	// (every file checked), and swapped in.
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-")
	if err != nil {
		return fmt.Errorf("update the baseline: %w", err)
	}
	defer os.RemoveAll(tmp)
	clap := filepath.Join(tmp, "take"+bundle.Ext)
	if _, err := bundle.PackContext(ctx, takeDir, clap); err != nil {
		return fmt.Errorf("update the baseline: %w", err)
	}
	fresh := filepath.Join(tmp, "take")
	if _, err := bundle.UnpackContext(ctx, clap, fresh, bundle.DefaultLimits); err != nil {
		return fmt.Errorf("update the baseline: %w", err)
	}
	aside := filepath.Join(tmp, "old")
	if _, err := os.Stat(path); err == nil {
		if err := os.Rename(path, aside); err != nil {
			return fmt.Errorf("update the baseline: %w", err)
		}
	}
	if err := os.Rename(fresh, path); err != nil {
		_ = os.Rename(aside, path)
		return fmt.Errorf("update the baseline: %w", err)
	}
	ui.printf("baseline: %s\n", path)
	return nil
}
