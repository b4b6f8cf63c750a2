package suite

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// suiteSite serves /page/NAME (a page titled NAME) and /flaky, which
// says "down" on its first load and "ready" on every later one, until
// reset is called.
func suiteSite(t *testing.T) (url string, reset func()) {
	var loads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch {
		case r.URL.Path == "/flaky":
			word := "down"
			if loads.Add(1) > 1 {
				word = "ready"
			}
			fmt.Fprintf(w, "<!doctype html><title>flaky</title><h1>%s</h1>", word)
		case strings.HasPrefix(r.URL.Path, "/page/"):
			name := strings.TrimPrefix(r.URL.Path, "/page/")
			fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>page %s</h1>", name, name)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() { loads.Store(0) }
}

// sixScripts writes a suite of six: three that pass, two that fail (an
// expectation, a missing target) and one flaky.
func sixScripts(t *testing.T) string {
	dir := t.TempDir()
	write := func(name, steps string) {
		// Small: what the suite is about is scripts, not pictures.
		body := "name: " + name + "\nbrowser: {viewport: {width: 640, height: 360}}\nsteps:\n" + steps
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		write("pass-"+n, "  - goto: ${URL}/page/"+n+"\n  - expect: {text: page "+n+"}\n")
	}
	write("fail-expect", "  - goto: ${URL}/page/d\n  - expect: {text: nowhere}\n    timeout: 300ms\n")
	write("fail-target", "  - goto: ${URL}/page/e\n  - click: \"#missing\"\n    timeout: 300ms\n")
	// The flaky page is down or ready from its load on: a timeout long
	// enough for a loaded machine costs only its failing attempt.
	write("flaky", "  - goto: ${URL}/flaky\n  - expect: {text: ready}\n    timeout: 5s\n")
	return dir
}

func filmOptions(url string) film.Options {
	return film.Options{NoSandbox: testenv.NoSandbox(), NoVideo: true, Capture: "live", Env: map[string]string{"URL": url}, Tool: "clapper test"}
}

func verdicts(s *Summary) map[string]Status {
	v := map[string]Status{}
	for _, e := range s.Scripts {
		v[filepath.Base(e.Dir)] = e.Status
	}
	return v
}

// junitShape is what a JUnit file says but for times and the wording of
// failures (which check a timeout caught first can vary): each suite with
// its counts, each case with its name, line and failure type.
func junitShape(t *testing.T, b []byte) []string {
	t.Helper()
	var doc struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Line    int    `xml:"line,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	var out []string
	for _, s := range doc.Suites {
		out = append(out, fmt.Sprintf("suite %s: %d tests, %d failures", s.Name, s.Tests, s.Failures))
		for _, c := range s.Cases {
			f := ""
			if c.Failure != nil {
				f = " failed: " + c.Failure.Type
			}
			out = append(out, fmt.Sprintf("  %s (line %d)%s", c.Name, c.Line, f))
		}
	}
	return out
}

// A suite of six filmed by two workers, and again as three shards of one
// worker each put back together by Merge: the same verdicts, the same
// takes, the same JUnit but for the times; no take shows another script's
// page; the index lists the failures first and links to files that exist.
func TestSuiteWorkersShardsAndMerge(t *testing.T) {
	testenv.Need(t, "chromium")
	url, reset := suiteSite(t)
	scripts := sixScripts(t)
	out := t.TempDir()
	ctx := context.Background()

	whole, err := Run(ctx, Options{Args: []string{scripts}, Out: filepath.Join(out, "whole"), Workers: 2, Retries: 1,
		JUnit: filepath.Join(out, "whole.xml"), Film: filmOptions(url)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{"pass-a": Passed, "pass-b": Passed, "pass-c": Passed, "fail-expect": Failed, "fail-target": Failed, "flaky": Flaky}
	if got := verdicts(whole); !equalMaps(got, want) {
		t.Errorf("two workers: %v, want %v", got, want)
	}
	if whole.Totals.Line() != "3 passed, 1 flaky, 2 failed (6 scripts)" || whole.Workers != 2 {
		t.Errorf("totals %q, workers %d", whole.Totals.Line(), whole.Workers)
	}
	for _, e := range whole.Scripts {
		tk, err := timeline.Open(filepath.Join(out, "whole", e.Take))
		if err != nil {
			t.Errorf("%s: %v", e.Script, err)
			continue
		}
		own := "/page/" + strings.TrimPrefix(filepath.Base(e.Dir), "pass-")
		switch filepath.Base(e.Dir) {
		case "fail-expect":
			own = "/page/d"
		case "fail-target":
			own = "/page/e"
		case "flaky":
			own = "/flaky"
		}
		for _, b := range tk.Timeline.Boundaries {
			if b.URL != nil && strings.HasPrefix(*b.URL, "http") && !strings.HasSuffix(*b.URL, own) {
				t.Errorf("%s's take shows %s", e.Script, *b.URL)
			}
		}
		if (e.Status == Failed) != (e.Failure != nil) || e.Status == Failed && (e.Failure.Line != 5 && e.Failure.Line != 4) {
			t.Errorf("%s: status %s, failure %+v", e.Script, e.Status, e.Failure)
		}
		if e.Status == Flaky && (len(e.Attempts) != 2 || e.Attempts[0].Status != Failed || e.Attempts[1].Dir != e.Dir+"/retry-1") {
			t.Errorf("flaky attempts: %+v", e.Attempts)
		}
	}

	reset() // the flaky page fails once more
	var parts []string
	for i := 1; i <= 3; i++ {
		dir := filepath.Join(out, fmt.Sprintf("shard-%d", i))
		parts = append(parts, dir)
		s, err := Run(ctx, Options{Args: []string{scripts}, Out: dir, Workers: 1, Retries: 1, Shard: Shard{i, 3}, Film: filmOptions(url)})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Scripts) != 2 || s.Shard == nil || *s.Shard != (Shard{i, 3}) {
			t.Errorf("shard %d: %d scripts, %v", i, len(s.Scripts), s.Shard)
		}
	}
	merged, err := Merge(ctx, parts, filepath.Join(out, "merged"), filepath.Join(out, "merged.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(merged); !equalMaps(got, want) {
		t.Errorf("merged shards: %v, want %v", got, want)
	}
	var a, b []string
	for i := range whole.Scripts {
		a = append(a, whole.Scripts[i].Dir)
		b = append(b, merged.Scripts[i].Dir)
	}
	if !slices.Equal(a, b) {
		t.Errorf("takes: %v against %v", a, b)
	}
	wj, _ := os.ReadFile(filepath.Join(out, "whole.xml"))
	mj, _ := os.ReadFile(filepath.Join(out, "merged.xml"))
	if w, m := junitShape(t, wj), junitShape(t, mj); !slices.Equal(w, m) || len(w) != 6+6 {
		t.Errorf("JUnit differs:\n%s\n---\n%s", strings.Join(w, "\n"), strings.Join(m, "\n"))
	}
	if _, err := Merge(ctx, []string{parts[0], parts[0]}, filepath.Join(out, "twice"), ""); err == nil || !strings.Contains(err.Error(), "in both") {
		t.Errorf("a shard merged twice: %v", err)
	}

	// The index: failures first, and every link leads to a file.
	for _, dir := range []string{filepath.Join(out, "whole"), filepath.Join(out, "merged")} {
		page, err := os.ReadFile(filepath.Join(dir, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, m := range regexp.MustCompile(`data-status="(\w+)"`).FindAllStringSubmatch(string(page), -1) {
			order = append(order, m[1])
		}
		if !slices.Equal(order, []string{"failed", "failed", "flaky", "passed", "passed", "passed"}) {
			t.Errorf("%s: order %v", dir, order)
		}
		links := regexp.MustCompile(`href="([^"]+)"`).FindAllStringSubmatch(string(page), -1)
		if len(links) < 18 {
			t.Errorf("%s: %d links", dir, len(links))
		}
		for _, l := range links {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(l[1]))); err != nil {
				t.Errorf("%s: link %s: %v", dir, l[1], err)
			}
		}
		if !strings.Contains(string(page), "data:image/jpeg;base64,") {
			t.Errorf("%s: no pictures", dir)
		}
	}
	indexInChromium(t, filepath.Join(out, "merged", IndexFile), []string{"failed", "failed", "flaky", "passed", "passed", "passed"})
}

// indexInChromium opens a suite's index from file:// in Chromium, as a
// person opens it from a CI artifact, and checks what the browser made of
// it: a row per script, shown, in the order want gives their statuses;
// every thumbnail decoded; no error said in the console.
func indexInChromium(t *testing.T, index string, want []string) {
	t.Helper()
	ctx := context.Background()
	b, err := session.Launch(ctx, session.LaunchOptions{Headless: true, NoSandbox: testenv.NoSandbox(), Width: 1280, Height: 720})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, closeTab, err := b.NewTab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTab()
	var errs []string
	var mu sync.Mutex
	err = chromedp.Listen(tab, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			errs = append(errs, ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				errs = append(errs, "console error")
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				errs = append(errs, ev.Entry.Text)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := session.Navigate(tab, "file://"+index); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Status string
		Height float64
		Thumb  bool
	}
	rows, err := chromedp.Run(tab, chromedp.Evaluate[[]row](`[...document.querySelectorAll('[data-status]')].map(r => {
		const img = r.querySelector('img');
		return {Status: r.dataset.status, Height: r.getBoundingClientRect().height, Thumb: !!img && img.complete && img.naturalWidth > 0};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Status)
		if r.Height <= 0 || !r.Thumb {
			t.Errorf("index in Chromium: row %+v: want it shown, with its thumbnail decoded", r)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("index in Chromium: rows %v, want %v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) > 0 {
		t.Errorf("index in Chromium: errors %v", errs)
	}
}

// stopAfterFirst stops the suite once its first script is under way.
type stopAfterFirst struct {
	once   sync.Once
	cancel context.CancelFunc
}

func (s *stopAfterFirst) Started(int, string, int) {}
func (s *stopAfterFirst) Step(_ int, p session.Progress) {
	if p.Step == 2 {
		s.once.Do(func() { time.AfterFunc(300*time.Millisecond, s.cancel) })
	}
}
func (s *stopAfterFirst) Finished(int, Entry) {}

// A suite stopped mid-run: the running script is interrupted with its
// take readable, the rest are not started, and nothing is left running
// (TestMain's leak check).
func TestSuiteStopped(t *testing.T) {
	testenv.Need(t, "chromium")
	url, _ := suiteSite(t)
	dir := t.TempDir()
	for _, n := range []string{"one", "two", "three"} {
		os.WriteFile(filepath.Join(dir, n+".yaml"), []byte("steps:\n  - goto: ${URL}/page/"+n+"\n  - pause: 5s\n"), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := t.TempDir()
	sum, err := Run(ctx, Options{Args: []string{dir}, Out: out, Workers: 1, Film: filmOptions(url), Display: &stopAfterFirst{cancel: cancel}})
	if err != nil {
		t.Fatal(err)
	}
	st := verdicts(sum)
	if st["one"] != Interrupted || st["two"] != Interrupted || st["three"] != Interrupted || sum.Totals.OK() {
		t.Fatalf("verdicts %v", st)
	}
	started := 0
	for _, e := range sum.Scripts {
		if e.Take == "" {
			continue
		}
		started++
		if _, err := timeline.Open(filepath.Join(out, e.Take)); err != nil {
			t.Errorf("%s: %v", e.Script, err)
		}
	}
	if started != 1 {
		t.Errorf("%d scripts started, want 1", started)
	}
	if _, err := ReadSummary(out); err != nil {
		t.Errorf("summary: %v", err)
	}
}

func equalMaps(a, b map[string]Status) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Each script of a suite against its own baseline: --update films the
// baselines; then a page changed in one word fails its script, with the
// findings and the diff report in the index, and the other passes.
func TestSuiteBaselines(t *testing.T) {
	testenv.Need(t, "chromium-headless-shell")
	var changed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		word := "Welcome"
		if changed.Load() && r.URL.Path == "/b" {
			word = "Goodbye"
		}
		fmt.Fprintf(w, "<!doctype html><title>t</title><h1 style='font-size:60px'>%s %s</h1>", word, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	for _, n := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(dir, n+".yaml"), []byte("output: {video: "+n+".mp4, size: 320x180, fps: 24}\nsteps:\n  - goto: ${URL}/"+n+"\n  - expect: {text: /"+n+"}\n  - pause: 300ms\n"), 0o644)
	}
	o := filmOptions(srv.URL)
	o.Capture = "studio"
	base, out := t.TempDir(), t.TempDir()
	ctx := context.Background()
	first, err := Run(ctx, Options{Args: []string{dir}, Out: filepath.Join(out, "1"), Workers: 2, Film: o, Baselines: base, Update: true})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Totals.OK() {
		t.Fatalf("filming the baselines: %+v", first.Scripts)
	}
	for _, e := range first.Scripts {
		if _, err := os.Stat(BaselineOf(base, e.Dir)); err != nil {
			t.Errorf("no baseline for %s: %v", e.Script, err)
		}
		// Each take starts with a picture of its tab before the goto (on a
		// busy machine, a studio tab's first begin-frame can come without
		// one: the take then started on the new document).
		tk, err := timeline.Open(filepath.Join(out, "1", e.Take))
		if err != nil {
			t.Fatal(err)
		}
		first := false
		for fr, err := range tk.Frames() {
			if err != nil || fr.Source != 0 || fr.Document != 0 {
				t.Errorf("%s: the first frame is at %v of document %d (%v), not the take's start", e.Script, fr.Source, fr.Document, err)
			}
			first = true
			break
		}
		if !first {
			t.Errorf("%s: the take has no frame", e.Script)
		}
	}
	changed.Store(true)
	// The second suite renders its videos and keeps those of the failed
	// script only: each take is compared before anything is removed.
	o.NoVideo = false
	second, err := Run(ctx, Options{Args: []string{dir}, Out: filepath.Join(out, "2"), Workers: 2, Film: o, Baselines: base, Keep: KeepFailed})
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(second)
	if got["a"] != Passed || got["b"] != Failed {
		// What each comparison found, for a take that differs when it
		// should not (seen once under a full suite's load).
		var found []string
		for _, e := range second.Scripts {
			if e.Diff != nil {
				found = append(found, fmt.Sprintf("%s: %d findings: %s", filepath.Base(e.Dir), e.Diff.Findings, strings.Join(e.Diff.Lines, "; ")))
			}
		}
		t.Fatalf("verdicts %v:\n%s\n%+v", got, strings.Join(found, "\n"), second.Scripts)
	}
	for _, e := range second.Scripts {
		switch d := e.Diff; {
		case d == nil:
			t.Errorf("%s: no comparison recorded", e.Script)
		case filepath.Base(e.Dir) == "a" && (d.Findings != 0 || d.Fails):
			t.Errorf("a: %+v", d)
		case filepath.Base(e.Dir) == "b" && (d.Findings == 0 || !d.Fails || d.Report == ""):
			t.Errorf("b: %+v", d)
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, "2", IndexFile))
	if !strings.Contains(string(page), "diff report") || !strings.Contains(string(page), "compared with its baseline: no difference") {
		t.Errorf("the index does not show the comparisons")
	}
	keptFailed(t, filepath.Join(out, "2"), second, string(page))
}

// keptFailed checks a suite filmed with --keep failed: the passed
// script's videos and pictures are gone, its take verifies and is refused
// a render, and its report, timeline and thumbnail stay; the failed
// script keeps everything; every link of the index leads to a file.
func keptFailed(t *testing.T, out string, sum *Summary, page string) {
	t.Helper()
	for _, e := range sum.Scripts {
		take := filepath.Join(out, filepath.FromSlash(e.Take))
		frames, _ := os.ReadDir(filepath.Join(take, timeline.FramesDir))
		v := timeline.Verify(take)
		if err := v.Err(); err != nil {
			t.Errorf("%s: %v", e.Script, err)
		}
		for _, f := range []string{e.Report, e.Thumb, e.Take + "/" + timeline.TimelineFile} {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(f))); f == "" || err != nil {
				t.Errorf("%s: %q not kept: %v", e.Script, f, err)
			}
		}
		video := filepath.Join(out, filepath.FromSlash(e.Dir), filepath.Base(e.Dir)+".mp4")
		_, verr := os.Stat(video)
		switch e.Status {
		case Passed:
			if !e.Pruned || len(e.Videos) != 0 || len(frames) != 0 || verr == nil || len(v.Warnings) != 1 {
				t.Errorf("%s passed: pruned %v, videos %v, %d pictures, video file %v, warnings %v", e.Script, e.Pruned, e.Videos, len(frames), verr, v.Warnings)
			}
			if err := film.RefusePruned(take, take); err == nil || !strings.Contains(err.Error(), "cannot be rendered") {
				t.Errorf("%s: a render of the pruned take: %v", e.Script, err)
			}
		default:
			if e.Pruned || len(e.Videos) != 1 || len(frames) == 0 || verr != nil || len(v.Warnings) != 0 {
				t.Errorf("%s %s: pruned %v, videos %v, %d pictures, video file %v", e.Script, e.Status, e.Pruned, e.Videos, len(frames), verr)
			}
		}
	}
	if !strings.Contains(page, "video and take pictures not kept (passed; --keep failed)") {
		t.Errorf("the index does not say what was not kept")
	}
	for _, l := range regexp.MustCompile(`href="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(l[1]))); err != nil {
			t.Errorf("link %s: %v", l[1], err)
		}
	}
}

// A suite's live scripts share one browser, each apart: a cookie and
// local storage one script leaves on a site are not there for the next
// one on the same site, as with a browser of its own.
func TestSuiteLiveScriptsShareOneBrowserApart(t *testing.T) {
	testenv.Need(t, "chromium")
	url, _ := suiteSite(t)
	filmApart(t, "", Options{Film: filmOptions(url)})
}

// A suite's studio scripts take turns on one headless shell of the
// suite's, each in a browser context of its own: the second finds none of
// the first's cookies or storage, each take says its run attached, and
// one shell was launched for both.
func TestSuiteStudioScriptsShareOneShellApart(t *testing.T) {
	testenv.Need(t, "chromium-headless-shell")
	url, _ := suiteSite(t)
	fo := filmOptions(url)
	fo.Capture = "studio"
	launches := 0
	launch := newStudioShells("", 1, nil).launch
	filmApart(t, "browser: {viewport: {width: 640, height: 360}}\n", Options{Film: fo, launchShell: func(ctx context.Context, kind lent) (shell, error) {
		launches++
		return launch(ctx, kind)
	}})
	if launches != 1 {
		t.Errorf("two studio scripts in one worker launched %d shells, want 1", launches)
	}
}

// filmApart films, as a suite of one worker with o, a script that leaves
// a cookie and local storage on a site and one on the same site that must
// find neither (each script's text begins with header); both must pass,
// and each take must say its run attached to a browser of the suite's.
func filmApart(t *testing.T, header string, o Options) {
	t.Helper()
	dir := t.TempDir()
	for name, steps := range map[string]string{
		"a-leave": "  - goto: ${URL}/page/a\n  - eval: \"document.cookie = 'who=a; path=/'; localStorage.setItem('who', 'a')\"\n  - expect: {js: \"document.cookie.includes('who=a')\"}\n",
		"b-find":  "  - goto: ${URL}/page/b\n  - expect: {js: \"document.cookie === '' && localStorage.length === 0\"}\n    timeout: 1s\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte("name: "+name+"\n"+header+"steps:\n"+steps), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o.Args, o.Out, o.Workers = []string{dir}, t.TempDir(), 1
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Totals.Line() != "2 passed, 0 failed (2 scripts)" {
		t.Errorf("totals %q: %+v", sum.Totals.Line(), sum.Scripts)
	}
	for _, e := range sum.Scripts {
		tk, err := timeline.Open(filepath.Join(o.Out, e.Take))
		if err != nil {
			t.Fatal(err)
		}
		if c := tk.Timeline.Cleanup; c == nil || c.Process != "not-owned" {
			t.Errorf("%s: cleanup %+v: want the run attached to the suite's browser", e.Script, c)
		}
	}
}
