package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/timeline"
)

func leaseFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "state-dir", EnvVars: []string{"CLAPPER_STATE_DIR"}, Usage: "state folder of the host and its leases (default $XDG_STATE_HOME/clapper or ~/.local/state/clapper)"},
		&cli.StringFlag{Name: "browser", Usage: "the browser: shared (the host, the default) or a loopback ws:// endpoint"},
	}
}

// leasesCommand is "clapper leases": who holds which tab, and the reaping
// of abandoned tabs.
func leasesCommand() *cli.Command {
	return &cli.Command{
		Name:  "leases",
		Usage: "list who holds which tab of the shared browser, and close the tabs abandoned runs left",
		Description: "Each lease: tab, URL, label, pid, tier, alive, stale and why (never the token). A tab is closed only when clapper\n" +
			"opened it, leased it, and the lease is stale because its run died or expired; each one closed is said.\n" +
			"Example: clapper leases --json",
		Flags: append(leaseFlags(), &cli.BoolFlag{Name: "json", Usage: "print JSON"}),
		Action: func(c *cli.Context) error {
			return listLeases(c.Context, c.String("state-dir"), c.String("browser"), c.Bool("json"), c.App.Writer, c.App.ErrWriter)
		},
	}
}

// releaseCommand is "clapper release TAB".
func releaseCommand() *cli.Command {
	return &cli.Command{
		Name:  "release",
		Usage: "give back a tab's lease (one whose holder is gone or expired: a live holder's is refused)",
		Description: "TAB is a tab id as clapper leases shows it. There is no steal: a lease frees up only when its holder is gone or it\n" +
			"went unused for its --lease-ttl. The tab is closed only if clapper opened it, unless --close says otherwise.\n" +
			"Example: clapper release 9C1E5B7A2F0D4E63 --close false",
		ArgsUsage: "TAB",
		Flags:     append(leaseFlags(), &cli.StringFlag{Name: "close", Usage: "true or false: close the tab, or leave it open (default: close only a tab clapper opened)"}),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("release takes one tab: an id from clapper leases, or active, index:N, url:…, title:…")
			}
			var override *bool
			switch c.String("close") {
			case "":
			case "true", "false":
				v := c.String("close") == "true"
				override = &v
			default:
				return usageErr("--close %q: say true or false", c.String("close"))
			}
			return releaseTab(c.Context, c.String("state-dir"), c.String("browser"), c.Args().First(), override, c.App.Writer)
		},
	}
}

func listLeases(ctx context.Context, stateFlag, browserFlag string, asJSON bool, stdout, stderr io.Writer) error {
	l, err := host.List(ctx, stateFlag, browserFlag)
	if err != nil {
		return err
	}
	bid, out, reaped, b := l.Browser, l.Leases, l.Reaped, l.Connected
	for _, f := range l.Unreaped {
		fmt.Fprintf(stderr, "clapper: %v\n", f)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Browser string           `json:"browser,omitempty"`
			Leases  []host.LeaseRow  `json:"leases"`
			Reaped  []host.ReapedTab `json:"reaped,omitempty"`
		}{bid, append([]host.LeaseRow{}, out...), reaped})
	}
	for _, r := range reaped {
		fmt.Fprintf(stdout, "reaped tab %s (%s), left by %s: %s\n", r.Tab, r.URL, r.Label, r.Reason)
	}
	if !b {
		fmt.Fprintln(stdout, "no browser host is running: tabs not checked, nothing reaped")
	}
	if len(out) == 0 {
		fmt.Fprintln(stdout, "no leases")
		return nil
	}
	w := tabwriter.NewWriter(timeline.PrintableWriter{W: stdout}, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TAB\tURL\tLABEL\tPID\tTIER\tALIVE\tSTALE")
	for _, r := range out {
		stale := "no"
		if r.Unreadable != "" {
			stale = "unreadable: " + r.Unreadable
		} else if r.Why != "" {
			stale = r.Why
			if !r.Stale {
				stale = "no (" + r.Why + ")"
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%v\t%s\n", r.Tab, r.URL, r.Label, r.Pid, r.Tier, r.Alive, stale)
	}
	return w.Flush()
}

func releaseTab(ctx context.Context, stateFlag, browserFlag, sel string, override *bool, stdout io.Writer) error {
	id, g, err := host.Release(ctx, stateFlag, browserFlag, sel, override)
	switch {
	case err != nil:
		return err
	case !g.Released:
		fmt.Fprintf(stdout, "tab %s has no lease to give back\n", id)
	case g.CloseErr != nil:
		return fmt.Errorf("released tab %s, but could not close it: %w", id, g.CloseErr)
	case !g.Closed:
		fmt.Fprintf(stdout, "released tab %s (held by %s); left open\n", id, g.Was.Label)
	default:
		fmt.Fprintf(stdout, "released tab %s (held by %s); closed it\n", id, g.Was.Label)
	}
	return nil
}
