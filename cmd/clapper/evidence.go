package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/timeline"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check a take (folder or .clap) against its manifest, accounting, clock and frame index",
		Description: "Checks everything a take claims: a known timeline.json version, every file present, unaltered and listed, the\n" +
			"accounting equation, times that never go backwards, and a frame index that matches the frame files. Exit 1,\n" +
			"naming each problem with its file.\n" +
			"Example: clapper verify out/qa-check/qa-check.clap",
		ArgsUsage: "TAKE",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the verification as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("verify takes one take, e.g. clapper verify out/quickstart/take or clapper verify x.clap")
			}
			dir, done, err := film.TakeArg(c.Context, c.Args().First(), c.App.ErrWriter)
			if err != nil {
				return err
			}
			defer done()
			v := timeline.Verify(dir)
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				if err := enc.Encode(v); err != nil {
					return err
				}
			} else {
				for _, w := range v.Warnings {
					fmt.Fprintf(c.App.ErrWriter, "clapper: warning: %s\n", w)
				}
			}
			if err := v.Err(); err != nil {
				return &exitError{Code: exitFailed, Err: err}
			}
			if !c.Bool("json") {
				what := "no manifest"
				if m := v.Manifest; m != nil {
					what = fmt.Sprintf("%d files match the manifest (recorded by %s", len(m.Files), m.Tool)
					if m.Chromium != "" {
						what += " with " + m.Chromium
					}
					what += ")"
				}
				fmt.Fprintf(c.App.Writer, "%s: ok — %s; accounting balances, times run forward, the frame index matches the frames\n", c.Args().First(), what)
			}
			return nil
		},
	}
}

func packCommand() *cli.Command {
	return &cli.Command{
		Name:  "pack",
		Usage: "pack a take folder into one .clap file (zstd-compressed tar) to send or keep",
		Description: "The manifest goes first; inspect, render, verify, view, diff and replay read a .clap as they read a folder.\n" +
			"Example: clapper pack out/qa-check/take",
		ArgsUsage: "TAKE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "bundle to write (default beside the take, e.g. out/qa-check/qa-check.clap)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("pack takes one take folder, e.g. clapper pack out/quickstart/take")
			}
			dir := c.Args().First()
			out := c.String("out")
			if out == "" {
				out = bundle.DefaultName(dir)
			}
			m, err := bundle.PackContext(c.Context, dir, out)
			if err != nil {
				return err
			}
			var sum int64
			for _, e := range m.Files {
				sum += e.Size
			}
			st, err := os.Stat(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "%s: %d files, %.1f MB → %.1f MB\n", out, len(m.Files)+1, float64(sum)/1e6, float64(st.Size())/1e6)
			return nil
		},
	}
}

func unpackCommand() *cli.Command {
	return &cli.Command{
		Name:  "unpack",
		Usage: "unpack a .clap bundle into a take folder, checking every file",
		Description: "A bundle is unpacked entry by entry against its manifest, as hostile input: absolute paths, .., links, devices and\n" +
			"anything the manifest does not list are refused, every checksum is checked, and a bad bundle leaves nothing.\n" +
			"Example: clapper unpack out/qa-check/qa-check.clap -o out/qa-check/unpacked",
		ArgsUsage: "BUNDLE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "folder to create (default: the bundle's name without .clap)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("unpack takes one bundle, e.g. clapper unpack qa-check.clap")
			}
			src := c.Args().First()
			out := c.String("out")
			if out == "" {
				// IsBundle first: a name shorter than ".clap" has no
				// suffix to cut.
				if bundle.IsBundle(src) {
					out = src[:len(src)-len(".clap")]
				}
				if out == "" {
					return usageErr("%s does not end in .clap: pass -o DIR", src)
				}
			}
			m, err := bundle.UnpackContext(c.Context, src, out, bundle.DefaultLimits)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "%s: %d files, checksums match\n", out, len(m.Files)+1)
			return nil
		},
	}
}
