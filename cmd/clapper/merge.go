package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/suite"
)

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:  "merge",
		Usage: "put the parts of a sharded suite back together: one index and one JUnit file",
		Description: "Reads each shard's output folder (its suite.json), or takes packed as .clap, verifies every take, refuses a\n" +
			"script found twice, and writes OUT/suite.json and OUT/index.html (linking to the shards' folders, which stay\n" +
			"where they are) and, with --junit, one JUnit file. Exit 1 when a merged script failed, or nothing could be merged.\n" +
			"Example: clapper merge out/shard-1 out/shard-2 out/shard-3 -o out/all --junit out/all/junit.xml",
		ArgsUsage: "DIR...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "out", Usage: "output folder of the merged index"},
			&cli.StringFlag{Name: "junit", Usage: "write one JUnit XML file for every script merged to FILE"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErr("merge takes the shards' output folders, e.g. clapper merge out/shard-1 out/shard-2 -o out/all")
			}
			sum, err := suite.Merge(c.Context, c.Args().Slice(), c.String("out"), c.String("junit"))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "%s; index: %s/%s\n", sum.Totals.Line(), c.String("out"), suite.IndexFile)
			if !sum.Totals.OK() {
				return &exitError{Code: exitFailed, Err: &quietError{Err: fmt.Errorf("%s", sum.Totals.Line())}}
			}
			return nil
		},
	}
}
