package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check scripts without launching anything",
		Description: "Each script is loaded as clapper run loads it, its includes and output settings too; every error is printed at once\n" +
			"as file:line:col with the line and a caret. Exit 2 when any script is invalid.\n" +
			"Example: clapper validate samples/quickstart.yaml samples/tour.yaml",
		ArgsUsage: "FILE...",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "set a script variable, KEY=VALUE (repeatable)"},
			&cli.BoolFlag{Name: "headed", Usage: "check the scripts as clapper run --headed runs them (a handoff step needs a window)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErr("validate takes one or more script files")
			}
			env, err := parseEnv(c.StringSlice("env"))
			if err != nil {
				return err
			}
			bad := 0
			for _, f := range c.Args().Slice() {
				s, err := scripts.Load(f, scripts.LoadOptions{Env: env, LookupEnv: os.LookupEnv, Headed: c.Bool("headed")})
				if err != nil {
					fmt.Fprintln(c.App.ErrWriter, err)
					bad++
					continue
				}
				if _, err := film.RenderSettings(film.ConfigOf(s.Output), film.RenderFlags{}); err != nil {
					fmt.Fprintln(c.App.ErrWriter, film.OutputError(f, s, err))
					bad++
					continue
				}
				fmt.Fprintf(c.App.Writer, "%s: ok\n", f)
			}
			if bad > 0 {
				// An invalid script is a script error, as for run.
				return &exitError{Code: exitUsage, Err: &quietError{Err: fmt.Errorf("%d of %d scripts invalid", bad, c.NArg())}}
			}
			return nil
		},
	}
}

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the JSON Schema of the run-script language (--take: of a take's timeline.json; --markdown: the language reference)",
		Description: "The schema is generated from the language's tables, as the parser reads them; editors use it to\n" +
			"complete and check scripts (clapper.schema.json). --markdown prints the same tables as the language\n" +
			"reference, with an example per step (docs/reference.md).\n" +
			"Example: clapper schema > clapper.schema.json",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "take", Usage: "print the schema of timeline.json instead"},
			&cli.BoolFlag{Name: "markdown", Usage: "print the language reference in Markdown instead (docs/reference.md)"},
		},
		Action: func(c *cli.Context) error {
			var out []byte
			switch {
			case c.Bool("take") && c.Bool("markdown"):
				return usageErr("schema: give --take or --markdown, not both")
			case c.Bool("take"):
				out = timeline.Schema()
			case c.Bool("markdown"):
				out = scripts.Reference()
			default:
				out = scripts.Schema()
			}
			_, err := c.App.Writer.Write(out)
			return err
		},
	}
}
