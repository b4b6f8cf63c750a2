package main

import (
	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/internal/starter"
)

func newCommand() *cli.Command {
	return &cli.Command{
		Name:  "new",
		Usage: "write a starter script NAME.yaml (and a small site beside it, NAME-site/, unless --url)",
		Description: "The script has the common steps, more commented out, and clapper.schema.json beside it lets editors complete and\n" +
			"check it. Nothing is overwritten.\n" +
			"Example: clapper new demo --url https://example.com",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "film this address instead of a starter site"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("new takes one name, e.g. clapper new demo")
			}
			return starter.Write(starter.Options{Name: c.Args().First(), URL: c.String("url")}, c.App.Writer)
		},
	}
}
