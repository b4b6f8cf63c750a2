package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/viewer"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two takes of one script step by step: pictures, outcomes, durations, documents, console and page errors, failed requests",
		ArgsUsage: "OLD NEW",
		Description: "Steps are matched by their place in the script and what they act on; each step's picture at its end is compared\n" +
			"past a per-pixel tolerance, leaving out the script's mask: regions. One line per finding, exit 1 when any fails.\n" +
			"Example: clapper diff baselines/quickstart.clap out/quickstart/take",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the comparison as JSON"},
			&cli.StringFlag{Name: "report", Usage: "write the comparison to `FILE` as one HTML file, with each step's old and new picture"},
		}, compareFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usageErr("diff takes two takes, the old then the new (folders or .clap), e.g. clapper diff baselines/quickstart.clap out/quickstart/take")
			}
			opts, err := compareOptionsOf(c)
			if err != nil {
				return err
			}
			report := c.String("report")
			if report != "" {
				if _, err := os.Stat(filepath.Dir(report)); err != nil {
					return usageErr("--report %s: %v", report, err)
				}
			}
			oldPath, newPath := c.Args().Get(0), c.Args().Get(1)
			old, doneOld, err := film.OpenTakeWithPictures(c.Context, oldPath, c.App.ErrWriter)
			if err != nil {
				return err
			}
			defer doneOld()
			tk, doneNew, err := film.OpenTakeWithPictures(c.Context, newPath, c.App.ErrWriter)
			if err != nil {
				return err
			}
			defer doneNew()
			res, err := compare.Compare(old, tk, opts)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				if w := film.ScriptWarning(old.Timeline, tk.Timeline); w != "" {
					fmt.Fprintln(c.App.ErrWriter, "clapper: warning: "+w)
				}
				film.PrintDiff(c.App.Writer, res)
			}
			if report != "" {
				if err := viewer.WriteDiffReport(report, old, tk, res); err != nil {
					return err
				}
				fmt.Fprintln(c.App.ErrWriter, "report: "+report)
			}
			if res.Fails() {
				return &exitError{Code: exitFailed, Err: &quietError{Err: fmt.Errorf("%s differs from %s", newPath, oldPath)}}
			}
			return nil
		},
	}
}
