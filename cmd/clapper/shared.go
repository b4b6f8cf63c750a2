package main

import (
	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/leases"
)

func sharedRunFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "browser", Usage: "run in a browser others share: shared (the host of clapper browser start) or a loopback ws:// endpoint"},
		&cli.StringFlag{Name: "label", Usage: "name this run in leases and conflicts (default: the script's name and the pid)"},
		&cli.DurationFlag{Name: "lease-ttl", Value: leases.DefaultTTL, Usage: "how long the run's tab lease lives without use"},
		&cli.StringFlag{Name: "state-dir", EnvVars: []string{"CLAPPER_STATE_DIR"}, Usage: "state folder of the shared browser and its leases"},
	}
}

func sharedFlagsOf(c *cli.Context) host.Shared {
	return host.Shared{Browser: c.String("browser"), Label: c.String("label"), LeaseTTL: c.Duration("lease-ttl"), StateDir: c.String("state-dir")}
}
