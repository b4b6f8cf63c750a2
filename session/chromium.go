package session

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
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
	// euid is the user Launch checks (nil: os.Geteuid); tests stand in
	// another.
	euid func() int
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

// disabledFeatures are the Chromium features an owned browser runs
// without. The omnibox popups are web pages of Chromium's own that a
// browser preloads about a second after it starts, in renderers of their
// own: on two cores their start took the CPU from the filmed page and
// froze live takes, which it no longer does without them
// (docs/internals.md). Names Chromium does not know are
// ignored, so the list holds across versions.
func disabledFeatures() []string {
	return []string{"Translate", "MediaRouter", "OptimizationHints", "DialMediaRouteProvider",
		"PreloadTopChromeWebUI", "WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"}
}

// splitDisabledFeatures takes the features a caller disables out of its
// extra flags (Chromium reads only the last --disable-features, which
// would drop clapper's own), returning the other flags and those
// features. Pure.
func splitDisabledFeatures(args []string) (rest, features []string) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--disable-features="); ok {
			for _, f := range strings.Split(v, ",") {
				if f = strings.TrimSpace(f); f != "" {
					features = append(features, f)
				}
			}
			continue
		}
		rest = append(rest, a)
	}
	return rest, features
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
		// A click may open several pages, as under Playwright and
		// Puppeteer, which pass it too: a script names each.
		"--disable-popup-blocking",
	}
	extra, disabled := splitDisabledFeatures(o.Args)
	args = append(args, "--disable-features="+strings.Join(append(disabledFeatures(), disabled...), ","))
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
	args = append(args, extra...)
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
