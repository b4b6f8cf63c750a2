package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/timeline"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:  "inspect",
		Usage: "summarise a take: steps, frame accounting, boundaries, holds, receipts",
		Description: "Prints a summary of a take (folder or .clap): page errors first, then steps, frame accounting, documents, receipts,\n" +
			"holds and cleanup. A take with a manifest is verified first, and refused when it fails.\n" +
			"Example: clapper inspect out/quickstart/take",
		ArgsUsage: "TAKE",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.BoolFlag{Name: "check", Usage: "also check every frame file against the index"},
			&cli.BoolFlag{Name: "verify", Usage: "also verify the take in full, as clapper verify does"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("inspect takes one take (folder or .clap), e.g. clapper inspect out/quickstart/take")
			}
			tk, done, err := film.OpenTakeArg(c.Context, c.Args().First(), c.App.ErrWriter)
			if err != nil {
				return err
			}
			defer done()
			if c.Bool("verify") {
				if err := timeline.Verify(tk.Dir).Err(); err != nil {
					return &exitError{Code: exitFailed, Err: err}
				}
			}
			if c.Bool("check") {
				if err := tk.Validate(); err != nil {
					return fmt.Errorf("take check failed: %w", err)
				}
			}
			s, err := tk.Summary()
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			// The summary is text from a page and a take: escaped visibly.
			film.PrintSummary(c.App.Writer, s)
			return nil
		},
	}
}
