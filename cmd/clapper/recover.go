package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/timeline"
)

func recoverCommand() *cli.Command {
	return &cli.Command{
		Name:  "recover",
		Usage: "write the timeline of a take whose run was killed, rebuilt from its journal",
		Description: "A run that was killed (kill -9, the OOM killer) leaves a take without timeline.json; reading such a take rebuilds it\n" +
			"from the journal in memory, and recover writes it.\n" +
			"Example: clapper recover out/quickstart/take",
		ArgsUsage: "TAKE",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("recover takes one take folder, e.g. clapper recover out/demo/take")
			}
			dir := c.Args().First()
			path := filepath.Join(dir, timeline.TimelineFile)
			if _, err := os.Stat(path); err == nil {
				return usageErr("%s already has its timeline: nothing to recover", dir)
			} else if !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if holder, busy := film.FolderInUse(filepath.Dir(filepath.Clean(dir))); busy {
				return usageErr("%s is being written by %s: it is not a take to recover", dir, holder)
			}
			t, err := timeline.Recover(dir)
			if err != nil {
				return err
			}
			if err := timeline.WriteTimeline(dir, t); err != nil {
				return err
			}
			// The take is finished now: its manifest seals what recovery wrote.
			if _, err := timeline.WriteManifest(dir, t, timeline.ManifestInfo{Revision: revision}); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "%s: recovered (%s): %d steps, %d frames\n", dir, t.Recovered.Reason, len(t.Steps), t.Capture.Frames.Delivered)
			for _, n := range t.Recovered.Notes {
				fmt.Fprintln(c.App.Writer, "  "+n)
			}
			return nil
		},
	}
}
