package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// popupSteps act in the pages a tab opens, as a Playwright script does
// with the page of its popup event: a sign-in window that answers its
// opener and closes itself, and a link to a new tab, named, acted in,
// filmed and closed; the opener goes on after each.
const popupSteps = `  - goto: ${serve.url}/opener.html
  - click: {role: button, name: Sign in}
  - tab: {popup: signin}
  - expect: {title: Sign in to Acme}
  - type: {into: "#user", text: ada}
  - click: {text: Continue}
  - tab: stage
  - expect: {text: signed in as ada, in: "#status"}
  - click: "#link"
  - tab: {popup: second}
  - expect: {url: "*from=opener"}
  - tab: stage
  - click: "#count"
  - tab: second
  - click: {text: Twice}
  - click: "#count"
    tab: stage
  - tab: {close: second}
  - click: "#count"
  - expect: {text: clicked 3, in: "#count"}
`

func TestPopupTabs(t *testing.T) {
	res, take := runSiteTake(t, popupSteps, nil)
	mustPass(t, res)
	checkPopupTake(t, res, take)
	// The pages went with the run: the browser is the package's.
	pages, err := live.b.Pages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if strings.Contains(p.URL, "from=opener") || strings.Contains(p.URL, "signin.html") {
			t.Errorf("a page the run named is still open: %s", p.URL)
		}
	}
}

// checkPopupTake checks that the video followed the steps into each page
// named, by the boundaries that name the tabs.
func checkPopupTake(t *testing.T, res *Result, take string) {
	t.Helper()
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatal(err)
	}
	var tabs []string
	for _, b := range tk.Timeline.Boundaries {
		if b.Tab != "" && (len(tabs) == 0 || tabs[len(tabs)-1] != b.Tab) {
			tabs = append(tabs, b.Tab)
		}
	}
	if got := strings.Join(tabs, " "); got != "main signin main second main second main" {
		t.Errorf("the film showed tabs %q, want main signin main second main second main", got)
	}
	// Each page named was filmed: frames of its documents.
	tabOf := map[int]string{}
	for _, b := range tk.Timeline.Boundaries {
		tabOf[b.Document] = b.Tab
	}
	frames := map[string]int{}
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		frames[tabOf[fr.Document]]++
	}
	for _, tab := range []string{"main", "signin", "second"} {
		if frames[tab] == 0 {
			t.Errorf("no frame of tab %s in the take: %v", tab, frames)
		}
	}
}

// popupEdgeSteps name two pages one click opened, oldest first; look for
// a page from a tab that opened none while another tab opened one, and
// from a tab whose pages all have names; pass over a page that closed
// itself before a step named it; and give a sign-in window's name back
// by closing its tab, to sign in again; and act in a named page after
// its opener, in a step of its own, opened another page a moment later
// (the named page stays in front: filmed live, a page behind would never
// be ready).
const popupEdgeSteps = `  - goto: ${serve.url}/opener.html
  - click: "#two"
  - tab: {popup: one}
  - expect: {url: "*n=1"}
  - tab: {popup: three}
    timeout: 500ms
    optional: true
  - tab: stage
  - tab: {popup: two}
  - expect: {url: "*n=2"}
  - tab: stage
  - tab: {popup: more}
    timeout: 500ms
    optional: true
  - click: "#bye"
  - wait: {text: it closed}
  - tab: {popup: bye}
    timeout: 500ms
    optional: true
  - click: "#signin"
  - tab: {popup: signin}
  - click: {text: Continue}
  - tab: stage
  - tab: {close: signin}
  - click: "#signin"
  - tab: {popup: signin}
  - expect: {title: Sign in to Acme}
  - type: {into: "#user", text: bob}
  - click: {text: Continue}
  - tab: stage
  - expect: {text: signed in as bob, in: "#status"}
  - click: "#count"
  - expect: {text: clicked 1, in: "#count"}
  - tab: one
  - click: "#later"
    tab: stage
  - pause: 800ms
  - click: {text: Twice}
`

// passLiveAndStudio runs steps on the test site filmed live and in
// studio side by side (the package's two browsers: most of each is the
// pages' and the pointer's pacing), requires each run to pass, and checks
// its result with check.
func passLiveAndStudio(t *testing.T, steps string, check func(t *testing.T, res *Result)) {
	for _, studio := range []bool{false, true} {
		t.Run(map[bool]string{false: "live", true: "studio"}[studio], func(t *testing.T) {
			t.Parallel()
			o := RunOptions{}
			if studio {
				testenv.Need(t, shellName)
				o.Studio = studioEndpoint(t)
			}
			res, _ := runSiteTakeWith(t, steps, nil, o)
			mustPass(t, res)
			check(t, res)
		})
	}
}

func TestPopupTabsEdges(t *testing.T) {
	passLiveAndStudio(t, popupEdgeSteps, func(t *testing.T, res *Result) {
		for i, want := range map[int]string{
			4:  "the tab has opened no page; tab main opened one: name it from there (tab: main, then tab: {popup: NAME})",
			9:  "every page it opened has a name already (one, two)",
			12: "/bye.html) closed before a step named it",
		} {
			st := res.Timeline.Steps[i]
			if st.Outcome == timeline.OutcomeOK || !strings.Contains(st.Error, want) {
				t.Errorf("step %d: %s %q, want the error to say %q", i, st.Outcome, st.Error, want)
			}
		}
	})
}

// A page that closes in answer to a step's last input ends the step
// done, whether or not the browser answered that input before it said the
// page closed: a button that closes its window as it goes down (the
// release finds no page), Enter in a field, the last key of a text. A
// step that then acts in the closed tab fails, saying so.
const closedBySteps = `  - goto: ${serve.url}/opener.html
  - click: "#signin"
  - tab: {popup: a}
  - type: {into: "#user", text: ada}
  - click: "#quick"
  - tab: stage
  - expect: {text: signed in as ada, in: "#status"}
  - click: "#signin"
  - tab: {popup: b}
  - type: {into: "#user", text: bob}
  - press: Enter
  - tab: stage
  - expect: {text: signed in as bob, in: "#status"}
  - click: "#signin"
  - tab: {popup: c}
  - type: {into: "#user", text: "cy\n"}
  - click: "#nowhere"
    optional: true
    timeout: 5s
  - tab: stage
  - expect: {text: signed in as cy, in: "#status"}
`

func TestPageClosedByTheStep(t *testing.T) {
	passLiveAndStudio(t, closedBySteps, func(t *testing.T, res *Result) {
		st := res.Timeline.Steps[16]
		// (Its target is nowhere: were the page still closing as it
		// began, it would wait for the close, never click.)
		if want := `tab "c" is closed`; st.Outcome != timeline.OutcomeUndispatched || !strings.Contains(st.Error, want) {
			t.Errorf("the click in the closed tab: %s %q, want undispatched saying %q", st.Outcome, st.Error, want)
		}
		closed := 0
		for _, r := range res.Timeline.Receipts {
			if r.Error != "" {
				t.Errorf("receipt %+v has an error", r)
			}
			if r.Closed {
				closed++
			}
		}
		// Refused at once, or as the page closed: not after its 5 s
		// of trying.
		if d := (st.End - st.Start).Duration(); d >= 5*time.Second {
			t.Errorf("the click in the closed tab took %v", d)
		}
		// The button closing as it goes down, Enter and the text's
		// last key each may leave one input the page never answered
		// (3 or 4 in most runs, fewer under load, where the browser
		// more often answers before the page has gone).
		t.Logf("%d receipts say the page closed before it answered", closed)
	})
}

// passedTake runs steps on the test site, requires them to pass and
// opens their take.
func passedTake(t *testing.T, steps string) *timeline.Take {
	t.Helper()
	res, take := runSiteTake(t, steps, nil)
	mustPass(t, res)
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// A film pinned to the opener while the steps act in the page it opened
// films a page behind another, which paints nothing: its last frame
// stands, and the take ends with the steps, not after a screenshot that
// could never come.
func TestPopupFilmPinnedBehind(t *testing.T) {
	tk := passedTake(t, `  - goto: ${serve.url}/opener.html
  - film: stage
  - click: "#link"
  - tab: {popup: second}
  - click: {text: Twice}
`)
	last := tk.Timeline.Steps[len(tk.Timeline.Steps)-1]
	// Without the rule the take ran on for the screenshot's 10 s limit:
	// a video ending in a 10-s still.
	if tail := (tk.Timeline.End - last.End).Duration(); tail > 3*time.Second {
		t.Errorf("the take ends %v after its last step", tail)
	}
	for _, b := range tk.Timeline.Boundaries {
		if b.Tab != "" && b.Tab != "main" {
			t.Errorf("the film left main for %s", b.Tab)
		}
	}
}

// A film pinned to the opener once the film followed the steps into the
// page it opened (in front of it) starts with a picture of the opener,
// and the steps go on in front.
func TestPopupFilmBehindFromItsStart(t *testing.T) {
	tk := passedTake(t, `  - goto: ${serve.url}/opener.html
  - click: "#link"
  - tab: {popup: second}
  - click: {text: Twice}
  - film: stage
  - click: {text: Twice}
`)
	// The last document is main's, from the film step.
	b := tk.Timeline.Boundaries[len(tk.Timeline.Boundaries)-1]
	if b.Tab != "main" {
		t.Fatalf("the last boundary names %q, want main", b.Tab)
	}
	n := 0
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Document == b.Document && fr.Seeded {
			n++
		}
	}
	// Every film starts with a screenshot of its page (the picture of a
	// page behind is taken in front).
	if n == 0 {
		t.Errorf("main's film after the film step did not start with its screenshot")
	}
}

// A page opened from inside a cross-site iframe (its own process, its
// own target) is the tab's as one its page opened, as Playwright's popup
// event fires for the pages any frame of the page opens.
func TestPopupFromAFrame(t *testing.T) {
	res := runSite(t, `  - goto: ${serve.url}/framed-opener.html
  - click: {css: "#link", frame: "#x"}
  - tab: {popup: second}
  - expect: {url: "*from=opener"}
  - click: {text: Twice}
  - tab: stage
  - click: {css: "#count", frame: "#x"}
  - expect: {text: clicked 1, in: {css: "#count", frame: "#x"}}
`, nil)
	mustPass(t, res)
}

// A tab with a window of its own whose page opens another gets its
// window's front back, whichever page a step named in another window.
func TestPopupFrontIsPerWindow(t *testing.T) {
	res := runSite(t, `  - goto: ${serve.url}/opener.html
  - click: "#link"
  - tab: {popup: p}
  - tab: {open: side, url: "${serve.url}/opener.html"}
  - click: "#link"
  - click: "#count"
  - expect: {text: clicked 1, in: "#count"}
  - tab: p
  - click: {text: Twice}
`, nil)
	mustPass(t, res)
}

// noPage says why a popup step found no page to name, and closedWhy how
// a page went.
func TestNoPage(t *testing.T) {
	const bye = "the page it opened (http://x/bye.html) closed before a step named it (a page that closes itself is named in the step right after the one that opens it)"
	for _, c := range []struct {
		named, closed, others []string
		want                  string
	}{
		{nil, nil, nil, "the tab has opened no page"},
		{[]string{"a", "b"}, nil, nil, "every page it opened has a name already (a, b): switch to one with tab: NAME"},
		{[]string{"a"}, []string{bye}, nil, bye},
		{nil, nil, []string{"docs", "help"}, "the tab has opened no page; tabs docs, help opened some: name one from there (tab: docs, then tab: {popup: NAME})"},
		{nil, nil, []string{"docs"}, "the tab has opened no page; tab docs opened one: name it from there (tab: docs, then tab: {popup: NAME})"},
	} {
		if got := noPage(c.named, c.closed, c.others); got != c.want {
			t.Errorf("noPage(%v, %v, %v) = %q, want %q", c.named, c.closed, c.others, got, c.want)
		}
	}
	for _, c := range []struct{ url, failed, want string }{
		{"http://x/bye.html", "", bye},
		{"", "", "the page it opened closed before a step named it (a page that closes itself is named in the step right after the one that opens it)"},
		{"http://x/a.html", "open tab: no target", "the page it opened (http://x/a.html) could not be made a tab: open tab: no target"},
	} {
		if got := closedWhy(c.url, c.failed); got != c.want {
			t.Errorf("closedWhy(%q, %q) = %q, want %q", c.url, c.failed, got, c.want)
		}
	}
}

// A popup step with no page to name waits until its timeout and says so.
func TestPopupTabNoPage(t *testing.T) {
	res := runSite(t, `  - goto: ${serve.url}/opener.html
  - tab: {popup: nothing}
    timeout: 500ms
    optional: true
  - click: "#count"
`, nil)
	mustPass(t, res)
	st := res.Timeline.Steps[1]
	if st.Outcome == timeline.OutcomeOK || !strings.Contains(st.Error, "wait for tab main to open a page") || !strings.Contains(st.Error, "timeout 500ms") {
		t.Errorf("popup step with no page: %s %q", st.Outcome, st.Error)
	}
}

// The same in studio capture: the pages a tab opens in the headless shell
// draw on the virtual clock as the run's other tabs do.
func TestPopupTabsStudio(t *testing.T) {
	testenv.Need(t, shellName)
	res, take := runSiteTakeWith(t, popupSteps, nil, RunOptions{Studio: studioEndpoint(t)})
	mustPass(t, res)
	checkPopupTake(t, res, take)
}

// In a shared browser, a page the run's tab opened and a step named is
// the run's as a tab it opened is: recorded, leased while the run acts in
// it, and closed when the run gives it back; one that closed itself
// leaves no record behind.
func TestSharedRunLeasesThePageItsTabOpened(t *testing.T) {
	b, st := sharedBrowser(t)
	s := loadScript(t, `name: shared popup
steps:
  - goto: "data:text/html,<button onclick=\"window.open('').document.title = 'pop'\">open</button>"
  - click: button
  - tab: {popup: pop}
  - expect: {title: pop}
  - eval: "document.title = 'done'"
  - tab: stage
  - click: button
  - tab: {popup: gone}
  - eval: "window.close()"
  - tab: stage
`)
	seen := map[string]bool{}
	res, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Attach: b.Endpoint(),
		Leases: &LeaseOptions{Store: st, Label: "popup-run"},
		Progress: func(Progress) {
			rows, _ := st.List()
			for _, r := range rows {
				if r.Lease.Label == "popup-run" && r.Alive && st.Opened(r.Lease.Tab, b.ID()) {
					seen[r.Lease.Tab] = true
				}
			}
		}})
	if err != nil || res.Failed != nil {
		t.Fatalf("run: %v %v", err, res.Failed)
	}
	if len(seen) != 3 {
		t.Errorf("leased and recorded tabs seen during the run: %v, want main, pop and gone", seen)
	}
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left: %+v", rows)
	}
	// The records went with the leases, that of the page that closed
	// itself too.
	for id := range seen {
		if st.Opened(id, b.ID()) {
			t.Errorf("tab %s is still recorded as clapper's", id)
		}
	}
	for id := range seen {
		waitFor(t, "tab "+id+" closed", func() bool { _, open := pageByID(t, b, id); return !open })
	}
}
