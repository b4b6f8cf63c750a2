package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// runSite runs a script against testdata/site (as ${serve.url}) with env,
// and returns its result. The script's steps follow "steps:".
func runSite(t *testing.T, steps string, env map[string]string) *Result {
	t.Helper()
	res, _ := runSiteTake(t, steps, env)
	return res
}

// runSiteTake is runSite that also returns the take's folder.
func runSiteTake(t *testing.T, steps string, env map[string]string) (*Result, string) {
	t.Helper()
	return runSiteTakeWith(t, steps, env, RunOptions{})
}

// runSiteTakeWith is runSiteTake with the run's options (its take folder
// and browser are set here: the package's live browser, or its studio
// shell when o.Studio says so).
func runSiteTakeWith(t *testing.T, steps string, env map[string]string, o RunOptions) (*Result, string) {
	t.Helper()
	testenv.Need(t, "chromium")
	dir := t.TempDir()
	site, _ := filepath.Abs("testdata/site")
	path := filepath.Join(dir, "s.yaml")
	body := "name: behaviour\nserve: " + site + "\ndefaults: {timeout: 20s}\nsteps:\n" + steps
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scripts.Load(path, scripts.LoadOptions{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	smallByDefault(body, s)
	s.Browser.NoSandbox = testenv.NoSandbox()
	take := filepath.Join(dir, "take")
	o.TakeDir = take
	if o.Studio != "" {
		s.Browser.Capture = scripts.CaptureStudio
	} else {
		o.Attach = liveEndpoint(t)
	}
	res, err := Run(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	return res, take
}

func mustPass(t *testing.T, res *Result) {
	t.Helper()
	if res.Failed != nil {
		t.Fatalf("run failed: %v", res.Failed)
	}
}

// press: Control++ is the plus key with Control held (the chord's last
// "+" is the key), as validate accepts it.
func TestPressChordWithPlus(t *testing.T) {
	mustPass(t, runSite(t, `  - goto: ${serve.url}/keys.html
  - press: {key: "Control++", into: "#field"}
  - press: "Alt+z"
  - press: "+"
  - expect: {text: "ctrl key +", in: "#log"}
  - expect: {text: "alt key z", in: "#log"}
  - expect: {count: 3, target: "#log li"}
`, nil))
}

// A file input hidden behind a styled label takes files at once: only
// attached and enabled are checked, not visibility.
func TestUploadIntoHiddenInput(t *testing.T) {
	res := runSite(t, `  - goto: ${serve.url}/upload.html
  - upload: {into: "#file", files: [`+must(filepath.Abs("testdata/upload.txt"))+`]}
    timeout: 10s
  - expect: {text: upload.txt, in: "#files"}
`, nil)
	mustPass(t, res)
	if st := res.Timeline.Steps[1]; st.Outcome != timeline.OutcomeOK {
		t.Errorf("upload step: %+v", st)
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// A wait's JavaScript is the author's expression as written: a trailing
// comment does not break it, and a promise is awaited.
func TestWaitJSAsWritten(t *testing.T) {
	mustPass(t, runSite(t, `  - goto: ${serve.url}/keys.html
  - wait: {js: "document.title === 'Keys' // the title"}
  - wait: {js: "Promise.resolve(document.readyState === 'complete')"}
  - wait: {js: "const n = 2; n > 1"}
  - wait: {js: "const looks = (window.looks = (window.looks || 0) + 1); looks > 3"}
`, nil))
}

// wait: {state: visible} agrees with expect and the actionability checks
// on Playwright's definition: an element with opacity 0 (a see-through
// native input under a styled label) is visible to all three, and is
// clicked; an element with visibility: hidden is visible to none. The
// last click has 3s so that a look answers even on a loaded machine.
func TestOneDefinitionOfVisible(t *testing.T) {
	res := runSite(t, `  - goto: ${serve.url}/fixture.html
  - wait: {selector: "#transparent", state: visible}
  - expect: {visible: "#in-transparent"}
  - click: "#transparent"
  - wait: {selector: "#invisible", state: hidden}
  - expect: {hidden: "#invisible"}
  - click: "#invisible"
    timeout: 3s
    optional: true
`, nil)
	mustPass(t, res)
	steps := res.Timeline.Steps
	if steps[6].Outcome == timeline.OutcomeOK || !strings.Contains(steps[6].Error, "failed check visible") {
		t.Errorf("a visibility: hidden element was clicked: %s %s", steps[6].Outcome, steps[6].Error)
	}
}

// A timed step the page holds up says so in the take: typing into a
// field whose keydown handler runs 300 ms a key cannot keep a 20 ms
// delay, and the step's record says by how much and what held it (the
// browser's 1.2 s dwarfs what a loaded machine adds).
func TestLateStepSaysWhy(t *testing.T) {
	res := runSite(t, `  - goto: ${serve.url}/busy.html
  - type: {into: "#field", text: abcd, delay: 20ms}
  - expect: {value: abcd, target: "#field"}
`, nil)
	mustPass(t, res)
	l := res.Timeline.Steps[1].Late
	if l == nil {
		t.Fatalf("typing held up 1.2 s recorded no lateness: %+v", res.Timeline.Steps[1])
	}
	if l.Planned < 60*time.Millisecond || l.Took-l.Planned < time.Second || l.Longest < 300*time.Millisecond ||
		l.Inputs < 8 || l.Slow < 4 || !strings.Contains(l.Why, "the browser was slow to take input") {
		t.Errorf("late: %+v", l)
	}
	t.Logf("late: %+v", l)
}

// slowSite serves /idle.html, which fetches /slow (answered after a
// while) and then writes "slow done"; /slow-page answers late too.
func slowSite(t *testing.T, delay time.Duration) string {
	t.Helper()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/idle.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>idle</title><p id="s">waiting</p>
<script>fetch('/slow').then(r => r.text()).then(t => { document.getElementById('s').textContent = t; });</script>`)
	})
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-release:
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "slow done")
	}
	mux.HandleFunc("/slow", slow)
	mux.HandleFunc("/slow-page", slow)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL
}

// wait: {network_idle: true} sees a request still in flight: it passes only
// after the slow fetch finished (so its text is there at once).
func TestNetworkIdleSeesRequestsInFlight(t *testing.T) {
	site := slowSite(t, 1500*time.Millisecond)
	mustPass(t, runSite(t, `  - goto: ${SITE}/idle.html
  - wait: {network_idle: true}
  - eval: "if (document.getElementById('s').textContent !== 'slow done') throw new Error('idle before the fetch ended')"
`, map[string]string{"SITE": site}))
}

// back and forward do not report success before the history entry
// changed: between two entries of one address (pushState), the one-shot
// check right after each sees the popstate it caused; across documents,
// the other document, loaded.
func TestBackWaitsForTheEntry(t *testing.T) {
	mustPass(t, runSite(t, `  - goto: ${serve.url}/counter.html
  - eval: "history.pushState({}, '', location.href)"
  - back
  - eval: "if (document.getElementById('n').textContent !== 'popped 1') throw new Error('back returned on ' + document.body.innerText)"
  - forward
  - eval: "if (document.getElementById('n').textContent !== 'popped 2') throw new Error('forward returned on ' + document.body.innerText)"
  - goto: ${serve.url}/second.html
  - back
  - eval: "if (!document.getElementById('n') || document.readyState !== 'complete') throw new Error('back returned on ' + location.href)"
`, nil))
}

// Opening a tab at an address that does not answer ends at the step's
// timeout, not when the server answers.
func TestTabOpenHonoursTheStepTimeout(t *testing.T) {
	t.Parallel() // its own browser; mostly waiting for a timeout or a pause to pass
	site := slowSite(t, 10*time.Minute)
	res := runSite(t, `  - tab: {open: side, url: "${SITE}/slow-page"}
    timeout: 2s
    optional: true
  - tab: {switch: main}
`, map[string]string{"SITE": site})
	mustPass(t, res)
	st := res.Timeline.Steps[0]
	if st.Outcome != timeline.OutcomeUnknown || !strings.Contains(st.Error, "timeout 2s") {
		t.Errorf("tab open of a page that never answers: %s %q", st.Outcome, st.Error)
	}
}

// A pause longer than the default timeout is not cut short by it.
func TestPauseLongerThanTheDefaultTimeout(t *testing.T) {
	t.Parallel() // a window of the package's live browser; mostly waiting for the pause to pass
	testenv.Need(t, "chromium")
	s := writeScript(t, "name: pause\ndefaults: {timeout: 1s}\nsteps:\n  - pause: 1500ms\n")
	res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: liveEndpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, res)
}

// A typing step whose keys take longer than the default timeout types
// them all: the default deadline counts from the end of the step's own
// time, as a pause's does. The keys are half a second apart, so a busy
// machine (a key taken late) does not stretch the typing: each key is due
// at its own time from the first.
func TestTypingLongerThanTheDefaultTimeout(t *testing.T) {
	t.Parallel() // a window of the package's live browser; mostly waiting for the keys
	testenv.Need(t, "chromium")
	const text, delay = "abcdefg", 500 * time.Millisecond // 3 s of its own
	s := writeScript(t, "name: typing\ndefaults: {timeout: 2s}\nsteps:\n"+
		"  - goto: \"data:text/html,<input id=f>\"\n"+
		"  - type: {into: \"#f\", text: \""+text+"\", delay: 500ms}\n"+
		"  - expect: {target: \"#f\", value: \""+text+"\"}\n")
	res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: liveEndpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, res)
	if st, own := res.Timeline.Steps[1], time.Duration(len(text)-1)*delay; time.Duration(st.End-st.Start) < own {
		t.Errorf("the typing step took %v: shorter than its own %v", time.Duration(st.End-st.Start), own)
	}
}

// A page that opens another (a link to a new tab, window.open) does not
// take the run's tab from it: Chromium puts the new page in front, where
// the tab behind it would paint nothing and run no animation frames, so
// the next step's checks would wait out their timeout. As in Playwright,
// the steps go on in the tab.
func TestPageOpeningAnotherKeepsTheTab(t *testing.T) {
	res, take := runSiteTake(t, `  - goto: ${serve.url}/opener.html
  - click: "#link"
    timeout: 3s
  - click: "#count"
    timeout: 3s
  - click: "#win"
    timeout: 3s
  - click: "#count"
    timeout: 3s
  - expect: {text: clicked 2, in: "#count"}
    timeout: 3s
`, nil)
	mustPass(t, res)
	// The video kept filming the tab: frames after the last popup opened.
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Timeline.Steps[3].Start
	n := 0
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Source > last {
			n++
		}
	}
	if n == 0 {
		t.Error("no frame of the tab after its page opened a window: the video stopped")
	}
	// The pages it opened went with the run: the browser is the package's,
	// not the run's.
	pages, err := live.b.Pages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if strings.Contains(p.URL, "from=opener") {
			t.Errorf("a page the run's tab opened is still open: %s", p.URL)
		}
	}
}

// A step whose deadline cut a command short says which deadline, and
// keeps its outcome.
func TestCauseOf(t *testing.T) {
	why := errors.New("timeout 2s")
	ended, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(-time.Second), why)
	defer cancel()
	running, stop := context.WithCancel(context.Background())
	defer stop()
	cut := &StepError{Outcome: timeline.OutcomeUnknown, Err: fmt.Errorf("dispatch key: %w", context.DeadlineExceeded)}
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"no error", ended, nil, ""},
		{"a context still running", running, context.DeadlineExceeded, "context deadline exceeded"},
		{"a bare deadline", ended, context.DeadlineExceeded, "context deadline exceeded (timeout 2s)"},
		{"a classified one", ended, cut, "dispatch key: context deadline exceeded (timeout 2s)"},
		{"one that says why already", ended, fmt.Errorf("wait for x: %w", why), "wait for x: timeout 2s"},
		{"another error as the context ended", ended, errors.New("net::ERR_ABORTED"), "net::ERR_ABORTED (timeout 2s)"},
		{"another error", running, errors.New("element gone"), "element gone"},
	} {
		got := causeOf(c.ctx, c.err)
		if msg := fmt.Sprint(got); got == nil && c.want != "" || got != nil && msg != c.want {
			t.Errorf("%s: %v, want %q", c.name, got, c.want)
		}
		if got != nil && c.err != nil && !errors.Is(got, c.err) && !errors.Is(got, context.DeadlineExceeded) {
			t.Errorf("%s: %v no longer wraps %v", c.name, got, c.err)
		}
	}
	var se *StepError
	if got := causeOf(ended, cut); !errors.As(got, &se) || se.Outcome != timeline.OutcomeUnknown || !errors.Is(got, why) {
		t.Errorf("a classified error: %#v, want its outcome kept and the cause wrapped", got)
	}
}

// A selector or an XPath expression the browser refuses fails the step
// at once, said plainly, not at the timeout. (The script's loader refuses most such selectors
// first; an undeclared namespace prefix is one it leaves to the browser.)
func TestInvalidSelectorIsFinal(t *testing.T) {
	res := runSite(t, `  - goto: ${serve.url}/fixture.html
  - click: "svg|plain"
    optional: true
  - wait: {selector: "svg|plain", state: visible}
    optional: true
  - click: {xpath: "//button["}
    optional: true
  - click: ".md:flex"
    optional: true
`, nil)
	mustPass(t, res)
	for i, st := range res.Timeline.Steps[1:] {
		want := `the selector "svg|plain" is not valid CSS (the browser refused it; fix it in the script)`
		switch i {
		case 2:
			want = `the XPath "//button[" is not a valid XPath expression (the browser refused it; fix it in the script)`
		case 3:
			want = `the selector ".md:flex" is not valid CSS: it has the pseudo-class :flex at character 4, which Chromium does not know; if "md:flex" is one class name, write [class~='md:flex'] (the browser refused it; fix it in the script)`
		}
		if st.Outcome != timeline.OutcomeUndispatched || st.Error != want {
			t.Errorf("%s with an invalid selector: %s %q", st.Kind, st.Outcome, st.Error)
		}
	}
}

// Each step records where the script's masks are when it ends: the
// visible elements a target matches and the regions given, in the tab's
// viewport.
func TestStepsRecordMasks(t *testing.T) {
	testenv.Need(t, "chromium")
	dir := t.TempDir()
	site, _ := filepath.Abs("testdata/site")
	path := filepath.Join(dir, "s.yaml")
	body := "serve: " + site + "\nmask: [\"#greeting\", \"#hidden\", {x: 1, y: 2, w: 30, h: 40}]\nsteps:\n  - goto: ${serve.url}/fixture.html\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scripts.Load(path, scripts.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	smallByDefault(body, s)
	s.Browser.NoSandbox = testenv.NoSandbox()
	res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(dir, "take"), Attach: liveEndpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, res)
	m := res.Timeline.Steps[0].Masks
	if len(m) != 2 || m[0].W <= 0 || m[0].H <= 0 || m[1] != (timeline.Rect{X: 1, Y: 2, W: 30, H: 40}) {
		t.Errorf("masks recorded: %+v, want #greeting's box (#hidden is not shown) and the region", m)
	}
}
