package main

import "github.com/urfave/cli/v2"

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "capture and render benchmarks",
		Action: func(c *cli.Context) error {
			return usageErr("bench: not built yet")
		},
	}
}
