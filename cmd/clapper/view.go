package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/film"
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
			res, err := film.WriteReport(c.Context, c.Args().First(), out, c.String("frames"), film.NewUI(c.Bool("quiet"), c.App.Writer, c.App.ErrWriter))
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
