package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
// it, and closed when the run gives it back.
func TestSharedRunLeasesThePageItsTabOpened(t *testing.T) {
	b, st := sharedBrowser(t)
	s := loadScript(t, `name: shared popup
steps:
  - goto: "data:text/html,<button onclick=\"window.open('').document.title = 'pop'\">open</button>"
  - click: button
  - tab: {popup: pop}
  - expect: {title: pop}
  - eval: "document.title = 'done'"
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
	if len(seen) != 2 {
		t.Errorf("leased and recorded tabs seen during the run: %v, want main and pop", seen)
	}
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left: %+v", rows)
	}
	for id := range seen {
		waitFor(t, "tab "+id+" closed", func() bool { _, open := pageByID(t, b, id); return !open })
	}
}
