package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
)

// Studio capture, the session's side: which capture a run uses, the
// headless shell it launches for it, tabs created with begin-frame
// control, and the session's waits on the take clock, which in studio
// mode is the page's virtual time (advanced by the recorder's frame pump,
// never by the session).

// ShellEnv names the headless shell when --chromium-shell does not.
const ShellEnv = "CLAPPER_CHROMIUM_SHELL"

// shellName is the headless shell's name on PATH (Debian's
// chromium-headless-shell package).
const shellName = "chromium-headless-shell"

// ShellInstall is what to do when the headless shell is missing.
const ShellInstall = "install it with \"apt-get install chromium-headless-shell\" (or pass --chromium-shell PATH)"

// FindShell resolves the headless shell: path, else $CLAPPER_CHROMIUM_SHELL,
// else chromium-headless-shell on PATH.
func FindShell(path string) (string, error) {
	from := "--chromium-shell"
	if path == "" {
		path, from = os.Getenv(ShellEnv), ShellEnv
	}
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("chromium-headless-shell %q (%s) not found: %w; %s", path, from, err, ShellInstall)
		}
		return p, nil
	}
	p, err := exec.LookPath(shellName)
	if err != nil {
		return "", fmt.Errorf("chromium-headless-shell not found on PATH: %s", ShellInstall)
	}
	return p, nil
}

// CaptureChoice is how a run films: the mode, the shell for studio, and a
// line to tell the user when the choice was not the one asked for.
type CaptureChoice struct {
	Mode  string // scripts.CaptureLive or scripts.CaptureStudio
	Shell string // the headless shell, for studio
	Note  string // "" or why the run films live
}

// CaptureAsk is what a run says about how it films.
type CaptureAsk struct {
	Flag   string // --capture, "" when unset
	Script string // the script's browser.capture, "" when unset
	Video  bool   // the run renders a video
	Attach bool   // the run attaches to a running browser
	Headed bool   // the browser's window is shown
	// Chromium: the run names the Chromium to launch (--chromium,
	// CLAPPER_CHROMIUM, browser.chromium); studio would launch the
	// headless shell instead.
	Chromium bool
}

// ChooseCapture decides how a run films; the flag wins over the script.
// Left open, a run that renders a video films in studio mode (every
// frame, on virtual time), and one that only keeps a take films live (the
// page in real time, as evidence of how it ran). A run that
// attaches to a running browser, shows its window, or names the Chromium
// to launch films live: studio capture launches its own headless shell. shellErr is the result of
// looking for that shell: an explicit studio without it is an error that
// says how to install it; a default studio without it falls back to
// live with a note that says why and what to do. Pure.
func ChooseCapture(a CaptureAsk, shell string, shellErr error) (CaptureChoice, error) {
	mode, explicit := a.Flag, true
	if mode == "" {
		mode = a.Script
	}
	if mode == "" {
		mode, explicit = scripts.CaptureLive, false
		if a.Video {
			mode = scripts.CaptureStudio
		}
	}
	switch mode {
	case scripts.CaptureLive:
		return CaptureChoice{Mode: mode}, nil
	case scripts.CaptureStudio:
	default:
		return CaptureChoice{}, fmt.Errorf("capture %q: use live or studio", mode)
	}
	if a.Attach {
		if explicit {
			return CaptureChoice{}, errors.New("capture studio launches its own chromium-headless-shell and cannot attach to a running browser: use --capture live with an attached browser")
		}
		return CaptureChoice{Mode: scripts.CaptureLive}, nil
	}
	if a.Chromium && !explicit {
		return CaptureChoice{Mode: scripts.CaptureLive}, nil
	}
	if a.Headed {
		if explicit {
			return CaptureChoice{}, errors.New("capture studio films in chromium-headless-shell, which shows no window: drop --headed (or browser.headless: false), or use --capture live")
		}
		return CaptureChoice{Mode: scripts.CaptureLive}, nil
	}
	if shellErr != nil {
		if explicit {
			return CaptureChoice{}, fmt.Errorf("capture studio: %w", shellErr)
		}
		return CaptureChoice{Mode: scripts.CaptureLive, Note: "filming live: chromium-headless-shell, which studio capture (the default for videos) needs, is missing; " + ShellInstall}, nil
	}
	return CaptureChoice{Mode: scripts.CaptureStudio, Shell: shell}, nil
}

// AskOf completes what the caller says about a run's capture (the flag,
// an attached browser, a Chromium named, a video rendered) with what
// script s says: its browser.capture, attach, chromium and headless.
func AskOf(s *scripts.Script, caller CaptureAsk) CaptureAsk {
	a := caller
	a.Script = s.Browser.Capture
	a.Attach = a.Attach || s.Browser.Attach != ""
	a.Chromium = a.Chromium || s.Browser.Chromium != ""
	a.Headed = a.Headed || !s.Browser.Headless
	return a
}

// studioArgs are the flags begin-frame control needs on the headless shell
// (measured on Chromium 156: without them begin-frames are refused, or
// frames are drawn outside them), and the device scale, which only the
// command line sets for screenshots. Pure.
func studioArgs(scale float64) []string {
	args := []string{
		"--enable-begin-frame-control",
		"--deterministic-mode",
		"--run-all-compositor-stages-before-draw",
		"--disable-threaded-animation",
		"--disable-threaded-scrolling",
		"--disable-checker-imaging",
		"--disable-new-content-rendering-timeout",
		"--disable-image-animation-resync",
	}
	if scale > 0 && scale != 1 {
		args = append(args, "--force-device-scale-factor="+strconv.FormatFloat(scale, 'f', -1, 64))
	}
	return args
}

// StudioLaunch is how to launch a headless shell (path) that studio runs
// at device scale scale and viewport width x height attach to
// (RunOptions.Studio): as such a run launches its own, so that the page
// sees the same window and screen.
func StudioLaunch(path string, noSandbox bool, scale float64, width, height int) LaunchOptions {
	return LaunchOptions{Path: path, Headless: true, NoSandbox: noSandbox, Studio: true, Scale: scale, Width: width, Height: height}
}

// checkScale refuses a tab of a shell launched at another device scale
// than the script's: its pictures would have the wrong size.
func checkScale(ctx, tab context.Context, scale float64) error {
	c, cancel := context.WithTimeout(tab, browserCallLimit)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	dpr, err := EvalNumber(c, "devicePixelRatio")
	if err != nil {
		return fmt.Errorf("open tab: read its device scale: %w", err)
	}
	if scale <= 0 {
		scale = 1
	}
	if dpr != scale {
		return fmt.Errorf("the studio browser draws at device scale %s, the script asks for %s: launch one at the script's scale", strconv.FormatFloat(dpr, 'f', -1, 64), strconv.FormatFloat(scale, 'f', -1, 64))
	}
	return nil
}

// NewStudioTab opens a tab whose frames are made only when asked
// (Target.createTarget with enableBeginFrameControl), in browser context
// bc ("" for the default one), bounded by ctx and browserCallLimit like
// NewTab. Cancelling the returned func closes it.
func (b *Browser) NewStudioTab(ctx context.Context, width, height int, bc cdp.BrowserContextID) (context.Context, context.CancelFunc, error) {
	cctx, cancel := context.WithTimeout(b.ctx, browserCallLimit)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	yes := true
	res, err := chromedp.CallBrowser(cctx, target.CreateTarget, target.CreateTargetParams{
		URL: "about:blank", EnableBeginFrameControl: &yes, Width: int64(width), Height: int64(height), BrowserContextID: bc,
	})
	if err != nil {
		if b.ctx.Err() == nil && cctx.Err() == nil {
			err = fmt.Errorf("%w (begin-frame control needs chromium-headless-shell)", err)
		}
		return nil, nil, fmt.Errorf("open tab: %w", err)
	}
	return b.attachOpened(ctx, res.TargetID)
}

// The take clock in contexts. A studio run puts its virtual clock in each
// tab's context; the session's sleeps, polls and step deadlines read it
// there, so they are measured in the page's time: a pause of 2s is 120
// frames at 60 fps, fast when the page is still, and a wait that never
// succeeds ends when its virtual deadline passes.

type virtualKey struct{}

// withVirtual returns ctx carrying the virtual clock v.
func withVirtual(ctx context.Context, v *recorder.VirtualTime) context.Context {
	if v == nil {
		return ctx
	}
	return context.WithValue(ctx, virtualKey{}, v)
}

func virtualOf(ctx context.Context) *recorder.VirtualTime {
	v, _ := ctx.Value(virtualKey{}).(*recorder.VirtualTime)
	return v
}

// after returns a channel that is closed once d has passed on ctx's clock,
// and a func to release it. On virtual time it is a session sleep: the
// pump makes frames freely while it waits (recorder.VirtualTime.Turn).
func after(ctx context.Context, d time.Duration) (<-chan struct{}, func()) {
	if v := virtualOf(ctx); v != nil {
		return v.Sleep(d)
	}
	ch := make(chan struct{})
	t := time.AfterFunc(d, func() { close(ch) })
	return ch, func() { t.Stop() }
}

// clockStopped is why ctx's virtual clock stopped for good (Chromium is
// gone, so its frames will not come), nil on a running clock or on wall
// time: a timer that fired because the clock stopped did not see its time
// come, and its wait must not pass for one that did.
func clockStopped(ctx context.Context) error {
	if v := virtualOf(ctx); v != nil {
		if err := v.Err(); err != nil {
			return fmt.Errorf("the page's clock stopped: %w", err)
		}
	}
	return nil
}

// wallStart anchors clockNow's real-time reading.
var wallStart = time.Now()

// clockNow reads ctx's clock: virtual time in studio mode, else time since
// the process started (monotonic).
func clockNow(ctx context.Context) time.Duration {
	if v := virtualOf(ctx); v != nil {
		return v.Now().Duration()
	}
	return time.Since(wallStart)
}

// withStepTimeout is context.WithTimeoutCause on ctx's clock. On virtual
// time a wall-clock bound backs it (wallFactor times the timeout, plus
// wallSlack), so a pump that crawls cannot hold a step for ever.
func withStepTimeout(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	v := virtualOf(ctx)
	if v == nil {
		return context.WithTimeoutCause(ctx, d, cause)
	}
	wctx, wcancel := context.WithTimeoutCause(ctx, wallFactor*d+wallSlack, fmt.Errorf("%w (not reached in virtual time within %v of real time)", cause, wallFactor*d+wallSlack))
	c, cancel := context.WithCancelCause(wctx)
	ch, release := v.After(d)
	go func() { // ends with c
		defer release()
		select {
		case <-ch:
			cancel(cmp.Or(clockStopped(ctx), cause))
		case <-c.Done():
		}
	}()
	return c, func() { cancel(context.Canceled); wcancel() }
}

const (
	wallFactor = 20
	wallSlack  = 60 * time.Second
)

// openTarget opens a tab for the run: with begin-frame control and the
// virtual clock in its context in studio mode.
func (r *run) openTarget(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if r.virt == nil {
		return r.browser.NewTab(ctx)
	}
	tctx, cancel, err := r.browser.NewStudioTab(ctx, r.s.Browser.Width, r.s.Browser.Height, r.studioContext)
	if err != nil {
		return nil, nil, err
	}
	if r.o.Studio != "" {
		if err := checkScale(ctx, tctx, r.s.Browser.Scale); err != nil {
			cancel()
			return nil, nil, err
		}
	}
	// Whichever tab is filmed, this one is sent frames and virtual time
	// too, so it takes input and keeps time while it is not shot.
	undrive, err := r.virt.Drive(tctx)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("open tab: %w", err)
	}
	return withVirtual(tctx, r.virt), func() { undrive(); cancel() }, nil
}

// startCapture starts filming the tab of ctx: the screencast when live,
// the frame pump in studio mode.
func (r *run) startCapture(ctx context.Context, co recorder.Options) (*recorder.Capture, error) {
	start := func() (*recorder.Capture, error) {
		if r.virt == nil {
			return recorder.Start(ctx, co)
		}
		return recorder.StartStudio(ctx, co, r.studioFPS())
	}
	if r.o.startCapture != nil {
		return r.o.startCapture(start)
	}
	return start()
}

// studioFPS is the frame rate of studio capture (studioRate of the
// output's).
func (r *run) studioFPS() int {
	return studioRate(r.s.Output.FPS)
}

// minStudioFPS is the slowest studio pump: a virtual frame is the step of
// the page's clock, so a slower pump would run timers, animations and
// inputs at coarse steps no video shows.
const minStudioFPS = 24

// studioRate is the frame rate of studio capture for an output of fps
// frames per second (0: not set): the output's own, so that each output
// frame is one page frame, when it is at least minStudioFPS; below that
// the smallest multiple of it that is, so the compositor takes every
// k-th page frame; recorder.DefaultFPS when not set.
func studioRate(fps int) int {
	if fps <= 0 {
		return recorder.DefaultFPS
	}
	if fps >= minStudioFPS {
		return fps
	}
	return (minStudioFPS + fps - 1) / fps * fps
}

// busy marks a command to the page in flight on ctx's virtual clock until
// the returned func is called: the pump holds its next frame meanwhile,
// for a while (recorder.VirtualTime.Turn), so the command lands between
// the same two frames in every run. A no-op when live.
func busy(ctx context.Context) func() {
	if v := virtualOf(ctx); v != nil {
		return v.Busy()
	}
	return func() {}
}

// busyFrames is busy for a command that may complete only once the page
// has made need frames (0: it cannot be told; recorder.VirtualTime.BusyFrames).
func busyFrames(ctx context.Context, need int) func() {
	if v := virtualOf(ctx); v != nil {
		return v.BusyFrames(need)
	}
	return func() {}
}
