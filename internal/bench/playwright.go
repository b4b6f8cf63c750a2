package bench

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/session"
)

// The bench scenario as a Playwright script (playwright.cjs), recorded by
// Playwright's recordVideo: the series bench run --playwright adds, so
// that clapper's figures and Playwright's come from one sitting, runs
// taking turns, each measured the same way (the CPU of every process the
// run started, and the figures its video alone gives).

//go:embed playwright.cjs
var playwrightScript []byte

// playwrightCapture names the Playwright series among the run modes.
const playwrightCapture = "playwright"

// PlaywrightMode is the run mode of Playwright's series.
var PlaywrightMode = RunMode{Capture: playwrightCapture}

// The scenario's text and timed parts, the same in clapper's script and
// in the Playwright script (clapper's defaults for a type step's delay
// and a scroll's duration, spelled out).
const (
	scenarioText      = "clapper films every frame"
	scenarioTypeDelay = 60 * time.Millisecond
	scenarioScrollBy  = 600
	scenarioScroll    = 600 * time.Millisecond
)

// PlaywrightInstallHint says how to get what --playwright needs.
const PlaywrightInstallHint = "install it with: npm install --prefix DIR playwright-core@" + PlaywrightVersion + " and pass --playwright DIR (no browser download is needed: the run uses clapper's Chromium and the machine's ffmpeg)"

// PlaywrightVersion is the playwright-core the figures were measured
// with (make versus-playwright installs it).
const PlaywrightVersion = "1.65.2"

// FindPlaywright resolves --playwright: a playwright-core package folder,
// or a folder whose node_modules holds one. It returns the package folder.
func FindPlaywright(dir string) (string, error) {
	for _, d := range []string{dir, filepath.Join(dir, "node_modules", "playwright-core")} {
		if name, _, err := readPackage(d); err == nil && name == "playwright-core" {
			return filepath.Abs(d)
		}
	}
	return "", exit.Usagef("--playwright %q: no playwright-core package there (nor in its node_modules); %s", dir, strings.ReplaceAll(PlaywrightInstallHint, "DIR", dir))
}

// readPackage reads the name and version of the npm package in dir.
func readPackage(dir string) (name, version string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", "", err
	}
	var p struct{ Name, Version string }
	err = json.Unmarshal(b, &p)
	return p.Name, p.Version, err
}

// playwrightVersion is the version of the playwright-core package in pkg,
// for the report ("" when unreadable).
func playwrightVersion(pkg string) string {
	_, v, _ := readPackage(pkg)
	return v
}

// playwrightSetup is what every run of the Playwright series shares,
// resolved once per bench run: the package and its version, the
// Chromium, the folder Playwright finds its ffmpeg in, and the script.
type playwrightSetup struct {
	pkg, version, chromium, browsers, script string
}

// setupPlaywright resolves the Playwright series' setup into work.
func setupPlaywright(o RunOptions, work string) (*playwrightSetup, error) {
	pkg, err := FindPlaywright(o.Playwright)
	if err != nil {
		return nil, err
	}
	pw := &playwrightSetup{pkg: pkg, version: playwrightVersion(pkg), script: filepath.Join(work, "scenario.cjs")}
	if pw.browsers, err = playwrightFFmpeg(pkg, o.FFmpeg, work); err != nil {
		return nil, err
	}
	if pw.chromium, err = session.FindChromium(o.Chromium); err != nil {
		return nil, err
	}
	return pw, os.WriteFile(pw.script, playwrightScript, 0o644)
}

// header names Playwright's version for the report's header (nothing
// when its series does not run).
func (pw *playwrightSetup) header() string {
	if pw == nil {
		return ""
	}
	return ", against playwright-core " + pw.version + " (recordVideo at the same fps)"
}

// ffmpegRevision reads the revision Playwright looks for its ffmpeg
// under from a playwright-core package's browsers.json. Pure.
func ffmpegRevision(browsersJSON []byte) (string, error) {
	var b struct {
		Browsers []struct{ Name, Revision string }
	}
	if err := json.Unmarshal(browsersJSON, &b); err != nil {
		return "", fmt.Errorf("browsers.json: %w", err)
	}
	for _, x := range b.Browsers {
		if x.Name == "ffmpeg" && x.Revision != "" {
			return x.Revision, nil
		}
	}
	return "", errors.New("browsers.json names no ffmpeg")
}

// playwrightFFmpeg makes a folder for PLAYWRIGHT_BROWSERS_PATH in which
// Playwright finds ffmpeg (the machine's, by a link) where it would have
// downloaded its own. Its recorder's arguments (VP9 from a Matroska of
// JPEGs) are standard ffmpeg's.
func playwrightFFmpeg(pkg, ffmpeg, work string) (string, error) {
	b, err := os.ReadFile(filepath.Join(pkg, "browsers.json"))
	if err == nil {
		var rev string
		if rev, err = ffmpegRevision(b); err == nil {
			return linkFFmpeg(rev, ffmpeg, work)
		}
	}
	return "", fmt.Errorf("%s: %w (is it a whole playwright-core package? reinstall it: %s)", pkg, err, PlaywrightInstallHint)
}

// linkFFmpeg makes the folder of playwrightFFmpeg for Playwright's
// ffmpeg revision rev.
func linkFFmpeg(rev, ffmpeg, work string) (string, error) {
	if ffmpeg == "" {
		ffmpeg = "ffmpeg"
	}
	exe, err := exec.LookPath(ffmpeg)
	if err != nil {
		return "", fmt.Errorf("ffmpeg for Playwright's recorder: %w (install ffmpeg, or pass --ffmpeg)", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", err
	}
	reg := filepath.Join(work, "playwright-browsers")
	dir := filepath.Join(reg, "ffmpeg-"+rev)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	link := filepath.Join(dir, "ffmpeg-linux")
	_ = os.Remove(link)
	return reg, os.Symlink(exe, link)
}

// playwrightTimes are what the script prints: milliseconds since its
// process began.
type playwrightTimes struct {
	LaunchedMs      float64 `json:"launched_ms"`
	ScenarioStartMs float64 `json:"scenario_start_ms"`
	ScenarioEndMs   float64 `json:"scenario_end_ms"`
	ClosedMs        float64 `json:"closed_ms"`
	Video           string  `json:"video"`
}

// playwrightArgs is the script's one argument. Pure.
func playwrightArgs(o RunOptions, pkg, chromium, pageURL, dir string) ([]byte, error) {
	// Playwright adds --no-sandbox itself unless chromiumSandbox is
	// true: the sandbox is asked for as clapper's Chromium has it.
	return json.Marshal(map[string]any{
		"playwright": pkg, "chromium": chromium, "args": []string{}, "no_sandbox": o.NoSandbox, "url": pageURL, "dir": dir,
		"width": o.W, "height": o.H, "fps": o.FPS,
		"text": scenarioText, "type_delay_ms": scenarioTypeDelay.Milliseconds(),
		"scroll_by": scenarioScrollBy, "scroll_ms": scenarioScroll.Milliseconds(),
	})
}

// runPlaywright runs the scenario once with Playwright into out, and
// measures it as runOnce measures clapper's: the CPU of every process,
// the figures from its video.
func runPlaywright(ctx context.Context, o RunOptions, pw *playwrightSetup, pageURL, out string) (scenarioRun, error) {
	arg, err := playwrightArgs(o, pw.pkg, pw.chromium, pageURL, out)
	if err != nil {
		return scenarioRun{}, err
	}
	node := o.Node
	if node == "" {
		node = "node"
	}
	var stdout, stderr bytes.Buffer
	m, err := measured(ctx, o, out, "bench", func() error {
		cmd := exec.CommandContext(ctx, node, pw.script, string(arg))
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_BROWSERS_PATH="+pw.browsers, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return cmd.Run()
	})
	// What the script printed stays with the run's video (its times,
	// with a mark after each step, and any message).
	_ = os.WriteFile(filepath.Join(out, "playwright.json"), stdout.Bytes(), 0o644)
	if stderr.Len() > 0 {
		_ = os.WriteFile(filepath.Join(out, "playwright.log"), stderr.Bytes(), 0o644)
	}
	if err != nil {
		return scenarioRun{}, fmt.Errorf("playwright: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var pt playwrightTimes
	if err := json.Unmarshal(stdout.Bytes(), &pt); err != nil {
		return scenarioRun{}, fmt.Errorf("playwright: the script printed no times (%v): %q; see %s", err, stdout.String(), filepath.Join(out, "playwright.log"))
	}
	if pt.Video == "" {
		return scenarioRun{}, fmt.Errorf("playwright: the script named no video: %q", stdout.String())
	}
	ticks, err := benchpage.DecodeVideo(ctx, pt.Video, o.W, o.H, o.W, o.FFmpeg)
	if err != nil {
		return scenarioRun{}, err
	}
	r := m.run()
	r.ScenarioS, r.LaunchS, r.TailS = (pt.ScenarioEndMs-pt.ScenarioStartMs)/1000, pt.ScenarioStartMs/1000, (pt.ClosedMs-pt.ScenarioEndMs)/1000
	r.Ratio = r.WallS / (r.ScenarioS + r.LaunchS)
	r.fromVideo(ticks, o.FPS)
	r.ScenarioFigures, r.NoTake = r.Footage, true
	return r, nil
}
