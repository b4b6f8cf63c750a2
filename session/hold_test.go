package session

import (
	"context"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// runHolds runs steps against testdata/site with the test switches of o,
// and returns the result and the take's folder.
func runHolds(t *testing.T, header, steps string, o RunOptions) (*Result, string) {
	t.Helper()
	testenv.Need(t, "chromium")
	if header == studioHeader {
		testenv.Need(t, shellName)
	}
	dir := t.TempDir()
	site, _ := filepath.Abs("testdata/site")
	// A small viewport: what holds are about is time, and the page fits.
	s := loadScript(t, "name: holds\nserve: "+site+"\ndefaults: {timeout: 60s}\n"+header+"steps:\n"+steps)
	s.Browser.Width, s.Browser.Height = 640, 360
	s.Browser.NoSandbox = testenv.NoSandbox()
	if o.headlessHandoff {
		s.Browser.Headless = true // the script says headed; a second client plays the person
	}
	o.TakeDir = filepath.Join(dir, "take")
	o.Logf = t.Logf
	// Live runs without injected faults or hooks attach to the package's
	// live browser; the others own theirs (they check its cleanup). Studio
	// runs own theirs too: on the package's studio browser, a studio hold
	// run now and then lost its tab mid-run ("chromium is gone: context
	// canceled") after the hold runs before it.
	if header == "" && !o.headlessHandoff && o.fault == nil && o.beforeStep == nil {
		o.Attach = liveEndpoint(t)
	}
	res, err := Run(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	return res, o.TakeDir
}

// studioHeader films a hold test in studio mode. inModes runs a hold test
// once filmed live and once in studio mode, with the header of each.
const studioHeader = "browser: {capture: studio}\n"

func inModes(t *testing.T, test func(t *testing.T, header string)) {
	for _, m := range []struct{ name, header string }{{"live", ""}, {"studio", studioHeader}} {
		t.Run(m.name, func(t *testing.T) { test(t, m.header) })
	}
}

// pageHoldState is hold.html's holdState(): when each counter ticked
// (wall clock, ms) and the CSS animations' current times.
type pageHoldState struct {
	RAF, IV, TO []float64
	Clicks      int
	Anims       []struct {
		Name string  `json:"name"`
		T    float64 `json:"t"`
	}
	Now float64
}

// readHoldState reads hold.html's state in the tab called name; the tab
// must not be held.
func readHoldState(t *testing.T, r *run, name string) pageHoldState {
	t.Helper()
	c, cancel := context.WithTimeout(r.tabs[name].ctx, 10*time.Second)
	defer cancel()
	st, err := chromedp.Run(c, chromedp.Evaluate[pageHoldState](`holdState()`))
	if err != nil {
		t.Fatalf("read the page's state: %v", err)
	}
	return st
}

// readAt is one reading of hold.html's state: before step Step, in tab
// Tab, into Into.
type readAt struct {
	Step int
	Tab  string
	Into *pageHoldState
}

// readsBefore is a beforeStep that makes the readings.
func readsBefore(t *testing.T, reads ...readAt) func(int, *run) {
	return func(i int, r *run) {
		for _, rd := range reads {
			if rd.Step == i {
				*rd.Into = readHoldState(t, r, rd.Tab)
			}
		}
	}
}

// aheadOfReceipt is how far a frame's source time may lie ahead of the
// moment it was produced: Chromium stamps when it expects the frame to be
// shown, up to a few frames on.
var aheadOfReceipt = timeline.FromDuration(50 * time.Millisecond)

func wallMs(tm time.Time) float64 { return float64(tm.UnixMicro()) / 1000 }

// ticksIn counts the ticks in (from, to), wall ms.
func ticksIn(ts []float64, from, to float64) int {
	n := 0
	for _, x := range ts {
		if x > from && x < to {
			n++
		}
	}
	return n
}

func anim(t *testing.T, st pageHoldState, name string) float64 {
	t.Helper()
	for _, a := range st.Anims {
		if a.Name == name {
			return a.T
		}
	}
	t.Fatalf("no animation %s in %+v", name, st.Anims)
	return 0
}

// During a 2 s hold of the stage, its requestAnimationFrame counter,
// setInterval counter, setTimeout chain, compositor-only (transform) and
// main-thread (left) CSS animations all stop, and no frame of it arrives;
// after the resume all run again, the animations from where they stopped.
// Meanwhile a scout tab works normally, and input to the held stage is
// refused before it is sent (the page saw nothing).
func TestHoldFreezesStageWhileScoutWorks(t *testing.T) {
	t.Parallel() // its own browser and take; mostly waiting out its pauses
	var before, after, later pageHoldState
	var held, resumed time.Time
	res, take := runHolds(t, "", `  - goto: ${serve.url}/hold.html
  - tab: {open: scout, url: "${serve.url}/hold.html"}
  - film: stage
  - pause: 1s
  - hold: stage
  - pause: 2s
  - click: "#b"
    tab: stage
    optional: true
  - eval: "window.mark = ticks.raf.length + ticks.iv.length"
    tab: scout
  - click: "#b"
    tab: scout
  - wait: {js: "ticks.raf.length + ticks.iv.length > window.mark + 20"}
    tab: scout
  - resume: stage
  - pause: 1s
  - expect: {text: "clicks 0", in: {css: p, visible: true}}
    tab: stage
`, RunOptions{resumeWithJump: os.Getenv("CLAPPER_TEST_RESUME_WITHOUT_FRAME") != "", beforeStep: func(i int, r *run) {
		switch i {
		case 4:
			before = readHoldState(t, r, "main")
		case 5:
			held = time.Now()
		case 10:
			resumed = time.Now()
		case 11:
			after = readHoldState(t, r, "main")
		case 12:
			later = readHoldState(t, r, "main")
		}
	}})
	mustPass(t, res)
	tl := res.Timeline
	if st := tl.Steps[6]; st.Outcome != timeline.OutcomeUndispatched || !strings.Contains(st.Error, "held") {
		t.Errorf("click on the held stage: %s %q, want undispatched, held", st.Outcome, st.Error)
	}
	if after.Clicks != 0 {
		t.Errorf("the held stage saw %d clicks", after.Clicks)
	}
	if len(tl.Holds) != 1 || tl.Holds[0].Receipt == "" || tl.Holds[0].Ended != timeline.HoldResumed {
		t.Fatalf("holds: %+v", tl.Holds)
	}
	h := tl.Holds[0]
	if tl.Steps[4].Text != h.Receipt || tl.Steps[10].Text != h.Receipt {
		t.Errorf("hold step says receipt %q, resume %q; the hold's is %q", tl.Steps[4].Text, tl.Steps[10].Text, h.Receipt)
	}
	// The hold returns once the page has paused: nothing ticks after it
	// until the resume. Date.now() counts whole milliseconds: a tick just
	// after the resume began may read as the millisecond it began in.
	from, to := wallMs(held)+20, wallMs(resumed)-1
	if to-from < 1500 {
		t.Fatalf("the hold lasted %.0f ms: the test needs it longer", to-from)
	}
	for name, ts := range map[string][]float64{"rAF": after.RAF, "setInterval": after.IV, "setTimeout": after.TO} {
		if n := ticksIn(ts, from, to); n != 0 {
			var at []float64
			for _, x := range ts {
				if x > from && x < to {
					at = append(at, x-wallMs(held))
				}
			}
			t.Errorf("%s ticked %d times during the hold, at %v ms after it began (it lasted %.0f ms)", name, n, at, to-wallMs(held))
		}
		if ticksIn(ts, 0, from) == 0 {
			t.Errorf("%s never ticked before the hold", name)
		}
	}
	for name, ts := range map[string][]float64{"rAF": later.RAF, "setInterval": later.IV, "setTimeout": later.TO} {
		if n := ticksIn(ts, to, wallMs(time.Now())); n < 5 {
			t.Errorf("%s ticked %d times after the resume, want it running again", name, n)
		}
	}
	outside := (wallMs(held) - before.Now) + (after.Now - wallMs(resumed))
	for _, name := range []string{"slide-t", "slide-l"} {
		moved := anim(t, after, name) - anim(t, before, name)
		t.Logf("%s moved %.0f ms of animation across the hold; %.0f ms passed outside it (hold %.0f ms)", name, moved, outside, to-from)
		// Had it run through the hold it would have moved 2 s more.
		if moved > outside+500 {
			t.Errorf("%s moved %.0f ms across the hold, more than the %.0f ms outside it: it ran on or jumped", name, moved, outside)
		}
		ran, wall := anim(t, later, name)-anim(t, after, name), later.Now-after.Now
		t.Logf("%s then ran %.0f ms of animation in %.0f ms", name, ran, wall)
		if ran <= 0 {
			t.Errorf("%s does not run after the resume", name)
		}
		// A jump would show as the hold's length at the first frame after
		// the resume (Blink's stale animation clock).
		if ran > wall+500 {
			t.Errorf("%s jumped after the resume: %.0f ms of animation in %.0f ms", name, ran, wall)
		}
	}
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatal(err)
	}
	// Filming: the stage throughout. The scout is opened right before the
	// film step pins the stage, so the video never cuts to it for a frame
	// and back; from the film step on the stage is filmed whatever tab
	// the steps act on. Every boundary names its tab.
	var filmed []string
	for _, b := range tl.Boundaries {
		if b.Tab == "" {
			t.Errorf("boundary %+v names no tab", b)
		}
		if len(filmed) == 0 || filmed[len(filmed)-1] != b.Tab {
			filmed = append(filmed, b.Tab)
		}
	}
	if strings.Join(filmed, ",") != "main" {
		t.Errorf("filmed %v, want only main", filmed)
	}
	var inHold, stage int
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Tab == "scout" {
			t.Errorf("frame %d of the scout, which was never filmed", fr.Seq)
		}
		if fr.Tab == "main" {
			stage++
			// Produced after the page paused and before the resume step
			// started (the resume itself paints). Frames produced before
			// the pause may still arrive after it: Chromium encodes ahead.
			if fr.Source > h.Start+aheadOfReceipt && fr.Source < tl.Steps[10].Start {
				inHold++
				t.Logf("frame %d produced %.0f ms into the hold (resume step at %.0f ms, hold end %.0f ms)", fr.Seq,
					(fr.Source-h.Start).Seconds()*1000, (tl.Steps[10].Start-h.Start).Seconds()*1000, (h.End-h.Start).Seconds()*1000)
			}
		}
	}
	if inHold != 0 || stage == 0 {
		t.Errorf("%d frames of the stage arrived during the hold (of %d)", inHold, stage)
	}
}

// A resume after the held tab navigated is refused: the page the hold
// froze is gone. The run fails, and records the hold as ended by the run.
func TestResumeAfterNavigationRefused(t *testing.T) { inModes(t, testResumeAfterNavigationRefused) }

func testResumeAfterNavigationRefused(t *testing.T, header string) {
	res, _ := runHolds(t, header, `  - goto: ${serve.url}/hold.html
  - hold: stage
  - pause: 300ms
  - resume: stage
`, RunOptions{beforeStep: func(i int, r *run) {
		if i != 3 {
			return
		}
		// Another client navigates the held tab, as a person could.
		tab := r.tabs["main"]
		c, cancel := context.WithTimeout(tab.ctx, 10*time.Second)
		defer cancel()
		if _, err := chromedp.Call(c, page.Navigate, page.NavigateParams{URL: r.tl.Served + "/second.html"}); err != nil {
			t.Errorf("navigate the held tab: %v", err)
		}
		if err := poll(c, "the navigation", 20*time.Millisecond, func(context.Context) (bool, string, error) {
			return tab.events.navigations() > 1, "", nil
		}); err != nil {
			t.Error(err)
		}
	}})
	if res.Failed == nil || res.Failed.Index != 3 || res.Failed.Outcome != timeline.OutcomeUndispatched || !strings.Contains(res.Failed.Error(), "navigated") {
		t.Fatalf("failure %v, want the resume refused as stale (navigated), undispatched", res.Failed)
	}
	if h := res.Timeline.Holds; len(h) != 1 || h[0].Ended != timeline.HoldRun || h[0].End < h[0].Start {
		t.Errorf("holds: %+v", h)
	}
	if res.Timeline.Cleanup == nil || res.Timeline.Cleanup.Profile != "removed" {
		t.Errorf("cleanup: %+v", res.Timeline.Cleanup)
	}
}

// A bounded hold resumes itself at its bound and records it; a later
// resume finds nothing to do; a second hold of a held tab is refused.
func TestBoundedHoldResumesItself(t *testing.T) {
	t.Parallel() // its own browser and take; mostly waiting out its pauses
	inModes(t, testBoundedHoldResumesItself)
}

func testBoundedHoldResumesItself(t *testing.T, header string) {
	res, _ := runHolds(t, header, `  - goto: ${serve.url}/hold.html
  - hold: {tab: stage, max: 1s}
  - hold: stage
    optional: true
  - pause: 2s
  - expect: {text: "clicks 0", in: {css: p, visible: true}}
  - resume: stage
`, RunOptions{})
	mustPass(t, res)
	tl := res.Timeline
	if st := tl.Steps[2]; st.Outcome != timeline.OutcomeUndispatched || !strings.Contains(st.Error, "already held") {
		t.Errorf("second hold: %s %q", st.Outcome, st.Error)
	}
	if len(tl.Holds) != 1 {
		t.Fatalf("holds: %+v", tl.Holds)
	}
	h := tl.Holds[0]
	d := time.Duration(h.End - h.Start)
	// Ended by its bound, not before it, and before the resume step came
	// (a loaded machine may take a while to let the page go: no wall-clock
	// upper limit).
	if h.Ended != timeline.HoldBound || h.Max != time.Second || d < time.Second || h.End > tl.Steps[5].Start {
		t.Errorf("hold %+v lasted %v (resume step at %v), want ended at its bound of 1s", h, d, tl.Steps[5].Start)
	}
	if !strings.Contains(tl.Steps[5].Text, "bound") {
		t.Errorf("resume after the bound: %+v", tl.Steps[5])
	}
}

// A run that ends with a tab held records the hold as ended by the run.
func TestHoldEndedByRun(t *testing.T) { inModes(t, testHoldEndedByRun) }

func testHoldEndedByRun(t *testing.T, header string) {
	res, _ := runHolds(t, header, `  - goto: ${serve.url}/hold.html
  - hold: {tab: stage, max: 1m}
  - pause: 200ms
`, RunOptions{})
	mustPass(t, res)
	if h := res.Timeline.Holds; len(h) != 1 || h[0].Ended != timeline.HoldRun {
		t.Errorf("holds: %+v", h)
	}
}

// A hold or resume that fails half way fences its tab: the run fails with
// outcome unknown naming the tab (an optional step too), and cleanup
// still happens.
func TestFencedTabFailsRun(t *testing.T) { inModes(t, testFencedTabFailsRun) }

func testFencedTabFailsRun(t *testing.T, header string) {
	for _, c := range []struct {
		name  string
		point faultPoint
		step  int
	}{{"freeze", faultFreeze, 1}, {"paused", faultPaused, 1}, {"resume", faultAck, 3}} {
		if c.point == faultPaused && header == studioHeader {
			continue // a studio hold holds the page's clock: no debugger pause
		}
		t.Run(c.name, func(t *testing.T) {
			res, _ := runHolds(t, header, `  - goto: ${serve.url}/hold.html
  - hold: stage
    optional: true
  - pause: 200ms
  - resume: stage
    optional: true
  - pause: 200ms
`, RunOptions{fault: func(p faultPoint) error {
				if p == c.point {
					return errors.New("injected: no answer")
				}
				return nil
			}})
			f := res.Failed
			var fe *FencedError
			if f == nil || f.Index != c.step || f.Outcome != timeline.OutcomeUnknown || !errors.As(f.Err, &fe) || fe.Tab != "main" || !strings.Contains(f.Error(), `tab "main"`) {
				t.Fatalf("failure %v, want step %d unknown, fenced tab main", f, c.step+1)
			}
			tl := res.Timeline
			if tl.Outcome != timeline.RunUnknown || !strings.Contains(tl.Error, `tab "main" is fenced`) {
				t.Errorf("run outcome %s %q", tl.Outcome, tl.Error)
			}
			if len(tl.Holds) != 1 || tl.Holds[0].Ended != timeline.HoldFenced || tl.Holds[0].Error == "" {
				t.Errorf("holds: %+v", tl.Holds)
			}
			if tl.Cleanup == nil || tl.Cleanup.Profile != "removed" {
				t.Errorf("cleanup: %+v", tl.Cleanup)
			}
		})
	}
}

// Filming may move away from a held tab and back to it: no picture is
// taken of a held page (it would wait for the resume), what frames come
// show the frozen picture, and the page moves again once resumed.
func TestFilmAroundAHeldTab(t *testing.T) {
	t.Parallel() // its own browser and take; mostly waiting out its pauses
	inModes(t, testFilmAroundAHeldTab)
}

func testFilmAroundAHeldTab(t *testing.T, header string) {
	res, take := runHolds(t, header, `  - goto: ${serve.url}/hold.html
  - hold: stage
  - tab: {open: scout, url: "${serve.url}/second.html"}
  - tab: {switch: stage}
  - pause: 500ms
  - resume: stage
  - pause: 1s
`, RunOptions{})
	mustPass(t, res)
	h := res.Timeline.Holds[0]
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatal(err)
	}
	// Starting a screencast sends the picture the page shows, and a page
	// moved to the background may be drawn once more: such frames show the
	// frozen picture, never the page moving on.
	var before, frozen image.Image
	after, held := 0, 0
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Tab != "main" {
			continue
		}
		switch {
		case fr.Source <= h.Start+aheadOfReceipt:
			// Stamped up to a few frames ahead, a frame produced before
			// the page paused may carry a time just past the hold's
			// start (as in TestHoldFreezesStageWhileScoutWorks).
			before = readFrame(t, take, fr)
		case fr.Source < res.Timeline.Steps[5].Start: // the resume step paints as it lets go
			held++
			img := readFrame(t, take, fr)
			if frozen == nil {
				// The last state painted before the pause may not have
				// been sent before it: at most a frame's change (a digit).
				frozen = img
				if n := differing(t, before, img); n > 400 {
					t.Errorf("frame %d of the held stage, %.0f ms into the hold, differs from the last before the hold in %d pixels", fr.Seq, (fr.Source-h.Start).Seconds()*1000, n)
				}
			}
			if n := differing(t, frozen, img); n > 20 {
				t.Errorf("frame %d of the held stage, %.0f ms into the hold, differs from the frozen picture in %d pixels", fr.Seq, (fr.Source-h.Start).Seconds()*1000, n)
			}
		default:
			after++
		}
	}
	t.Logf("%d frames of the held stage during the hold, all the frozen picture", held)
	if after == 0 {
		t.Error("no frame of the stage after its resume")
	}
}

// readFrame decodes a frame of the take.
func readFrame(t *testing.T, take string, fr timeline.Frame) image.Image {
	t.Helper()
	f, err := os.Open(filepath.Join(take, fr.File))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		t.Fatalf("frame %d: %v", fr.Seq, err)
	}
	return img
}

// differing counts the pixels where a and b differ by more than JPEG's
// noise in some channel.
func differing(t *testing.T, a, b image.Image) int {
	t.Helper()
	if a == nil || a.Bounds() != b.Bounds() {
		t.Fatalf("frames to compare: %v and %v", a, b.Bounds())
	}
	n := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if absDiff(r1, r2) > 40<<8 || absDiff(g1, g2) > 40<<8 || absDiff(b1, b2) > 40<<8 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
