package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/timeline"
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
			old, doneOld, err := openTakeArg(c.Context, oldPath)
			if err != nil {
				return err
			}
			defer doneOld()
			tk, doneNew, err := openTakeArg(c.Context, newPath)
			if err != nil {
				return err
			}
			defer doneNew()
			res, err := compare.Compare(old, tk, opts)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				if w := scriptWarning(old.Timeline, tk.Timeline); w != "" {
					fmt.Fprintln(os.Stderr, "clapper: warning: "+w)
				}
				printDiff(os.Stdout, res)
			}
			if report != "" {
				if err := viewer.WriteDiffReport(report, old, tk, res); err != nil {
					return err
				}
				fmt.Fprintln(os.Stderr, "report: "+report)
			}
			if res.Fails() {
				return &exitError{code: exitFailed, err: &quietError{fmt.Errorf("%s differs from %s", newPath, oldPath)}}
			}
			return nil
		},
	}
}

// scriptWarning says when two takes are not of the same script, "" when
// they are: their steps then pair up by chance, if at all. Pure.
func scriptWarning(old, new *timeline.Timeline) string {
	if old.Name != new.Name {
		return fmt.Sprintf("the takes are of different scripts (%q and %q): steps are matched by place and kind all the same", old.Name, new.Name)
	}
	return ""
}

// printDiff writes a comparison for a person: one line per finding, its
// step's place in the script first, then one line of totals.
func printDiff(w io.Writer, res *compare.Result) {
	failing := 0
	for _, f := range res.Findings {
		fmt.Fprintln(w, timeline.Printable(findingLine(f)))
		if f.Fails {
			failing++
		}
	}
	switch n := len(res.Findings); {
	case n == 0:
		fmt.Fprintf(w, "no differences in %d step%s\n", len(res.Steps), plural(len(res.Steps)))
	case failing == 0:
		fmt.Fprintf(w, "%d step%s compared: %d finding%s, none that fails\n", len(res.Steps), plural(len(res.Steps)), n, plural(n))
	default:
		fmt.Fprintf(w, "%d step%s compared: %d finding%s, %d that fail%s\n", len(res.Steps), plural(len(res.Steps)), n, plural(n), failing, pluralVerb(failing))
	}
}

// findingLine is one finding in a line: where (file:line), which step,
// what changed; a finding that does not fail says so. Pure.
func findingLine(f compare.Finding) string {
	var b strings.Builder
	if f.File != "" {
		fmt.Fprintf(&b, "%s:%d: ", f.File, f.Line)
	} else if f.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", f.Line)
	}
	switch {
	case f.New >= 0:
		fmt.Fprintf(&b, "step %d (%s", f.New+1, f.Kind)
	case f.Old >= 0:
		fmt.Fprintf(&b, "old step %d (%s", f.Old+1, f.Kind)
	default:
		b.WriteString("(the page")
	}
	if f.Label != "" {
		fmt.Fprintf(&b, " %s", f.Label)
	}
	b.WriteString(")")
	if f.What != "" {
		fmt.Fprintf(&b, " %s", f.What)
	}
	b.WriteString(": " + f.Message)
	if !f.Fails {
		b.WriteString(" (reported, not failing)")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pluralVerb(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}
