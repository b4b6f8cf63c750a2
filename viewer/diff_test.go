package viewer

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/timeline"
)

// The synthetic takes of the diff report's tests: five steps at viewport
// 320×180, scale 2 (pictures of 640×360). The new take's second step
// shows a dark box the old one does not (and it stays at the steps after:
// one finding), its third step logs a console error whose text is markup,
// and its second step's label is markup too.
const (
	diffW, diffH, diffScale = 320, 180, 2
)

// diffChange is the box the new take draws, in CSS pixels.
var diffChange = timeline.Rect{X: 40, Y: 40, W: 60, H: 30}

const hostileError = `<img src=x onerror=alert(1)> & "quoted"`

func diffSteps() []timeline.Step {
	return []timeline.Step{
		{Kind: "goto", Target: "/"},
		{Kind: "click", Target: "#buy", Label: "<script>alert(2)</script> buy"},
		{Kind: "type", Target: "#name"},
		{Kind: "click", Target: "#next"},
		{Kind: "expect", Target: "done"},
	}
}

func diffPictures(changed bool) []*image.RGBA {
	var out []*image.RGBA
	for i := range diffSteps() {
		p := solidPicture(diffW*diffScale, diffH*diffScale, color.RGBA{250, 250, 250, 255})
		paintPicture(p, image.Rect(400, 300, 600, 340), color.RGBA{30, 60, 200, 255}) // in both
		if changed && i >= 1 {
			r := diffChange
			paintPicture(p, image.Rect(int(r.X*diffScale), int(r.Y*diffScale), int((r.X+r.W)*diffScale), int((r.Y+r.H)*diffScale)), color.RGBA{20, 20, 20, 255})
		}
		out = append(out, p)
	}
	return out
}

// diffTakes writes the old and the new synthetic take.
func diffTakes(t testing.TB) (old, new *timeline.Take) {
	t.Helper()
	old = writeTestTake(t, "old", diffPictures(false), diffSteps(), nil)
	new = writeTestTake(t, "new", diffPictures(true), diffSteps(), []timeline.PageEvent{
		{Kind: timeline.PageConsole, Level: "error", Text: hostileError, At: 2.2e9},
	})
	return old, new
}

func solidPicture(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	paintPicture(img, img.Rect, c)
	return img
}

func paintPicture(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// writeTestTake writes a take whose step i lasts from i s to i.9 s and
// leaves picture i (a frame at i.5 s), and opens it.
func writeTestTake(t testing.TB, name string, pics []*image.RGBA, sts []timeline.Step, page []timeline.PageEvent) *timeline.Take {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pics {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, p, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		fr := timeline.Frame{Seq: int64(i), Source: timeline.Time(int64(i)*int64(time.Second) + 5e8), Width: p.Rect.Dx(), Height: p.Rect.Dy(),
			Bytes: b.Len(), File: timeline.FramePath(int64(i))}
		fr.Received = fr.Source
		if err := os.WriteFile(filepath.Join(dir, fr.File), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := log.Append(fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range sts {
		sts[i].Index, sts[i].File, sts[i].Line = i, "shop.yaml", 4+2*i
		sts[i].Start, sts[i].End, sts[i].Outcome = timeline.Time(int64(i)*int64(time.Second)), timeline.Time(int64(i)*int64(time.Second)+9e8), timeline.OutcomeOK
	}
	n := int64(len(pics))
	tl := &timeline.Timeline{Name: "shop " + name, Script: "shop.yaml", Tool: "clapper test", Outcome: timeline.RunOK, Steps: sts,
		End:      timeline.Time(int64(len(sts)) * int64(time.Second)),
		Viewport: timeline.Viewport{Width: diffW, Height: diffH, Scale: diffScale},
		Clock:    timeline.Clock{Wall: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)},
		Receipts: []timeline.Receipt{}, Holds: []timeline.Hold{}, Page: &timeline.PageLog{Events: page}}
	tl.Capture.Frames = timeline.Accounting{Received: n, Delivered: n, Upstream: "unknown"}
	if err := timeline.WriteTimeline(dir, tl); err != nil {
		t.Fatal(err)
	}
	tk, err := timeline.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// The diff report of two small takes is one file: the findings first,
// their messages as text, a policy that admits only the report's own
// script and style (by hash) and no remote source, the pictures of the
// steps with findings and of the first and last step embedded, the
// changed region boxed in shares of the picture, and a line saying which
// pictures were left out.
func TestDiffReport(t *testing.T) {
	old, new := diffTakes(t)
	res, err := compare.Compare(old, new, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.What+": "+f.Message)
	}
	if len(res.Findings) != 2 || res.Findings[0].What != compare.FindingPicture || res.Findings[1].What != compare.FindingConsole {
		t.Fatalf("findings %q, want a picture and a console error", msgs)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "diff.html")
	if err := WriteDiffReport(out, old, new, res); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the report left %d files, want one: %v", len(ents), ents)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)

	// Text stays text.
	for _, f := range res.Findings {
		if !strings.Contains(page, html.EscapeString(f.Message)) {
			t.Errorf("the message %q is not in the report as text", f.Message)
		}
	}
	for _, bad := range []string{"<img src=x", "<script>alert(2)", "onerror=alert(1)>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the report holds %q as markup", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(2)&lt;/script&gt; buy") {
		t.Error("the step's label is not shown as text")
	}

	// The policy: the script and style by hash, nothing inline, nothing
	// remote.
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy")
	}
	csp := html.UnescapeString(m[1])
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "http:", "https:", "*", "'self'"} {
		if strings.Contains(csp, bad) {
			t.Errorf("the policy admits %s: %s", bad, csp)
		}
	}
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(page, -1)
	styles := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(page, -1)
	if len(scripts) != 1 || len(styles) != 1 {
		t.Fatalf("%d scripts and %d styles, want one of each", len(scripts), len(styles))
	}
	if !strings.Contains(csp, "script-src "+sha(scripts[0][1])+";") || !strings.Contains(csp, "style-src "+sha(styles[0][1])+";") {
		t.Errorf("the policy does not name the page's own script and style by hash: %s", csp)
	}
	if strings.Contains(page, " style=") || regexp.MustCompile(`<[a-z][^>]*\son[a-z]+=`).MatchString(page) {
		t.Error("the page has inline styles or handlers, which its policy refuses")
	}

	// Pictures: old, new and overlay for the two steps with findings and
	// the first and last step; none for the fourth, which is listed in a
	// line.
	if n := strings.Count(page, `src="data:image/jpeg;base64,`); n != 4*3 {
		t.Errorf("%d pictures embedded, want 12", n)
	}
	if strings.Contains(page, `src="http`) || strings.Contains(page, `src="file`) {
		t.Error("the report loads a picture from elsewhere")
	}
	if !strings.Contains(page, "the pictures of the 1 other step are left out") {
		t.Error("the report does not say which pictures it left out")
	}
	if !regexp.MustCompile(`<li id="step-3"><span class="n">step 4</span> <span class="k">click</span> <span class="lbl">#next</span> <span class="where">shop.yaml:10</span> <span class="same">no change</span>`).MatchString(page) {
		t.Error("the fourth step is not listed in a line")
	}

	// The findings come first, each a link to its step, and the region
	// is a box in shares of the picture.
	fi, si := strings.Index(page, `id="findings"`), strings.Index(page, `id="step-0"`)
	if fi < 0 || si < 0 || fi > si {
		t.Error("the findings do not come before the steps")
	}
	for _, a := range []string{`href="#step-1"`, `href="#step-2"`, `id="step-1"`, `id="step-2"`} {
		if !strings.Contains(page, a) {
			t.Errorf("no %s", a)
		}
	}
	r := res.Findings[0].Regions[0]
	if r.X > diffChange.X || r.X+r.W < diffChange.X+diffChange.W || r.W > diffChange.W+8 {
		t.Fatalf("region %+v, want about %+v", r, diffChange)
	}
	box := regexp.MustCompile(`<rect x="([0-9.]+)%" y="([0-9.]+)%" width="([0-9.]+)%" height="([0-9.]+)%">`).FindStringSubmatch(page)
	if box == nil || box[1] != pct(r.X, diffW)[:len(box[1])] || box[3] != pct(r.W, diffW)[:len(box[3])] || box[2] != pct(r.Y, diffH)[:len(box[2])] {
		t.Errorf("box %v, want the region %+v in shares of %dx%d", box, r, diffW, diffH)
	}
	for _, want := range []string{"shop old", "shop new", "2026-12-05 10:00:00 UTC", "clapper test", "5 steps compared: 2 findings, 2 failing", `class="badge fails"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the header does not show %q", want)
		}
	}

	// A small budget leaves the later steps' pictures out, and says so
	// (the first step's still come).
	if err := writeDiffReport(out, old, new, res, 1); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(out)
	if n := strings.Count(string(b), `src="data:image/jpeg;base64,`); n != 3 || !strings.Contains(string(b), "The pictures of 2 steps with findings are left out too") {
		t.Errorf("with a small budget: %d pictures; notes: %q", n, regexp.MustCompile(`<p class="note">[^<]*`).FindAllString(string(b), -1))
	}

	// Two takes that do not differ: no findings, and the report passes.
	same, err := compare.Compare(old, old, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteDiffReport(out, old, old, same); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(out)
	if !strings.Contains(string(b), "no differences in 5 steps") || !strings.Contains(string(b), `class="badge passes"`) {
		t.Error("the report of two equal takes does not pass")
	}
}
