package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/suite"
)

// suiteFlags are run's flags for many scripts.
func suiteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "workers", Usage: "with many scripts: film this many at once (default: one for every two cores)"},
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
	d := newSuiteDisplay(c.Bool("quiet"))
	o.Display = d
	sum, err := suite.Run(c.Context, o)
	d.close()
	if err != nil {
		return err
	}
	out := o.Out
	if out == "" {
		out = "out"
	}
	for _, e := range sum.Scripts {
		if e.Status == suite.Passed || e.Status == suite.Flaky {
			continue
		}
		switch {
		case e.Failure != nil:
			fmt.Fprintf(os.Stderr, "%s %s: step %d (%s) failed: %s\n", e.Status, e.Failure.Where(), e.Failure.Step, e.Failure.Kind, oneLine(e.Failure.Error))
		default:
			fmt.Fprintf(os.Stderr, "%s %s: %s\n", e.Status, e.Script, oneLine(e.Error))
		}
	}
	fmt.Printf("%s; index: %s/%s\n", sum.Totals.Line(), out, suite.IndexFile)
	if !sum.Totals.OK() {
		return &exitError{Code: exitFailed, Err: &quietError{Err: fmt.Errorf("%s", sum.Totals.Line())}}
	}
	return nil
}

// oneLine is the first line of s.
func oneLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i] + " …"
		}
	}
	return s
}

// suiteDisplay shows a suite: a bar per worker on a terminal, a line per
// script's start and end elsewhere, nothing but the ends with --quiet.
type suiteDisplay struct {
	mu    sync.Mutex
	quiet bool
	p     *mpb.Progress
	bars  map[int]*mpb.Bar
	what  map[int]string
	log   io.Writer
}

func newSuiteDisplay(quiet bool) *suiteDisplay {
	d := &suiteDisplay{quiet: quiet, bars: map[int]*mpb.Bar{}, what: map[int]string{}, log: os.Stderr}
	if !quiet && term.IsTerminal(int(os.Stderr.Fd())) {
		d.p = mpb.New(mpb.WithOutput(os.Stderr), mpb.WithWidth(30))
		d.log = d.p
	}
	return d
}

func (d *suiteDisplay) linef(format string, args ...any) {
	fmt.Fprintf(d.log, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (d *suiteDisplay) Started(w int, script string, attempt int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	what := script
	if attempt > 1 {
		what += fmt.Sprintf(" (retry %d)", attempt-1)
	}
	d.what[w] = what
	if d.quiet {
		return
	}
	if d.p == nil {
		d.linef("[%d] %s", w, what)
		return
	}
	if b := d.bars[w]; b != nil {
		b.Abort(true)
	}
	d.bars[w] = d.p.AddBar(0, mpb.PrependDecorators(decor.Name(fmt.Sprintf("[%d] %s ", w, what))), mpb.AppendDecorators(decor.CountersNoUnit("%d/%d steps")))
}

func (d *suiteDisplay) Step(w int, p session.Progress) {
	d.mu.Lock()
	b := d.bars[w]
	d.mu.Unlock()
	if b != nil {
		b.SetTotal(int64(p.Steps), false)
		b.SetCurrent(int64(p.Step - 1))
	}
}

func (d *suiteDisplay) Finished(w int, e suite.Entry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b := d.bars[w]; b != nil {
		b.Abort(true)
		delete(d.bars, w)
	}
	dur := (time.Duration(e.DurationMs) * time.Millisecond).Round(100 * time.Millisecond)
	line := fmt.Sprintf("%-11s %s (%s)", e.Status, e.Script, dur)
	if e.Failure != nil {
		line += fmt.Sprintf(": step %d at %s", e.Failure.Step, e.Failure.Where())
	}
	if d.quiet && (e.Status == suite.Passed || e.Status == suite.Flaky) {
		return
	}
	d.linef("%s", line)
}

func (d *suiteDisplay) close() {
	if d.p != nil {
		d.p.Wait()
	}
}
