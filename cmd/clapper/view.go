package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/timeline"
	"github.com/clapper-dev/clapper/viewer"
)

func viewCommand() *cli.Command {
	return &cli.Command{
		Name:  "view",
		Usage: "write a take's report: one HTML file that opens from disk (player, steps, filmstrip, accounting)",
		Description: "The report plays the take with its steps, failures first with their error and script line, lanes for steps,\n" +
			"chapters, documents, holds and page errors, and the cleanup receipt; #t=12.5 and #step=7 link to a moment.\n" +
			"Nothing from the page runs in it.\n" +
			"Example: clapper view out/quickstart/take --open",
		ArgsUsage: "TAKE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "report to write (default: report.html beside the take, or the bundle's name with .html)"},
			&cli.BoolFlag{Name: "open", Usage: "open the report in the default browser"},
			&cli.StringFlag{Name: "frames", Value: "auto", Usage: "embedded (one file), folder (frames beside the report) or auto (embedded up to 24 MB of frames)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("view takes one take (folder or .clap), e.g. clapper view out/qa-check/take")
			}
			out := c.String("out")
			if out == "" {
				out = defaultReport(c.Args().First())
			}
			res, err := writeReport(c.Context, c.Args().First(), out, c.String("frames"), newUI(c.Bool("quiet")))
			if err != nil {
				return err
			}
			if c.Bool("open") {
				return openInBrowser(res.Path)
			}
			return nil
		},
	}
}

// defaultReport is where view writes when not told: beside the run's take
// (out/qa-check/take → out/qa-check/report.html), or the bundle's or
// folder's name with .html.
func defaultReport(arg string) string {
	clean := filepath.Clean(arg)
	switch {
	case bundle.IsBundle(arg):
		return strings.TrimSuffix(clean, filepath.Ext(clean)) + ".html"
	case filepath.Base(clean) == "take":
		return filepath.Join(filepath.Dir(clean), "report.html")
	}
	return clean + ".html"
}

// writeReport verifies the take (folder or bundle) and writes its report,
// saying where, how big, and where its frames are.
func writeReport(ctx context.Context, arg, out, frames string, ui *ui) (*viewer.Result, error) {
	if _, err := os.Stat(filepath.Dir(out)); err != nil {
		return nil, usageErr("cannot write %s: %v", out, err)
	}
	tk, done, err := openTakeArg(ctx, arg)
	if err != nil {
		return nil, err
	}
	defer done()
	// openTakeArg refused a take with a manifest that fails; this also
	// refuses one without a manifest whose timeline or frame index is
	// inconsistent: a report must not present a broken take as evidence.
	v := timeline.Verify(tk.Dir)
	if err := refuseUnverified(arg, v); err != nil {
		return nil, err
	}
	verified := "not verified: the take has no manifest"
	switch {
	case v.Manifest != nil:
		verified = fmt.Sprintf("verified: %d files match the manifest", len(v.Manifest.Files))
	}
	res, err := viewer.Write(tk, out, viewer.Options{Frames: frames, Manifest: v.Manifest, Verified: verified, Context: ctx})
	if err != nil {
		return nil, err
	}
	where := "embedded"
	if res.Mode == viewer.ModeFolder {
		where = "in " + res.FramesDir + "/ beside it (keep the two together; --frames embedded makes one file)"
	}
	ui.printf("report: %s (%.1f MB, %d frames %s, %d in the filmstrip)\n", res.Path, float64(res.Bytes)/1e6, res.Frames, where, res.Thumbs)
	return res, nil
}

// openInBrowser hands the report to the desktop's opener and does not wait.
func openInBrowser(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, abs)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s: %w (open it yourself: file://%s)", path, err, abs)
	}
	return cmd.Process.Release()
}

// afterRun writes the take's report when asked (--view).
func afterRun(ctx context.Context, takeDir, out string, view bool, ui *ui) error {
	if !view {
		return nil
	}
	if _, err := writeReport(ctx, takeDir, filepath.Join(out, "report.html"), "auto", ui); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

// viewHint tells, after a failed run, where the take is and how to see
// the failure.
func viewHint(takeDir, out string, viewed bool) string {
	if viewed {
		return fmt.Sprintf("the take is in %s; its report, %s, shows the failure (open it in a browser)", takeDir, filepath.Join(out, "report.html"))
	}
	return fmt.Sprintf("the take is in %s; see the failure with: clapper view %s --open", takeDir, takeDir)
}
