package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// RunOptions configure one run of a script.
type RunOptions struct {
	// TakeDir receives the take (timeline.json, frames.jsonl, frames/).
	TakeDir string
	// OutDir receives screenshots; "" means the take's parent folder.
	OutDir string
	// NoSandbox, when true, overrides the script to run Chromium without
	// its sandbox (the explicit choice root needs).
	NoSandbox bool
	// Chromium overrides the executable path.
	Chromium string
	// Filming is how the run films, when the caller has decided it with
	// ChooseCapture (the command line does, to check before anything
	// launches what will launch); nil: as the script says.
	Filming *CaptureChoice
	// Capture tunes the recorder (buffer bounds, in-flight frames).
	Capture recorder.Options
	// Progress, when set, is called from the run's goroutine before each
	// step and must not block.
	Progress func(ev Progress)
	// Handoff, when set, is called from the run's goroutine when a handoff
	// step gives a tab to a person: it tells them what to do, and must not
	// block. Without it the request goes to Logf.
	Handoff func(h HandoffRequest)
	// Logf receives quiet log lines (may be nil).
	Logf func(format string, args ...any)
	// OnLaunch, when set, is called once the browser is up (tests use it
	// to inject faults).
	OnLaunch func(b *Browser)
	// Attach, when set, is the endpoint of a browser to run against,
	// over the script's browser.attach (--browser, or the shared host's).
	Attach string
	// Leases, when set, makes the run lease the tabs it drives in an
	// attached browser others share (shared.go).
	Leases *LeaseOptions
	// Studio, when set, is the endpoint of a headless shell launched with
	// StudioLaunch at the script's scale: a studio run opens its
	// begin-frame tabs there, in a browser context of its own (cookies,
	// storage and cache of its own, gone when the run ends), instead of
	// launching a shell. Runs take turns on one (a suite's workers each
	// hold one); a live run ignores it.
	Studio string
	// Tool is the version string recorded in the timeline; Revision is
	// the tool's VCS revision, recorded in the take's manifest.
	Tool     string
	Revision string

	// fault, when set, makes a hold or resume fail at a point (tests).
	fault func(faultPoint) error
	// resumeWithJump resumes without the animation frame at rate 0 (tests
	// measure the jump it avoids).
	resumeWithJump bool
	// beforeStep, when set, is called before each step (tests).
	beforeStep func(i int, r *run)
	// afterResolve, when set, is called between a pointer step's moving
	// to its target and the press (tests).
	afterResolve func(r *run)
	// headlessHandoff lets a handoff run headless, another client of the
	// browser playing the person (tests).
	headlessHandoff bool
	// startCapture, when set, starts each capture in startCapture's place,
	// given its own way to call (tests).
	startCapture func(start func() (*recorder.Capture, error)) (*recorder.Capture, error)
	// afterOpenPage, when set, runs between opening a shared tab and
	// leasing it: the gap in which another run could look at the tab
	// (tests).
	afterOpenPage func(id string)
}

// Progress reports a run's advance.
type Progress struct {
	Step, Steps int
	Kind, Label string
	Capture     recorder.Snapshot
}

// Result is the outcome of a run: the timeline written to the take, and the
// failing step if one failed.
type Result struct {
	Timeline *timeline.Timeline
	// Failed is the first non-optional step that failed, nil when all passed.
	Failed *StepFailure
}

// StepFailure names a failed step for people and for exit codes.
type StepFailure struct {
	Index   int
	Pos     scripts.Pos
	Kind    string
	Label   string
	Outcome timeline.Outcome
	Err     error
}

func (f *StepFailure) Error() string {
	what := f.Kind
	if f.Label != "" {
		what += " " + fmt.Sprintf("%q", f.Label)
	}
	return fmt.Sprintf("%s:%d:%d: step %d (%s) failed [%s]: %v", f.Pos.File, f.Pos.Line, f.Pos.Col, f.Index+1, what, f.Outcome, f.Err)
}

func (f *StepFailure) Unwrap() error { return f.Err }

// ErrBrowserGone is wrapped when Chromium died or disconnected mid-run.
var ErrBrowserGone = errors.New("chromium is gone")

// run holds the state of one script run. Its methods run on the run's
// goroutine only.
type run struct {
	s       *scripts.Script
	o       RunOptions
	clock   *recorder.Clock
	journal *Journal
	browser *Browser
	tabs    map[string]*Tab
	current *Tab
	capture *recorder.Capture
	// filmed is the tab the capture follows; filmedResults are the
	// captures of tabs filmed before it (keepFilmed).
	filmed        *Tab
	filmedResults []recorder.Result
	log           *timeline.FrameLog
	// jr is the take's journal: what the timeline will hold, as it
	// happens, so a killed run leaves a take that can be recovered.
	jr   *timeline.Journal
	tl   *timeline.Timeline
	logf func(string, ...any)
	// shared holds the run's tab leases when the browser is shared.
	shared *sharedTabs
	// studioContext is the run's browser context in a shell it attached
	// to (RunOptions.Studio); "" in a shell of its own.
	studioContext cdp.BrowserContextID
	// chromium is the browser's product string, for the manifest.
	chromium string
	// pages records what the tabs' pages say.
	pages *pageLog
	// popups keeps the run's tabs in front of the pages they open
	// (popups.go); stopPopups ends its listener.
	popups *popups
	// adopted is set once a step named a page a tab opened (tab: {popup:
	// NAME}); from then on the tab the steps act on is put in front of
	// its window (inFront, toFront).
	adopted    bool
	inFront    *Tab
	stopPopups context.CancelFunc
	// dialogs answers the pages' dialogs (dialogs.go).
	dialogs dialogs
	// holdMu guards the tabs' hold state, the holds issued and the
	// timeline's holds: a bounded hold resumes itself from its own
	// goroutine (hold.go), counted in bounds.
	holdMu sync.Mutex
	holds  []*holdState
	bounds sync.WaitGroup
	// filmPinned is the tab a film step chose; nil while the video follows
	// the tab the steps act on.
	filmPinned *Tab
	// studio is how the run films (ChooseCapture); virt is the take
	// clock's virtual time in studio mode, nil when live.
	studio CaptureChoice
	virt   *recorder.VirtualTime
}

// filming is the run's capture choice: the caller's, else the script's.
// Run renders no video itself, so left open it films live; clapper run,
// which renders, passes its own choice (studio for a video).
func filming(s *scripts.Script, o RunOptions) (CaptureChoice, error) {
	if o.Filming != nil {
		return *o.Filming, nil
	}
	shell, shellErr := FindShell("")
	return ChooseCapture(AskOf(s, CaptureAsk{Attach: o.Attach != "", Chromium: o.Chromium != ""}), shell, shellErr)
}

// Run executes a validated script against an owned (or attached) Chromium,
// recording a take into o.TakeDir. The take and its timeline are written on
// every path: success, step failure, Chromium dying, and cancellation of
// ctx (Ctrl-C). It returns an error only for problems outside the steps
// (launch, take folder); a failing step is reported in Result.Failed.
func Run(ctx context.Context, s *scripts.Script, o RunOptions) (res *Result, err error) {
	choice, err := filming(s, o)
	if err != nil {
		return nil, err
	}
	r := &run{s: s, o: o, clock: recorder.NewClock(), tabs: map[string]*Tab{}, studio: choice}
	if choice.Mode == scripts.CaptureStudio {
		r.clock = recorder.NewVirtualClock()
		r.virt = r.clock.Virtual
	}
	// Everything the run says leaves through the script's masker.
	r.logf = func(format string, args ...any) {
		if o.Logf != nil {
			o.Logf("%s", s.Mask(fmt.Sprintf(format, args...)))
		}
	}
	defer func() { err = r.masked(err) }()
	r.journal = NewJournal(r.clock)
	r.pages = newPageLog(r.clock.Now, s.Mask)
	r.dialogs.policy = s.Dialogs
	r.tl = &timeline.Timeline{
		Name: s.Mask(s.Name), Script: s.File, Tool: o.Tool, Outcome: timeline.RunError,
		Viewport: timeline.Viewport{Width: s.Browser.Width, Height: s.Browser.Height, Scale: s.Browser.Scale},
		Steps:    []timeline.Step{}, Receipts: []timeline.Receipt{}, Boundaries: []timeline.Boundary{}, Holds: []timeline.Hold{},
	}
	r.tl.Capture.Frames.Upstream = "unknown"

	if s.Serve != "" {
		srv, err := Serve(s.Serve)
		if err != nil {
			return nil, err
		}
		defer srv.Close()
		s = s.BindServe(srv.URL) // a copy: the caller's script can run again
		r.s = s
		r.tl.Served = srv.URL
		r.logf("serving %s at %s", s.Serve, srv.URL)
	}

	log, err := timeline.CreateTake(o.TakeDir)
	if err != nil {
		return nil, err
	}
	if r.jr, err = timeline.CreateJournal(o.TakeDir, r.clock.Now); err != nil {
		log.Close()
		return nil, err
	}
	r.journal.take, r.journal.mask = r.jr, s.Mask
	r.pages.jr = r.jr
	r.jr.Append(timeline.JournalRun, timeline.JournalHeader{Name: r.tl.Name, Script: s.File, Served: r.tl.Served, Tool: o.Tool,
		Viewport: r.tl.Viewport, Clock: r.clock.Info(timeline.MappingMonotonic), Started: r.clock.Now()})
	_ = r.jr.Flush() // before anything launches: a run killed from here on leaves a take
	r.saveScript()
	// From here on the timeline is written whatever happens.
	defer func() {
		r.finish()
		if cerr := log.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close frame log: %w", cerr)
		}
		r.tl.Page = r.pages.take()
		if werr := timeline.WriteTimeline(o.TakeDir, r.tl); werr != nil && err == nil {
			err = werr
		}
		if jerr := r.jr.Close(); jerr != nil && err == nil {
			err = fmt.Errorf("journal: %w", jerr)
		}
		// Last: the manifest's checksums cover everything above.
		if _, merr := timeline.WriteManifest(o.TakeDir, r.tl, timeline.ManifestInfo{Revision: o.Revision, Chromium: r.chromium}); merr != nil && err == nil {
			err = merr
		}
		if res != nil {
			res.Timeline = r.tl
		}
	}()

	if err := r.start(ctx, log); err != nil {
		r.tl.Error = r.s.Mask(err.Error())
		return nil, err
	}
	res = &Result{}
	res.Failed = r.steps(ctx)
	switch {
	case ctx.Err() != nil:
		r.tl.Outcome = timeline.RunInterrupted
		r.tl.Error = context.Cause(ctx).Error()
		return res, context.Cause(ctx)
	case res.Failed != nil:
		r.tl.Outcome = timeline.RunFailed
		if len(r.fencedTabs()) > 0 {
			r.tl.Outcome = timeline.RunUnknown
		}
		r.tl.Error = r.s.Mask(res.Failed.Error())
	default:
		r.tl.Outcome = timeline.RunOK
	}
	return res, nil
}

// start launches the browser, opens the main tab at the script's viewport,
// and starts the capture.
func (r *run) start(ctx context.Context, log *timeline.FrameLog) error {
	b := r.s.Browser
	var err error
	if r.virt != nil && r.o.Studio != "" {
		r.browser, err = Attach(ctx, r.o.Studio)
		if err == nil {
			r.studioContext, err = r.browser.newBrowserContext(ctx)
		}
	} else if endpoint := r.o.Attach; endpoint != "" || b.Attach != "" {
		if endpoint == "" {
			endpoint = b.Attach
		}
		if endpoint == scripts.AttachShared {
			return ErrNeedsHost
		}
		r.browser, err = Attach(ctx, endpoint)
	} else {
		path := b.Chromium
		if r.o.Chromium != "" {
			path = r.o.Chromium
		}
		studio := r.virt != nil
		if studio {
			path = r.studio.Shell
		}
		r.browser, err = Launch(ctx, LaunchOptions{
			Path: path, Headless: b.Headless, NoSandbox: b.NoSandbox || r.o.NoSandbox,
			Width: b.Width, Height: b.Height, Args: b.Args, Studio: studio, Scale: b.Scale,
		})
	}
	if err != nil {
		return err
	}
	for _, p := range r.browser.Swept {
		r.logf("removed %s, left by a run that is gone", p)
	}
	r.logf("chromium up (pid %d)", r.browser.Pid())
	if r.virt != nil {
		r.logf("filming in studio mode: %s, %d frames per second of virtual time", r.studio.Shell, r.studioFPS())
	}
	if r.o.OnLaunch != nil {
		r.o.OnLaunch(r.browser)
	}
	if r.o.Leases != nil && r.browser.owned {
		return errors.New("tab leases are for a shared browser: attach to one (--browser shared)")
	}
	r.popups = newPopups(r.browser, r.logf, r.s.Mask)
	pctx, stopPopups := context.WithCancel(r.browser.ctx)
	r.stopPopups = stopPopups
	if err := r.popups.listen(pctx); err != nil {
		return r.gone(fmt.Errorf("watch the browser's tabs: %w", err))
	}
	if r.o.Leases != nil {
		r.shared = newSharedTabs(*r.o.Leases, r.browser, r.s, r.logf)
		r.shared.afterOpen = r.o.afterOpenPage
	}
	tab, err := r.openTab(ctx, scripts.FirstTab)
	if err != nil {
		return err
	}
	r.current = tab
	r.log = log
	if v, err := Version(tab.ctx); err == nil {
		r.chromium = v
	}
	// The take starts with the capture's first picture (set in finish).
	return r.film(tab, "about:blank")
}

// gone wraps err with ErrBrowserGone when the browser has exited or its
// connection is lost (the browser context ended though the run was not
// interrupted). It waits briefly for the process to be seen exiting.
func (r *run) gone(err error) error {
	if r.browser == nil || err == nil {
		return err
	}
	lost := r.browser.ctx.Err() != nil
	if lost && r.browser.owned {
		select {
		case <-r.browser.Exited():
		case <-time.After(2 * time.Second):
		}
	}
	if r.browserDead() || lost {
		return fmt.Errorf("%w: %v (its last output: %s)", ErrBrowserGone, err, lastLine(r.browser.StderrTail()))
	}
	return err
}

func (r *run) browserDead() bool {
	select {
	case <-r.browser.Exited():
		return true
	default:
	}
	return false
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// finish stops the capture and cleans up the browser, filling the
// timeline. It runs on every path.
func (r *run) finish() {
	// Let go of held tabs first: the final frame and cleanup need a live
	// page.
	r.endHolds()
	now := r.clock.Now()
	if r.capture != nil {
		r.stopCapture()
	}
	if len(r.filmedResults) > 0 {
		res := recorder.Join(r.filmedResults...)
		r.tl.Start = res.Capture.Started // the take starts with its first picture
		r.tl.Capture = res.Capture
		r.tl.Boundaries = res.Boundaries
		r.tl.Clock = res.Clock
		if res.Err != nil {
			r.logf("capture ended early: %v", res.Err)
		}
		if res.Capture.Missed > 0 {
			r.logf("studio capture: the screencast failed to send the pictures of %d drawn frames (the picture before stands for each); the rest were taken as screenshots, slower", res.Capture.Missed)
		}
		if res.Forced > 0 {
			r.logf("studio capture: %d frame intervals were forced past network fetches that did not end within %v", res.Forced, recorder.FetchWait)
		}
		now = res.Capture.Ended
	} else {
		r.tl.Clock = r.clock.Info(timeline.MappingReceipt)
	}
	r.tl.End = now
	if r.stopPopups != nil {
		r.stopPopups()
		r.popups.wait()
		if r.browser != nil && !r.browser.owned {
			c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var othersLease func(string) bool
			if r.shared != nil {
				othersLease = r.shared.o.Store.Leased // a page no step named has no lease of the run
			}
			r.popups.closeOpened(c, othersLease)
			cancel()
		}
	}
	for _, t := range r.tabs {
		// A key or button a step left down is let go before the tab is.
		if closed, crashed := t.gone(); !closed && !crashed && r.refusal(t, false) == nil {
			t.keyboard.ReleaseAll(t.ctx)
			t.pointer.ReleaseAll(t.ctx)
		}
		t.cancel()
	}
	if r.browser != nil {
		c := r.browser.Close()
		c.At = r.clock.Now()
		r.tl.Cleanup = &c
	}
	r.tl.Receipts = r.journal.Receipts()
}

// journalCapture writes the capture's accounting so far to the journal:
// the captures of tabs filmed before, and the current one.
func (r *run) journalCapture() {
	st := timeline.JournalCaptureState{At: r.clock.Now(), Frames: timeline.Accounting{Upstream: "unknown"}, Mode: timeline.CaptureLive}
	if r.virt != nil {
		st.Mode = timeline.CaptureStudio
	}
	for i, res := range r.filmedResults {
		if i == 0 {
			st.Started = res.Capture.Started
		}
		st.Frames.Add(res.Capture.Frames)
	}
	if r.capture != nil {
		snap := r.capture.Snapshot()
		if len(r.filmedResults) == 0 {
			st.Started = snap.Started
		}
		st.Tab = r.filmed.Name
		st.Frames.Add(snap.Accounting())
	}
	r.jr.Append(timeline.JournalCapture, st)
}

// masked returns err with the run's secrets masked in its text; it still
// unwraps to err, so errors.Is and errors.As see through it.
func (r *run) masked(err error) error {
	if err == nil {
		return nil
	}
	if m := r.s.Mask(err.Error()); m != err.Error() {
		return &maskedError{msg: m, err: err}
	}
	return err
}

// unadvised returns err without what is wrong with a refused selector that
// holds a secret: the advice could quote part of the secret, which masking
// whole values would not hide. It still unwraps to err.
func (r *run) unadvised(err error) error {
	var sr *selectorRefused
	if !errors.As(err, &sr) || sr.why == "" || r.s.Mask(sr.sel) == sr.sel {
		return err
	}
	plain := *sr
	plain.why = ""
	msg := err.Error()
	if !strings.Contains(msg, sr.Error()) { // a wrapper changed its words: say only the refusal
		return &maskedError{msg: plain.Error(), err: err}
	}
	return &maskedError{msg: strings.Replace(msg, sr.Error(), plain.Error(), 1), err: err}
}

// maskedError is an error whose text had secrets masked (or, from
// unadvised, what could show part of one taken out).
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// saveScript keeps the script with secrets masked in the take.
func (r *run) saveScript() {
	b, err := os.ReadFile(r.s.File)
	if err != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(r.o.TakeDir, timeline.ScriptFile), []byte(r.s.Mask(string(b))), 0o644)
}

// steps runs the script's steps in order and returns the first failure of
// a non-optional step.
func (r *run) steps(ctx context.Context) *StepFailure {
	for i, st := range r.s.Steps {
		if ctx.Err() != nil {
			return nil
		}
		if err := r.takeUnwritable(); err != nil {
			// Nothing more would be kept: the run stops here, with the
			// take as far as it was written.
			return &StepFailure{Index: i, Pos: st.Pos, Kind: st.Kind, Label: r.s.Mask(st.Label), Outcome: timeline.OutcomeUndispatched, Err: err}
		}
		if r.o.beforeStep != nil {
			r.o.beforeStep(i, r)
		}
		if r.o.Progress != nil {
			var snap recorder.Snapshot
			if r.capture != nil {
				snap = r.capture.Snapshot()
			}
			r.o.Progress(Progress{Step: i + 1, Steps: len(r.s.Steps), Kind: st.Kind, Label: r.s.Mask(st.Label), Capture: snap})
		}
		rec, err := r.step(ctx, i, st)
		r.tl.Steps = append(r.tl.Steps, rec)
		if err == nil {
			r.rereadShapes(ctx)
			if st.Traits.ChangesPage && !nextChangesPage(r.s.Steps, i) && r.capture != nil && r.filmed != nil && rec.Tab == r.filmed.Name && r.refusal(r.filmed, false) == nil {
				// The screencast may miss the last change of a burst:
				// before a still moment, take the settled page as a frame
				// of its own (a screenshot takes a while, so not
				// between steps that change the page anyway).
				if serr := r.capture.Settle(rec.Start); serr != nil {
					r.logf("step %d (%s): settle frame: %v", i+1, st.Kind, serr)
				}
			}
			continue
		}
		var fe *FencedError
		if st.Optional && !errors.Is(err, ErrBrowserGone) && !errors.As(err, &fe) && ctx.Err() == nil {
			r.logf("step %d (%s) failed, optional: %v", i+1, st.Kind, err)
			continue
		}
		return &StepFailure{Index: i, Pos: st.Pos, Kind: st.Kind, Label: r.s.Mask(st.Label), Outcome: rec.Outcome, Err: r.masked(err)}
	}
	return nil
}

// takeUnwritable is why the take can no longer be written (a frame or the
// journal failed to write: a full disk), nil while it can. A capture that
// ended for another reason (its tab went away) is left to the steps.
func (r *run) takeUnwritable() error {
	if err := r.jr.Err(); err != nil {
		return fmt.Errorf("%w: journal: %w (the take keeps what was written before)", recorder.ErrUnwritable, err)
	}
	if r.capture == nil {
		return nil
	}
	if err := r.capture.EndErr(); errors.Is(err, recorder.ErrUnwritable) {
		return fmt.Errorf("%w (the take keeps the frames written before)", err)
	}
	return nil
}

// journalStepSoFar writes what a running step has found so far (the box
// of its target) as its start record again, masked as the step's end record
// is: a render made while capturing zooms toward the box from the step's
// start, and need not wait for its end (compositor.StartEarly).
func (r *run) journalStepSoFar(rec timeline.Step) {
	r.maskStep(&rec)
	r.jr.Append(timeline.JournalStepStart, rec)
}

// maskStep masks the script's secrets in the text fields of a step record,
// which executors fill with what they acted on.
func (r *run) maskStep(rec *timeline.Step) {
	rec.Target, rec.Label, rec.Error, rec.Text = r.s.Mask(rec.Target), r.s.Mask(rec.Label), r.s.Mask(rec.Error), r.s.Mask(rec.Text)
}

// shapeReadTimeout bounds a read of the cursor under a pointer: a page
// not ready to answer is asked again after the next step.
const shapeReadTimeout = 500 * time.Millisecond

// rereadShapes reads the cursor under each tab's pointer again where the
// tab showed a new document during the step (Pointer.rereadShape); a held
// or fenced tab is not asked.
func (r *run) rereadShapes(ctx context.Context) {
	for _, t := range r.tabs {
		if closed, crashed := t.gone(); t.pointer == nil || closed || crashed || t.events.isPaused() || r.refusal(t, false) != nil {
			continue
		}
		c, cancel := context.WithTimeout(ctx, shapeReadTimeout)
		cc, stop := onTab(c, t.ctx)
		t.pointer.rereadShape(cc, t.mainDoc())
		stop()
		cancel()
	}
}

// nextChangesPage reports whether the step after i changes the page too.
func nextChangesPage(steps []scripts.Step, i int) bool {
	return i+1 < len(steps) && steps[i+1].Traits.ChangesPage
}

// step runs one step with its deadline and retries, and returns its record.
func (r *run) step(ctx context.Context, i int, st scripts.Step) (timeline.Step, error) {
	r.journal.setStep(i)
	rec := timeline.Step{Index: i, File: st.Pos.File, Line: st.Pos.Line, Col: st.Pos.Col, Kind: st.Kind,
		Traits: timeline.Traits(st.Traits), Label: r.s.Mask(st.Label), Optional: st.Optional, Hidden: st.Hidden, Start: r.clock.Now()}
	r.jr.Append(timeline.JournalStepStart, rec)
	tab := r.current
	if st.Tab != "" {
		if t, ok := r.tabs[st.Tab]; ok {
			tab = t
		}
	}
	if tab != nil {
		rec.Tab = tab.Name
	}
	if _, tabStep := st.Action.(scripts.Tab); tab != nil && tab != r.current && !tabStep {
		// A step in another tab has that tab in front for the step.
		if err := r.toFront(ctx, tab); err != nil {
			r.logf("%v", err) // the step says what a page behind does to it
		}
		defer func() {
			if err := r.toFront(ctx, r.current); err != nil {
				r.logf("%v", err)
			}
		}()
	}
	timeout, why := st.Timeout, fmt.Sprintf("timeout %v", st.Timeout)
	if timeout <= 0 {
		// A step lasts as long as it says (a pause, the keys of a typing
		// step, a scroll): the default deadline runs from its end.
		own := scripts.OwnTime(st.Action, r.s.Defaults)
		timeout, why = r.s.Defaults.Timeout+own, fmt.Sprintf("timeout %v", r.s.Defaults.Timeout)
		if own > 0 {
			why += fmt.Sprintf(" after the %v the step takes itself", own)
		}
	}
	cause := errors.New(why)
	var err error
	var tm *timing
	for attempt := 0; ; attempt++ {
		// Each attempt is metered afresh. Only live: in studio capture
		// time waits for the page, so a part takes the frames its inputs
		// need, which is the footage's own time.
		if r.clock.Virtual == nil {
			tm = &timing{}
		}
		err = r.unadvised(r.attempt(ctx, tab, st, timeout, cause, &rec, tm))
		var se *StepError
		if err == nil || attempt >= st.Retries || !errors.As(err, &se) || se.Outcome != timeline.OutcomeUndispatched || errors.Is(err, errTabClosed) || ctx.Err() != nil {
			break
		}
		r.logf("step %d (%s): retrying after: %v", i+1, st.Kind, err)
	}
	rec.End = r.clock.Now()
	rec.Outcome = timeline.OutcomeOK
	if err != nil {
		err = r.gone(err)
		rec.Outcome = outcomeOf(err)
		rec.Error = err.Error()
	} else if rec.Late = tm.late(); rec.Late != nil {
		r.logf("step %d (%s) ran late: %s for %s of its own time; %s", i+1, st.Kind,
			roundMs(rec.Late.Took), roundMs(rec.Late.Planned), rec.Late.Why)
	}
	rec.Masks = r.maskBoxes(ctx)
	// The step's record is made here, and masked here.
	r.maskStep(&rec)
	r.jr.Append(timeline.JournalStep, rec)
	r.journalCapture()
	_ = r.jr.Flush() // a step boundary: what happened so far is on disk
	return rec, err
}

// attempt runs a step once under its deadline (timeout, ending with why),
// metered by tm (nil: not metered). The step's context is a child of the
// tab's (never the context that allocated the browser), also cancelled
// when the run is.
func (r *run) attempt(ctx context.Context, tab *Tab, st scripts.Step, timeout time.Duration, why error, rec *timeline.Step, tm *timing) error {
	if tab == nil {
		return undispatched(errors.New("no tab"))
	}
	if err := r.leased(tab, st); err != nil { // the lease check: a refused step sends nothing
		return undispatched(err)
	}
	run, cancelRun := context.WithCancelCause(tab.ctx)
	defer cancelRun(nil)
	stop := context.AfterFunc(ctx, func() { cancelRun(context.Cause(ctx)) }) // an interrupt says why
	defer stop()
	page := needsPage(st.Action)
	if page && tab.closed() {
		return undispatched(closedTab(tab))
	}
	sctx, cancel := withStepTimeout(withTiming(run, tm), timeout, why)
	defer cancel()
	err := r.doneOnClose(tab, causeOf(sctx, r.exec(sctx, tab, st, rec)), rec.Index)
	if err != nil && page && !errors.Is(err, errTabClosed) && tab.closed() {
		// Its page closed while the step waited on it: said plainly,
		// with what the step saw.
		err = &StepError{Outcome: outcomeOf(err), Err: fmt.Errorf("%w (the step: %v)", closedTab(tab), err)}
	}
	return err
}

// needsPage says whether a step acts on its tab's page (a step that does
// not: a pause, a caption, a tab step, a hold or film step naming a tab).
func needsPage(a scripts.Action) bool {
	switch a := a.(type) {
	case scripts.Pause, scripts.Chapter, scripts.Caption, scripts.Cursor, scripts.Hold, scripts.Resume, scripts.Film, scripts.Tab, scripts.Dialog:
		return false
	case scripts.Zoom:
		return a.Target != nil // a zoom toward a region or out records only
	}
	return true
}

// errTabClosed is in the error of a step in a tab whose page closed: no
// retry can pass.
var errTabClosed = errors.New("act in an open tab first (tab: NAME)")

// closedTab is the error of a step in a tab whose page closed.
func closedTab(t *Tab) error {
	return fmt.Errorf("tab %q is closed: its page closed (a window that answers its opener closes itself); %w", t.Name, errTabClosed)
}

// doneOnClose is a step's error err once the step ended: nil when the
// page closed in answer to the step's last input (a sign-in window closes
// itself as its Continue button is released, and the browser may say so
// before it answers the release), as the page went, the browser on. The
// steps after act in another tab (tab: NAME); one that acts in this tab
// fails, said plainly.
func (r *run) doneOnClose(tab *Tab, err error, step int) error {
	if !closeEndsStep(err, func() bool { return r.journal.sentIn(step) }, func() bool { return r.pageClosed(tab) }) {
		return err
	}
	r.logf("tab %s: its page closed in answer to the step's last input", tab.Name)
	return nil
}

// closeEndsStep decides doneOnClose: err is a page's close met by the
// step's last input, the step sent an input (sent: a last input never
// sent, the page gone before the step began, is no answer to the step),
// and the page is gone while the browser answers (closed). sent and
// closed are asked only when needed, in that order. Pure but for them.
func closeEndsStep(err error, sent, closed func() bool) bool {
	var pc *pageClosedError
	return err != nil && errors.As(err, &pc) && pc.last && sent() && closed()
}

// leased is the lease check of a step against a shared browser: every tab
// the step acts on (its own, and the tab a hold, resume, film or tab
// switch or close names) must still be the run's, and each use refreshes its lease.
func (r *run) leased(tab *Tab, st scripts.Step) error {
	names := []string{tab.Name}
	switch a := st.Action.(type) {
	case scripts.Hold:
		names = append(names, a.Tab)
	case scripts.Resume:
		names = append(names, a.Tab)
	case scripts.Film:
		names = append(names, a.Tab)
	case scripts.Tab:
		if a.Op != scripts.TabOpen && a.Op != scripts.TabPopup {
			names = append(names, a.Name)
		}
	}
	for _, name := range names {
		if err := r.leasedTab(name); err != nil {
			return err
		}
	}
	return nil
}

// leasedTab checks that the run still holds the tab name (nil when the
// browser is not shared, or the tab is not one the run leased).
func (r *run) leasedTab(name string) error {
	if r.shared == nil {
		return nil
	}
	url := ""
	if t := r.tabs[name]; t != nil {
		url = t.events.address()
	}
	return r.shared.use(name, url)
}
