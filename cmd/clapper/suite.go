package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/suite"
)

// suiteFlags are run's flags for many scripts.
func suiteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "workers", DefaultText: "a core each in studio capture, two cores each live", Usage: "with many scripts: film this many at once"},
		&cli.StringFlag{Name: "shard", Usage: "with many scripts: film only the i-th of n parts of the suite, e.g. --shard 2/3 (clapper merge puts the parts together)"},
		&cli.StringFlag{Name: "balance", Usage: "with --shard: a previous suite's suite.json (or its folder), whose durations balance the parts"},
		&cli.IntFlag{Name: "retries", Usage: "with many scripts: film a failed script again up to N times; one that then passes is flaky"},
		&cli.StringFlag{Name: "keep", Value: "all", Usage: "with many scripts: keep the videos and the takes' frame pictures of all scripts, or of the failed ones only (failed: a passing script keeps its take's timeline and journal, sealed, and its report)"},
		&cli.BoolFlag{Name: "list", Usage: "with many scripts: list the scripts this run (or this --shard) would film, in order, with their output folders, and film nothing"},
	}
}

// isSuite says whether run was given a suite: more than one script, a
// folder, or a suite's flag.
func isSuite(c *cli.Context) bool {
	if c.NArg() > 1 || c.IsSet("workers") || c.IsSet("shard") || c.IsSet("balance") || c.IsSet("retries") || c.IsSet("list") || c.IsSet("keep") {
		return true
	}
	st, err := os.Stat(c.Args().First())
	return err == nil && st.IsDir()
}

// runSuite films the scripts and folders given as one suite.
func runSuite(c *cli.Context, fo film.Options) error {
	if c.IsSet("view") {
		return usageErr("--view is for one script; a suite writes each script's report and its own index")
	}
	if c.Bool("update") && c.String("baseline") == "" {
		return usageErr("--update needs --baseline, the folder of baselines to update, e.g. --baseline baselines --update")
	}
	if b := c.String("baseline"); b != "" {
		if st, err := os.Stat(b); (err != nil && !c.Bool("update")) || (err == nil && !st.IsDir()) {
			return usageErr("--baseline %s: with many scripts, give a folder of baselines (each script's is <folder>/<its path without .yaml>.clap; --update makes them)", b)
		}
	}
	diff, err := compareOptionsOf(c)
	if err != nil {
		return err
	}
	o := suite.Options{Args: c.Args().Slice(), Out: c.String("out"), Workers: c.Int("workers"), Balance: c.String("balance"), Retries: c.Int("retries"), JUnit: c.String("junit"), Film: fo, Errors: c.App.ErrWriter,
		Baselines: c.String("baseline"), Update: c.Bool("update"), Diff: diff, Keep: c.String("keep")}
	if o.Out == "" {
		o.Out = "out"
	}
	if c.IsSet("workers") && o.Workers < 1 {
		return usageErr("--workers %d: give 1 or more", o.Workers)
	}
	if v := c.String("shard"); v != "" {
		if o.Shard, err = suite.ParseShard(v); err != nil {
			return usageErr("%v", err)
		}
	}
	if err := o.Check(); err != nil {
		return usageErr("%v", err)
	}
	if c.Bool("list") {
		return listSuite(o, c.App.Writer, c.App.ErrWriter)
	}
	d := suite.NewTerminal(c.Bool("quiet"), c.App.ErrWriter)
	o.Display = d
	sum, err := suite.Run(c.Context, o)
	d.Close()
	if err != nil {
		return err
	}
	suite.PrintFailures(c.App.ErrWriter, sum)
	fmt.Fprintf(c.App.Writer, "%s; index: %s/%s\n", sum.Totals.Line(), o.Out, suite.IndexFile)
	if !sum.Totals.OK() {
		return &exitError{Code: exitFailed, Err: &quietError{Err: fmt.Errorf("%s", sum.Totals.Line())}}
	}
	return nil
}

// listSuite prints the scripts the suite (or its shard) would film, a
// line each: the script, a tab, its output folder; and how many on
// standard error.
func listSuite(o suite.Options, stdout, stderr io.Writer) error {
	l, err := suite.List(o)
	if err != nil {
		return err
	}
	suite.PrintList(stdout, stderr, o, l)
	return nil
}
