package viewer_test

// This test drives the report in a real Chromium over CDP. Like
// internal/benchpage's page test, it imports chromedp in a _test file
// only: the package itself speaks no CDP (arch_test checks the imports of
// the package, not of its tests), and the browser comes from session.

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
	"github.com/clapper-dev/clapper/viewer"
)

const keptTake = "../timeline/testdata/v2"

// watched is what the page did that a report must never do.
type watched struct {
	mu       sync.Mutex
	problems []string
	requests []string
}

func (w *watched) add(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// watch records console errors and warnings, uncaught exceptions, log
// errors (CSP violations among them), dialogs and every request.
func watch(tab context.Context) *watched {
	w := &watched{}
	_ = chromedp.Listen(tab, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				w.add("console %s: %v", ev.Type, ev.Args)
			}
		case *runtime.EventExceptionThrown:
			w.add("exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				w.add("log %s: %s", ev.Entry.Level, ev.Entry.Text)
			}
		case *page.EventJavascriptDialogOpening:
			w.add("dialog opened: %s %q", ev.Type, ev.Message)
			// Dismissed from another goroutine: fn must not run commands.
			go chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{})
		case *network.EventRequestWillBeSent:
			w.mu.Lock()
			w.requests = append(w.requests, ev.Request.URL)
			w.mu.Unlock()
		}
	})
	return w
}

func openTab(t *testing.T) (context.Context, *watched) {
	t.Helper()
	tab, closeTab, err := chromium.Shared(t).NewTab(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeTab)
	w := watch(tab)
	for _, err := range []error{
		call(tab, network.Enable, network.EnableParams{}), call(tab, log.Enable, cdp.Empty{}),
		call(tab, runtime.Enable, cdp.Empty{}), call(tab, page.Enable, page.EnableParams{}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return tab, w
}

func call[P, R any](tab context.Context, cmd cdp.Command[P, R], p P) error {
	_, err := chromedp.Call(tab, cmd, p)
	return err
}

func fileURL(p string) string {
	abs, _ := filepath.Abs(p)
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// load opens the report at fragment and waits for its script to finish.
func load(t *testing.T, tab context.Context, u string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank"), chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatalf("load %s: %v", u, err)
	}
}

func eval[T any](t *testing.T, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor waits until js is true in the page.
func waitFor(t *testing.T, tab context.Context, js string) {
	t.Helper()
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("waiting for %s: %v (body %v)", js, err, eval[map[string]string](t, tab, `({...document.body.dataset})`))
	}
}

func msOf(tl *timeline.Timeline, at timeline.Time) float64 { return float64(at-tl.Start) / 1e6 }

func stepStart(tl *timeline.Timeline, n int) int64 {
	return int64(msOf(tl, tl.Steps[n-1].Start) + 0.5)
}

// frameAt is the sequence number of the frame the player shows at ms, and
// of the one after it.
func frameAt(t *testing.T, tk *timeline.Take, ms float64) (string, string) {
	t.Helper()
	cur, next := "", ""
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if msOf(tk.Timeline, fr.Source) <= ms || cur == "" {
			cur = fmt.Sprint(fr.Seq)
		} else if next == "" {
			next = fmt.Sprint(fr.Seq)
		}
	}
	return cur, next
}

// The report of the kept take (a page titled <img src=x onerror=alert(1)>,
// a javascript:-looking address, a failing expectation) works in Chromium
// from file://: steps listed, a click on a step seeks the player there,
// #step=N and #t=S open there, arrow keys step frames, the failure button
// shows the failing frame, and the page's text stays text: no dialog, no
// console error, no request beyond the report itself.
func TestReportInChromium(t *testing.T) {
	testenv.Need(t, "chromium")
	tk, err := timeline.Open(keptTake)
	if err != nil {
		t.Fatal(err)
	}
	tl := tk.Timeline
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	res, err := viewer.Write(tk, out, viewer.Options{Verified: "verified"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != viewer.ModeEmbedded || res.Frames != 12 {
		t.Fatalf("result %+v", res)
	}
	tab, w := openTab(t)
	u := fileURL(out)
	load(t, tab, u)

	if n := eval[int](t, tab, `document.querySelectorAll("#steps li").length`); n != len(tl.Steps) {
		t.Errorf("%d steps listed, want %d", n, len(tl.Steps))
	}
	if got := eval[string](t, tab, `document.getElementById("name").textContent`); got != tl.Name {
		t.Errorf("title shown as %q, want the text %q", got, tl.Name)
	}
	if n := eval[int](t, tab, `[...document.images].filter(i => i.getAttribute("src") === "x").length + document.querySelectorAll("script:not([id]), [onerror], a[href], iframe").length - 1`); n != 0 {
		t.Errorf("%d elements came from the page's text", n)
	}
	body := eval[string](t, tab, `document.body.innerText`)
	for _, want := range []string{"next.html?javascript:alert(2)", "<script>alert(4)</script> press", "Second <i>document</i>", "Step 7 failed", "take.yaml:16:5",
		"a console error with <b>markup</b>", "uncaught: Error: boom <u>uncaught</u>", "missing.json → 404", "near it: "} {
		if !strings.Contains(body, want) {
			t.Errorf("the report does not show %q as text", want)
		}
	}
	// The page's errors are on their lane, each a mark that seeks.
	if n := eval[int](t, tab, `document.querySelectorAll("#lanes .mark.err").length`); n != timeline.SummarizePage(tl.Page, tl.Start).ConsoleErrors+timeline.SummarizePage(tl.Page, tl.Start).Exceptions+timeline.SummarizePage(tl.Page, tl.Start).FailedRequests || n == 0 {
		t.Errorf("%d marks on the errors lane", n)
	}
	if eval[string](t, tab, `document.body.dataset.frame`) != "0" {
		t.Errorf("opened on frame %s, want 0", eval[string](t, tab, `document.body.dataset.frame`))
	}

	// A click on step 5 seeks to its start and shows the frame of then.
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#steps li[data-step="5"]`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, fmt.Sprintf(`document.body.dataset.t === "%d" && document.body.dataset.step === "5"`, stepStart(tl, 5)))
	want, after := frameAt(t, tk, msOf(tl, tl.Steps[4].Start))
	if f := eval[string](t, tab, `document.body.dataset.frame`); f != want || want == "0" {
		t.Errorf("step 5 shows frame %s, want %s", f, want)
	}
	if eval[bool](t, tab, `!document.querySelector('#steps li[data-step="5"]').classList.contains("cur")`) {
		t.Error("step 5 is not highlighted")
	}
	// The arrow key steps one frame on.
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, fmt.Sprintf(`document.body.dataset.frame === "%s"`, after))

	// The failure's button shows the frame where the expectation gave up.
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`button[data-fail-step="7"]`))); err != nil {
		t.Fatal(err)
	}
	failedAt, _ := frameAt(t, tk, msOf(tl, tl.Steps[6].End))
	waitFor(t, tab, fmt.Sprintf(`document.body.dataset.step === "7" && document.body.dataset.frame === "%s"`, failedAt))

	// Deep links.
	load(t, tab, u+"#step=7")
	waitFor(t, tab, fmt.Sprintf(`document.body.dataset.t === "%d" && document.body.dataset.step === "7"`, stepStart(tl, 7)))
	if eval[bool](t, tab, `!document.querySelector('#steps li[data-step="7"]').classList.contains("failed")`) {
		t.Error("the failed step does not stand out")
	}
	load(t, tab, u+"#t=0.5")
	at500, _ := frameAt(t, tk, 500)
	waitFor(t, tab, fmt.Sprintf(`document.body.dataset.t === "500" && document.body.dataset.frame === "%s"`, at500))

	// Playing moves the time on and the current step with it.
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#play`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, `+document.body.dataset.t > 600 && +document.body.dataset.step >= 4`)

	// Folder mode: the frames beside the report load under the policy.
	out2 := filepath.Join(dir, "long report.html")
	res2, err := viewer.Write(tk, out2, viewer.Options{Frames: viewer.ModeFolder})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Mode != viewer.ModeFolder || res2.FramesDir != filepath.Join(dir, "long report_frames") {
		t.Fatalf("result %+v", res2)
	}
	load(t, tab, fileURL(out2)+"#t=0.6")
	at600, _ := frameAt(t, tk, 600)
	waitFor(t, tab, fmt.Sprintf(`document.getElementById("frame").complete && document.getElementById("frame").naturalWidth === 640 && document.body.dataset.frame === "%s"`, at600))

	// Hostile but valid values do not stop the script: an outcome that is
	// no class name, and a fragment with a stray %.
	odd := *tk
	tlOdd := *tk.Timeline
	tlOdd.Outcome = "not a class"
	odd.Timeline = &tlOdd
	out3 := filepath.Join(dir, "odd.html")
	if _, err := viewer.Write(&odd, out3, viewer.Options{}); err != nil {
		t.Fatal(err)
	}
	load(t, tab, fileURL(out3)+"#%zz")
	if got := eval[string](t, tab, `document.getElementById("outcome").textContent + "|" + document.getElementById("outcome").className`); got != "not a class|badge" {
		t.Errorf("odd outcome shown as %q", got)
	}

	// The watcher itself sees a dialog and a console error: a probe the
	// test runs proves it.
	w.mu.Lock()
	before := len(w.problems)
	w.mu.Unlock()
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`alert("probe"); console.error("probe"); true`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, `true`)
	w.mu.Lock()
	defer w.mu.Unlock()
	probes := w.problems[before:]
	w.problems = w.problems[:before]
	if len(probes) < 2 {
		t.Errorf("the watcher missed the probe dialog or console error: saw %v", probes)
	}
	for _, p := range w.problems {
		t.Errorf("the page: %s", p)
	}
	for _, r := range w.requests {
		ok := strings.HasPrefix(r, "data:") || r == "about:blank" || strings.HasPrefix(r, fileURL(dir)+"/")
		if !ok {
			t.Errorf("the report requested %s", r)
		}
	}
	if len(w.requests) == 0 {
		t.Error("no requests seen at all: is the network listener working?")
	}
}
