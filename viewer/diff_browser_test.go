package viewer_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/viewer"
)

// The diff report of two small takes works in Chromium from file://: the
// changed region's box lies over the new picture where the region is, the
// slider wipes from the old picture to the new by keyboard, a finding's
// link goes to its step, and nothing breaks the policy or logs an error.
func TestDiffReportInChromium(t *testing.T) {
	testenv.Need(t, "chromium")
	old, new := viewer.DiffTakesForTest(t)
	res, err := compare.Compare(old, new, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || len(res.Findings[0].Regions) != 1 {
		t.Fatalf("findings %+v: want a picture finding with one region first", res.Findings)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "diff report.html")
	if err := viewer.WriteDiffReport(out, old, new, res); err != nil {
		t.Fatal(err)
	}
	tab, w := openTab(t)
	load(t, tab, fileURL(out))

	// The box over the new picture, where the region is: its share of
	// the viewport is its share of the picture as shown.
	waitFor(t, tab, `document.getElementById("p1-0-new").complete && document.getElementById("p1-0-new").naturalWidth === 640`)
	rects := eval[[]float64](t, tab, `(() => {
		const a = document.getElementById("p1-0-new").getBoundingClientRect();
		const b = document.querySelector("#step-1 .boxes rect").getBoundingClientRect();
		return [a.left, a.top, a.width, a.height, b.left, b.top, b.width, b.height];
	})()`)
	if len(rects) != 8 || rects[2] < 200 {
		t.Fatalf("the picture and box are laid out as %v", rects)
	}
	r, vp := res.Findings[0].Regions[0], viewer.DiffViewportForTest
	want := []float64{
		rects[0] + rects[2]*r.X/vp[0], rects[1] + rects[3]*r.Y/vp[1],
		rects[2] * r.W / vp[0], rects[3] * r.H / vp[1],
	}
	for k, name := range []string{"left", "top", "width", "height"} {
		if math.Abs(rects[4+k]-want[k]) > 2 {
			t.Errorf("the box's %s is %.1f px, want %.1f (picture %v, region %+v)", name, rects[4+k], want[k], rects[:4], r)
		}
	}
	if n := eval[int](t, tab, `document.querySelectorAll(".boxes rect").length`); n != 1 {
		t.Errorf("%d boxes, want 1", n)
	}

	// The wipe: shown by the script with the step's pictures, its line at
	// the slider's place; the arrow keys and End move it.
	wipe := `document.querySelector("#step-1 .wipe")`
	waitFor(t, tab, `!`+wipe+`.hidden && `+wipe+`.querySelector(".wnew").complete && `+wipe+`.querySelector(".wnew").naturalWidth === 640`)
	if !eval[bool](t, tab, wipe+`.querySelector(".wnew").src === document.getElementById("p1-0-new").src && `+wipe+`.querySelector(".wold").src === document.getElementById("p1-0-old").src`) {
		t.Error("the wipe does not show the step's pictures")
	}
	// lineAt is where the wipe's line is, in shares of its picture.
	lineAt := func() float64 {
		return eval[float64](t, tab, `(() => {
			const w = document.querySelector("#step-1 .wipe");
			const p = w.querySelector(".wold").getBoundingClientRect(), l = w.querySelector(".wline").getBoundingClientRect();
			return (l.left + l.width / 2 - p.left) / p.width;
		})()`)
	}
	if at := eval[string](t, tab, wipe+`.dataset.at`); at != "50" || math.Abs(lineAt()-0.5) > 0.01 {
		t.Errorf("the wipe opens at %s, its line at %.3f: want the middle", at, lineAt())
	}
	if err := chromedp.Do(tab, chromedp.Focus(chromedp.CSS(`#step-1 .wipe input`))); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := chromedp.Do(tab, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, tab, wipe+`.dataset.at === "55"`)
	if at := lineAt(); math.Abs(at-0.55) > 0.01 {
		t.Errorf("after five steps right the line is at %.3f, want 0.55", at)
	}
	if clip := eval[string](t, tab, `getComputedStyle(`+wipe+`.querySelector(".wnew")).clipPath`); clip != "inset(0px 0px 0px 55%)" {
		t.Errorf("the new picture is cut as %q, want from 55%%", clip)
	}
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Home)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, wipe+`.dataset.at === "0"`)
	if at := lineAt(); math.Abs(at) > 0.01 {
		t.Errorf("after Home the line is at %.3f, want 0 (all new)", at)
	}

	// A finding's link goes to its step.
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#findings li:nth-child(2) a`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, `location.hash === "#step-2" && Math.abs(document.getElementById("step-2").getBoundingClientRect().top) < 2`)
	body := eval[string](t, tab, `document.body.innerText`)
	for _, f := range res.Findings {
		if !strings.Contains(body, f.Message) {
			t.Errorf("the report does not show %q as text", f.Message)
		}
	}
	if n := eval[int](t, tab, `document.querySelectorAll("img[src=x], [onerror], script:not(:last-of-type)").length`); n != 0 {
		t.Errorf("%d elements came from the takes' text", n)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.problems {
		t.Errorf("the page: %s", p)
	}
	for _, r := range w.requests {
		if !strings.HasPrefix(r, "data:") && r != "about:blank" && r != fileURL(out) {
			t.Errorf("the report requested %s", r)
		}
	}
	if len(w.requests) == 0 {
		t.Error("no requests seen at all: is the network listener working?")
	}
}
