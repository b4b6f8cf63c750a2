package session

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// LaunchOptions configure an owned Chromium.
type LaunchOptions struct {
	// Path is the executable; "" searches PATH for chromium and friends.
	Path string
	// Headless runs without a window (the default in scripts).
	Headless bool
	// NoSandbox disables Chromium's sandbox. Needed as root; never inferred.
	NoSandbox bool
	Width     int
	Height    int
	// Args are extra command-line flags.
	Args []string
	// Studio launches the headless shell (Path) with begin-frame control,
	// at device scale Scale (studio capture); Headless is then moot.
	Studio bool
	Scale  float64
}

// ErrRootNeedsNoSandbox is returned when launching as root without an
// explicit no-sandbox choice.
var ErrRootNeedsNoSandbox = errors.New("running as root: Chromium's sandbox cannot start; pass --no-sandbox (or set CLAPPER_NO_SANDBOX=1, or browser: {sandbox: false} in the script) to run it without one")

// candidates are searched in order when no path is given.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// FindChromium resolves the executable to launch.
func FindChromium(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("chromium %q not found: %w (install it with \"apt-get install chromium\" or pass --chromium PATH)", path, err)
		}
		return p, nil
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", errors.New(`chromium not found: install it with "apt-get install chromium" or pass --chromium PATH`)
}

// ChromiumArgs builds the command line for an owned Chromium: a fresh
// profile, an ephemeral loopback debugging port, and the flags that keep a
// headless browser quiet on a closed network. Pure; golden-tested.
func ChromiumArgs(o LaunchOptions, profile string) []string {
	args := []string{
		"--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0",
		"--user-data-dir=" + profile,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-quic",
		"--disable-dev-shm-usage",
		"--disable-gpu",
		"--disable-extensions",
		"--disable-default-apps",
		"--disable-breakpad",
		"--disable-crash-reporter",
		"--metrics-recording-only",
		"--password-store=basic",
		"--use-mock-keychain",
		"--hide-scrollbars",
		"--mute-audio",
		"--disable-background-timer-throttling",
		"--disable-backgrounding-occluded-windows",
		"--disable-renderer-backgrounding",
		"--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider",
	}
	if o.Studio {
		args = append(args, studioArgs(o.Scale)...)
	} else if o.Headless {
		args = append(args, "--headless=new")
	}
	if o.NoSandbox {
		args = append(args, "--no-sandbox")
	}
	if o.Width > 0 && o.Height > 0 {
		args = append(args, "--window-size="+strconv.Itoa(o.Width)+","+strconv.Itoa(o.Height))
	}
	args = append(args, o.Args...)
	return append(args, "about:blank")
}

// checkSandbox refuses to run as root (euid 0) with the sandbox on:
// Chromium's sandbox cannot start there, and turning it off is the user's
// choice to make, never clapper's. Pure.
func checkSandbox(euid int, o LaunchOptions) error {
	if euid == 0 && !o.NoSandbox {
		return ErrRootNeedsNoSandbox
	}
	return nil
}

// geteuid is the user Launch checks; tests stand in another.
var geteuid = os.Geteuid
