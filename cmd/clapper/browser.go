package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/leases"
)

// browserCommand is "clapper browser start|status|stop": the long-lived
// browser host many runs share (--browser shared).
func browserCommand() *cli.Command {
	stateFlag := &cli.StringFlag{Name: "state-dir", EnvVars: []string{"CLAPPER_STATE_DIR"}, Usage: "state folder of the host and its leases (default $XDG_STATE_HOME/clapper or ~/.local/state/clapper)"}
	return &cli.Command{
		Name:  "browser",
		Usage: "a browser host many runs share: start, status, stop",
		Description: "One long-lived Chromium that runs share with clapper run --browser shared, each in a tab of its own, leased.\n" +
			"Example: clapper browser start --detach",
		Subcommands: []*cli.Command{{
			Name:  "start",
			Usage: "launch a long-lived Chromium for runs with --browser shared, and stay until stopped",
			Description: "A fresh profile, loopback debugging, its own process group; its endpoint is recorded in the state folder and\n" +
				"printed. Leftover http(s) pages are closed after --idle-timeout with no client (0 never).\n" +
				"Example: clapper browser start --detach",
			Flags: []cli.Flag{
				stateFlag,
				&cli.DurationFlag{Name: "idle-timeout", Value: 15 * time.Minute, Usage: "close leftover http(s) pages after this long with no client (0 never)"},
				&cli.BoolFlag{Name: "detach", Usage: "run the host in the background; its log goes to the state folder"},
				&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
				&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			},
			Action: func(c *cli.Context) error {
				dir, err := host.StateDir(c.String("state-dir"))
				if err != nil {
					return err
				}
				if c.Duration("idle-timeout") < 0 {
					return usageErr("--idle-timeout %v: give a duration like 15m, or 0 to never reap", c.Duration("idle-timeout"))
				}
				o := host.Options{StateDir: dir, IdleTimeout: c.Duration("idle-timeout"), NoSandbox: c.Bool("no-sandbox"), Chromium: c.String("chromium")}
				if c.Bool("detach") {
					return detachHost(c.Context, o, c.App.Writer, c.App.ErrWriter)
				}
				return host.Run(c.Context, o, c.App.Writer)
			},
		}, {
			Name:        "status",
			Usage:       "say whether a host runs, its endpoint and who holds its tabs",
			Description: "Example: clapper browser status",
			Flags:       []cli.Flag{stateFlag},
			Action: func(c *cli.Context) error {
				dir, err := host.StateDir(c.String("state-dir"))
				if err != nil {
					return err
				}
				return hostStatus(dir, c.App.Writer)
			},
		}, {
			Name:        "stop",
			Usage:       "end the host: its Chromium, profile and temporary folders go; prints the cleanup receipt",
			Description: "Example: clapper browser stop",
			Flags:       []cli.Flag{stateFlag},
			Action: func(c *cli.Context) error {
				dir, err := host.StateDir(c.String("state-dir"))
				if err != nil {
					return err
				}
				return stopHost(c.Context, dir, c.App.Writer)
			},
		}},
	}
}

// detachHost starts the host in the background (host.Detach) as this
// executable's clapper browser start with o's flags, and prints its
// endpoint once it is up.
func detachHost(ctx context.Context, o host.Options, out, errw io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	argv := []string{exe, "browser", "start", "--state-dir", o.StateDir, "--idle-timeout", o.IdleTimeout.String()}
	if o.NoSandbox {
		argv = append(argv, "--no-sandbox")
	}
	if o.Chromium != "" {
		argv = append(argv, "--chromium", o.Chromium)
	}
	rec, logPath, err := host.Detach(ctx, o, argv)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s\n", rec.Endpoint)
	fmt.Fprintf(errw, "clapper: browser host up (pid %d), log in %s; stop it with clapper browser stop\n", rec.Pid, logPath)
	return nil
}

// hostStatus prints whether a host runs.
func hostStatus(dir string, out io.Writer) error {
	rec, owner, ok := host.Live(dir)
	if !ok {
		if owner != nil {
			fmt.Fprintf(out, "no browser host is running in %s (the last one, pid %d, is gone)\n", dir, owner.Pid)
		} else {
			fmt.Fprintf(out, "no browser host is running in %s\n", dir)
		}
		return &exitError{Code: exitFailed, Err: &quietError{Err: errors.New("no browser host")}}
	}
	clients := 0
	if st, err := leases.Open(dir); err == nil {
		rows, _ := st.List()
		clients = leases.Clients(rows, path.Base(rec.Endpoint))
	}
	fmt.Fprintf(out, "browser host running in %s\n  endpoint: %s\n  pid: %d (chromium %d), since %s\n  idle timeout: %s\n  clients: %d (runs holding a tab; clapper leases lists them)\n",
		dir, rec.Endpoint, rec.Pid, rec.ChromiumPid, rec.Started.Format(time.RFC3339), rec.IdleTimeout, clients)
	return nil
}

// stopHost asks the host to end, waits for it, and prints its cleanup
// receipt. Nothing running is not an error: a CI job's cleanup may run
// twice.
func stopHost(ctx context.Context, dir string, out io.Writer) error {
	c, ok, err := host.Stop(ctx, dir)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(out, "no browser host is running in %s\n", dir)
		return nil
	}
	fmt.Fprintf(out, "browser host stopped: connection %s, process %s, profile %s\n", c.Connection, c.Process, c.Profile)
	if c.Profile != "removed" || (c.Process != "exited" && !strings.HasPrefix(c.Process, "exited") && c.Process != "killed") {
		return &exitError{Code: exitFailed, Err: fmt.Errorf("the host's cleanup was incomplete: process %s, profile %s", c.Process, c.Profile)}
	}
	return nil
}
