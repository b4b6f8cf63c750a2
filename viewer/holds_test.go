package viewer_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
	"github.com/clapper-dev/clapper/viewer"
)

// A take with a hold (the kept take with one added, from the start of
// step 2 to the end of step 5) shows it on a lane of its own as an
// interval; its mark seeks to the hold's start, and the frame carries the
// "tab held" tag while the time is inside the hold, not outside it.
func TestReportHoldsLane(t *testing.T) {
	testenv.Need(t, "chromium")
	tk, err := timeline.Open(keptTake)
	if err != nil {
		t.Fatal(err)
	}
	tl := tk.Timeline
	if len(tl.Holds) != 0 {
		t.Fatalf("the kept take has holds now (%+v): test those instead", tl.Holds)
	}
	start, end := tl.Steps[1].Start, tl.Steps[4].End
	tl.Holds = []timeline.Hold{{Tab: "main", Receipt: "r-hold", Start: start, End: end}}
	out := filepath.Join(t.TempDir(), "report.html")
	if _, err := viewer.Write(tk, out, viewer.Options{}); err != nil {
		t.Fatal(err)
	}
	tab, w := openTab(t)
	u := fileURL(out)
	load(t, tab, u)

	if got := eval[string](t, tab, `[...document.querySelectorAll("#lanes .lane .lab")].map(l => l.textContent).join(",")`); !strings.Contains(got, "holds") {
		t.Fatalf("lanes %q: no holds lane", got)
	}
	if n := eval[int](t, tab, `document.querySelectorAll("#lanes .mark.hold").length`); n != 1 {
		t.Fatalf("%d hold marks, want 1", n)
	}
	if tip := eval[string](t, tab, `document.querySelector("#lanes .mark.hold").title`); !strings.Contains(tip, "tab main held") {
		t.Errorf("hold mark titled %q", tip)
	}
	// An interval, not a point: as wide as the hold is long.
	dur := msOf(tl, tl.End)
	if tl.Capture.Ended > tl.End {
		dur = msOf(tl, tl.Capture.Ended)
	}
	width := eval[float64](t, tab, `document.querySelector("#lanes .mark.hold").getBoundingClientRect().width`)
	track := eval[float64](t, tab, `document.querySelector("#lanes .mark.hold").parentElement.getBoundingClientRect().width`)
	if want := track * (msOf(tl, end) - msOf(tl, start)) / dur; width < want*0.8 || width > want*1.2+2 || width < 4 {
		t.Errorf("hold mark %.1f px wide on a %.1f px track, want about %.1f", width, track, want)
	}
	if !eval[bool](t, tab, `document.getElementById("holdtag").hidden`) {
		t.Error("the held tag shows at the start of the take, before the hold")
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#lanes .mark.hold`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, fmt.Sprintf(`document.body.dataset.t === "%d" && !document.getElementById("holdtag").hidden`, int64(msOf(tl, start)+0.5)))
	// Past the hold's end, the tag goes.
	load(t, tab, u+fmt.Sprintf("#t=%.3f", (msOf(tl, end)+1)/1000))
	waitFor(t, tab, `document.getElementById("holdtag").hidden`)

	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.problems {
		t.Errorf("the page: %s", p)
	}
}
