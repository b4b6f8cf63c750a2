package main

import (
	"fmt"
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
	}
}

// isSuite says whether run was given a suite: more than one script, a
// folder, or a suite's flag.
func isSuite(c *cli.Context) bool {
	if c.NArg() > 1 || c.IsSet("workers") || c.IsSet("shard") || c.IsSet("balance") || c.IsSet("retries") {
		return true
	}
	st, err := os.Stat(c.Args().First())
	return err == nil && st.IsDir()
}

// runSuite films the scripts and folders given as one suite.
func runSuite(c *cli.Context, fo film.Options) error {
	for _, f := range []string{"baseline", "update", "view"} {
		if c.IsSet(f) {
			return usageErr("--%s is for one script; a suite writes each script's report and its own index", f)
		}
	}
	o := suite.Options{Args: c.Args().Slice(), Out: c.String("out"), Workers: c.Int("workers"), Balance: c.String("balance"), Retries: c.Int("retries"), JUnit: c.String("junit"), Film: fo}
	if c.IsSet("workers") && o.Workers < 1 {
		return usageErr("--workers %d: give 1 or more", o.Workers)
	}
	if o.Retries < 0 {
		return usageErr("--retries %d: give 0 or more", o.Retries)
	}
	if v := c.String("shard"); v != "" {
		sh, err := suite.ParseShard(v)
		if err != nil {
			return usageErr("%v", err)
		}
		o.Shard = sh
	}
	if o.Balance != "" && o.Shard.Whole() {
		return usageErr("--balance balances the parts of --shard i/n: give --shard too")
	}
	d := suite.NewTerminal(c.Bool("quiet"))
	o.Display = d
	sum, err := suite.Run(c.Context, o)
	d.Close()
	if err != nil {
		return err
	}
	out := o.Out
	if out == "" {
		out = "out"
	}
	suite.PrintFailures(os.Stderr, sum)
	fmt.Printf("%s; index: %s/%s\n", sum.Totals.Line(), out, suite.IndexFile)
	if !sum.Totals.OK() {
		return &exitError{Code: exitFailed, Err: &quietError{Err: fmt.Errorf("%s", sum.Totals.Line())}}
	}
	return nil
}
