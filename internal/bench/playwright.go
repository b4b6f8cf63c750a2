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
		b, err := os.ReadFile(filepath.Join(d, "package.json"))
		if err != nil {
			continue
		}
		var p struct{ Name string }
		if json.Unmarshal(b, &p) == nil && p.Name == "playwright-core" {
			return filepath.Abs(d)
		}
	}
	return "", exit.Usagef("--playwright %q: no playwright-core package there (nor in its node_modules); %s", dir, strings.ReplaceAll(PlaywrightInstallHint, "DIR", dir))
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
func runPlaywright(ctx context.Context, o RunOptions, pageURL, out string) (scenarioRun, error) {
	if err := settle(ctx, o.QuietWait); err != nil {
		return scenarioRun{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return scenarioRun{}, err
	}
	pkg, err := FindPlaywright(o.Playwright)
	if err != nil {
		return scenarioRun{}, err
	}
	reg, err := playwrightFFmpeg(pkg, o.FFmpeg, out)
	if err != nil {
		return scenarioRun{}, err
	}
	chromium, err := session.FindChromium(o.Chromium)
	if err != nil {
		return scenarioRun{}, err
	}
	script := filepath.Join(out, "scenario.cjs")
	if err := os.WriteFile(script, playwrightScript, 0o644); err != nil {
		return scenarioRun{}, err
	}
	arg, err := playwrightArgs(o, pkg, chromium, pageURL, out)
	if err != nil {
		return scenarioRun{}, err
	}
	node := o.Node
	if node == "" {
		node = "node"
	}
	cmd := exec.CommandContext(ctx, node, script, string(arg))
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_BROWSERS_PATH="+reg, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cpu := startTreeCPU()
	busy0 := machineBusy()
	t0 := time.Now()
	err = cmd.Run()
	wall := time.Since(t0)
	used := cpu.stop()
	others := max(0, (machineBusy() - busy0 - used).Seconds())
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
	r := scenarioRun{WallS: wall.Seconds(), ScenarioS: (pt.ScenarioEndMs - pt.ScenarioStartMs) / 1000, LaunchS: pt.ScenarioStartMs / 1000,
		TailS: (pt.ClosedMs - pt.ScenarioEndMs) / 1000, CPUS: used.Seconds(), OthersCPUS: others, CPUBy: cpu.byKind("bench")}
	r.Ratio = r.WallS / (r.ScenarioS + r.LaunchS)
	r.Video = benchpage.SummarizeVideo(ticks, o.FPS)
	r.Footage = benchpage.SummarizeFootage(ticks, o.FPS)
	r.ScenarioFigures, r.NoTake = r.Footage, true
	r.CPUPerVideoS = cpuPerVideoSecond(r.CPUS, r.Video.Ticks, o.FPS)
	r.CPUPerFootageS = perSecond(r.CPUS, r.Footage.SpanMs/1000)
	r.ticks = ticks
	r.FirstFrameIsPage = len(ticks) > 0 && ticks[0].Decoded
	return r, nil
}

// playwrightVersion is the version of the playwright-core package in pkg,
// for the report's header ("" when unreadable).
func playwrightVersion(pkg string) string {
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return ""
	}
	var p struct{ Version string }
	_ = json.Unmarshal(b, &p)
	return p.Version
}

// playwrightHeader names Playwright's version for the report's header
// when its series runs.
func playwrightHeader(o RunOptions) string {
	if o.Playwright == "" {
		return ""
	}
	pkg, err := FindPlaywright(o.Playwright)
	if err != nil {
		return ""
	}
	return ", against playwright-core " + playwrightVersion(pkg) + " (recordVideo at the same fps)"
}
