package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
)

// sharedFlags are run's flags for a browser others share.
type sharedFlags struct {
	browser  string
	label    string
	leaseTTL time.Duration
	stateDir string
}

func sharedRunFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "browser", Usage: "run in a browser others share: shared (the host of clapper browser start) or a loopback ws:// endpoint"},
		&cli.StringFlag{Name: "label", Usage: "name this run in leases and conflicts (default: the script's name and the pid)"},
		&cli.DurationFlag{Name: "lease-ttl", Value: leases.DefaultTTL, Usage: "how long the run's tab lease lives without use"},
		&cli.StringFlag{Name: "state-dir", EnvVars: []string{"CLAPPER_STATE_DIR"}, Usage: "state folder of the shared browser and its leases"},
	}
}

func sharedFlagsOf(c *cli.Context) sharedFlags {
	return sharedFlags{browser: c.String("browser"), label: c.String("label"), leaseTTL: c.Duration("lease-ttl"), stateDir: c.String("state-dir")}
}

// sharedRun resolves where a run's browser is: "" and nil to launch its
// own; else the endpoint (the host's for shared) and the leases its tabs
// are held under. Every attached run leases its tabs. A claim needs a
// browser to claim in.
func sharedRun(s *scripts.Script, f sharedFlags) (string, *session.LeaseOptions, error) {
	endpoint := f.browser
	if endpoint == "" {
		endpoint = s.Browser.Attach
	}
	if endpoint == "" {
		if s.Browser.Claim != "" {
			return "", nil, usageErr("%s: browser.claim takes over a tab of a shared browser: add browser.attach: shared, or run with --browser shared", s.File)
		}
		if s.Browser.Close != nil {
			return "", nil, usageErr("%s: browser.close decides what happens to the tabs a run gives back to a shared browser, and this run launches its own: add browser.attach: shared, run with --browser shared, or remove browser.close", s.File)
		}
		return "", nil, nil
	}
	if f.leaseTTL <= 0 {
		return "", nil, usageErr("--lease-ttl %v: give a duration like 15m", f.leaseTTL)
	}
	dir, err := resolveStateDir(f.stateDir)
	if err != nil {
		return "", nil, err
	}
	if endpoint == scripts.AttachShared {
		if endpoint, err = sharedEndpoint(dir); err != nil {
			return "", nil, err
		}
	}
	if err := session.CheckEndpoint(endpoint); err != nil {
		return "", nil, usageErr("--browser: %v", err)
	}
	st, err := leases.Open(dir)
	if err != nil {
		return "", nil, err
	}
	return endpoint, &session.LeaseOptions{Store: st, Label: f.label, TTL: f.leaseTTL}, nil
}
