package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/internal/doctor"
)

// clapper doctor checks what clapper needs on this machine and says, for
// each thing missing, how to mend it. The checks are package doctor's;
// this file reads the flags and prints the report.

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check Chromium, its sandbox, ffmpeg, fonts and disk space here, with a fix for each problem",
		Description: "Checks Chromium and its version, chromium-headless-shell, ffmpeg and ffprobe with the encoders and filters clapper\n" +
			"uses, fonts, whether the sandbox starts, what a page fault costs, /dev/shm, free space in the temporary and output\n" +
			"folders, and the state folder for shared browsers. Each problem is printed with its fix; exit 1 if any. As root, pass\n" +
			"--no-sandbox as your runs will.\n" +
			"Example: clapper doctor",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable to check"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable to check"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "check Chromium as your runs will start it, without its sandbox"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "out", Usage: "output folder whose free space to check"},
			&cli.StringFlag{Name: "state-dir", EnvVars: []string{"CLAPPER_STATE_DIR"}, Usage: "state folder for shared browsers (default $XDG_STATE_HOME/clapper or ~/.local/state/clapper)"},
			&cli.BoolFlag{Name: "json", Usage: "print the checks as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErr("doctor takes no arguments")
			}
			return runDoctor(c.Context, doctor.Options{
				Chromium: c.String("chromium"), FFmpeg: c.String("ffmpeg"), NoSandbox: c.Bool("no-sandbox"),
				Out: c.String("out"), StateDir: c.String("state-dir"),
			}, c.Bool("json"), c.App.Writer)
		},
	}
}

// runDoctor runs every check, prints the report to w (as JSON with
// asJSON) and fails (exit 1) when any check failed.
func runDoctor(ctx context.Context, o doctor.Options, asJSON bool, w io.Writer) error {
	checks := doctor.Diagnose(ctx, o)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var failed []string
	for _, c := range checks {
		if !c.OK {
			failed = append(failed, c.Name)
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Version string         `json:"version"`
			OK      bool           `json:"ok"`
			Checks  []doctor.Check `json:"checks"`
		}{version, len(failed) == 0, checks}); err != nil {
			return err
		}
	} else {
		printChecks(w, checks)
	}
	if len(failed) > 0 {
		return &exitError{Code: exitFailed, Err: &quietError{Err: fmt.Errorf("%d of %d checks failed: %s", len(failed), len(checks), strings.Join(failed, ", "))}}
	}
	return nil
}

// printChecks writes the report for people: a line per check, the fix
// under each failed one, and the tally.
func printChecks(w io.Writer, checks []doctor.Check) {
	width := 0
	for _, c := range checks {
		width = max(width, len(c.Name))
	}
	fmt.Fprintf(w, "clapper %s\n", version)
	var failed []string
	for _, c := range checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			failed = append(failed, c.Name)
		}
		fmt.Fprintf(w, "  %s  %-*s  %s\n", mark, width, c.Name, c.Detail)
		if !c.OK {
			fmt.Fprintf(w, "        %*s  fix: %s\n", width, "", c.Fix)
		}
	}
	if len(failed) == 0 {
		fmt.Fprintf(w, "all %d checks passed\n", len(checks))
		return
	}
	fmt.Fprintf(w, "%d of %d checks failed: %s\n", len(failed), len(checks), strings.Join(failed, ", "))
}
