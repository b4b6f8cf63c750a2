package compare

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func steps(sigs ...string) []timeline.Step {
	var out []timeline.Step
	for i, s := range sigs {
		kind, target, _ := strings.Cut(s, " ")
		// As the language says: waits, expectations and pauses change
		// nothing on the page.
		passive := kind == "wait" || kind == "expect" || kind == "pause"
		out = append(out, timeline.Step{Index: i, Kind: kind, Target: target, Line: 10 + i, Traits: timeline.Traits{ChangesPage: !passive}})
	}
	return out
}

// Steps pair by what they are, in order: a step added or removed is
// reported as such, and the steps around it still pair, lines moved or
// not.
func TestMatchSteps(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new []timeline.Step
		want     []Pair
	}{
		{"same", steps("goto /", "click #a", "expect x"), steps("goto /", "click #a", "expect x"), []Pair{{0, 0}, {1, 1}, {2, 2}}},
		{"one added", steps("goto /", "click #a", "expect x"), steps("goto /", "click #a", "pause 1s", "expect x"), []Pair{{0, 0}, {1, 1}, {-1, 2}, {2, 3}}},
		{"one removed", steps("goto /", "click #a", "expect x"), steps("goto /", "expect x"), []Pair{{0, 0}, {1, -1}, {2, 1}}},
		{"one changed", steps("goto /", "click #a", "expect x"), steps("goto /", "click #b", "expect x"), []Pair{{0, 0}, {1, -1}, {-1, 1}, {2, 2}}},
		{"repeated steps", steps("click #a", "click #a", "click #a"), steps("click #a", "click #a"), []Pair{{0, 0}, {1, 1}, {2, -1}}},
		{"empty", nil, steps("goto /"), []Pair{{-1, 0}}},
	} {
		got := matchSteps(c.old, c.new)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	// Whatever the two lists, every step of each is in exactly one pair,
	// in order, and pairs join equal steps.
	rng := rand.New(rand.NewSource(1))
	kinds := []string{"click #a", "click #b", "type x", "expect y", "goto /"}
	for n := 0; n < 2000; n++ {
		var a, b []string
		for range rng.Intn(12) {
			a = append(a, kinds[rng.Intn(len(kinds))])
		}
		for range rng.Intn(12) {
			b = append(b, kinds[rng.Intn(len(kinds))])
		}
		old, new := steps(a...), steps(b...)
		ps := matchSteps(old, new)
		lastO, lastN := -1, -1
		for _, p := range ps {
			if p.Old >= 0 {
				if p.Old != lastO+1 {
					t.Fatalf("%v / %v: %v skips or repeats old steps", a, b, ps)
				}
				lastO = p.Old
			}
			if p.New >= 0 {
				if p.New != lastN+1 {
					t.Fatalf("%v / %v: %v skips or repeats new steps", a, b, ps)
				}
				lastN = p.New
			}
			if p.Old >= 0 && p.New >= 0 && signature(old[p.Old], same) != signature(new[p.New], same) {
				t.Fatalf("%v / %v: %v pairs unlike steps", a, b, ps)
			}
		}
		if lastO != len(a)-1 || lastN != len(b)-1 {
			t.Fatalf("%v / %v: %v leaves steps out", a, b, ps)
		}
	}
}

func solid(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	return img
}

func paint(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

var white, black, grey = color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}, color.RGBA{250, 248, 252, 255}

func TestDiffPictures(t *testing.T) {
	a := solid(200, 100, white)
	if d := DiffPictures(a, solid(200, 100, white), nil, DefaultTolerance, DefaultMinRegion); d.Differs() || d.Changed != 0 {
		t.Errorf("the same picture: %+v", d)
	}
	if d := DiffPictures(a, solid(200, 100, grey), nil, DefaultTolerance, DefaultMinRegion); d.Differs() {
		t.Errorf("a change under the tolerance: %+v", d)
	}
	// One word changed: one region, where it is.
	b := solid(200, 100, white)
	paint(b, image.Rect(50, 20, 80, 30), black)
	d := DiffPictures(a, b, nil, DefaultTolerance, DefaultMinRegion)
	if !d.Differs() || len(d.Regions) != 1 || !image.Rect(50, 20, 80, 30).In(d.Regions[0]) || d.Regions[0].Dx() > 40 || d.Regions[0].Dy() > 24 {
		t.Errorf("one change: %+v", d)
	}
	if want := 300.0 / 20000; d.Changed < want*0.99 || d.Changed > want*1.01 {
		t.Errorf("changed %v, want %v", d.Changed, want)
	}
	// Two changes far apart are two regions, the larger first.
	paint(b, image.Rect(150, 70, 190, 95), black)
	if d := DiffPictures(a, b, nil, DefaultTolerance, DefaultMinRegion); len(d.Regions) != 2 || !image.Rect(150, 70, 190, 95).In(d.Regions[0]) {
		t.Errorf("two changes: %+v", d.Regions)
	}
	// A mask leaves a change out.
	if d := DiffPictures(a, b, []image.Rectangle{image.Rect(140, 60, 200, 100)}, DefaultTolerance, DefaultMinRegion); len(d.Regions) != 1 {
		t.Errorf("a masked change: %+v", d.Regions)
	}
	// Scattered single pixels are noise.
	c := solid(200, 100, white)
	for i := 0; i < 8; i++ {
		c.SetRGBA(i*25, i*12, black)
	}
	if d := DiffPictures(a, c, nil, DefaultTolerance, DefaultMinRegion); d.Differs() {
		t.Errorf("scattered pixels: %+v", d)
	}
	if d := DiffPictures(a, solid(100, 100, white), nil, DefaultTolerance, DefaultMinRegion); !d.Size || !d.Differs() {
		t.Errorf("another size: %+v", d)
	}
}

// ChangedPixels marks the pixels DiffPictures counts, and Overlay draws
// them over a dimmed copy of the new picture, leaving it as it was.
func TestChangedPixelsAndOverlay(t *testing.T) {
	a, b := solid(200, 100, white), solid(200, 100, white)
	paint(b, image.Rect(50, 20, 80, 30), black)
	paint(b, image.Rect(150, 70, 190, 95), black)
	b.SetRGBA(5, 5, grey) // under the tolerance
	masks := []image.Rectangle{image.Rect(140, 60, 200, 100)}
	m := ChangedPixels(a, b, masks, DefaultTolerance)
	n := 0
	for y := 0; y < 100; y++ {
		for x := 0; x < 200; x++ {
			if m.AlphaAt(x, y).A != 0 {
				n++
				if !image.Pt(x, y).In(image.Rect(50, 20, 80, 30)) {
					t.Fatalf("pixel %d,%d marked", x, y)
				}
			}
		}
	}
	d := DiffPictures(a, b, masks, DefaultTolerance, DefaultMinRegion)
	if compared := 200*100 - 60*40; n != 300 || d.Changed != float64(n)/float64(compared) {
		t.Errorf("%d pixels marked, DiffPictures counts %v of %d", n, d.Changed, compared)
	}
	if ChangedPixels(a, solid(100, 100, white), nil, DefaultTolerance) != nil {
		t.Error("pictures of two sizes have a mark")
	}
	o := Overlay(b, m)
	if c := o.RGBAAt(60, 25); c.G != 0 || c.R < 200 {
		t.Errorf("a changed pixel is drawn %v", c)
	}
	if c := o.RGBAAt(10, 10); c.R != c.G || c.R > 128 {
		t.Errorf("an unchanged white pixel is drawn %v, want a dim grey", c)
	}
	if c := b.RGBAAt(60, 25); c != black {
		t.Errorf("the picture itself was drawn on: %v", c)
	}
}

// take writes a take of the given steps, each showing a picture, and
// opens it.
func take(t *testing.T, pics []*image.RGBA, sts []timeline.Step, page []timeline.PageEvent, bounds []timeline.Boundary) *timeline.Take {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "take")
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
		sts[i].Start, sts[i].End, sts[i].Outcome = timeline.Time(int64(i)*int64(time.Second)), timeline.Time(int64(i)*int64(time.Second)+9e8), cmpOr(sts[i].Outcome, timeline.OutcomeOK)
	}
	n := int64(len(pics))
	served := ""
	if len(bounds) > 0 && bounds[0].URL != nil {
		u := *bounds[0].URL
		served = u[:strings.LastIndex(u, "/")]
	}
	tl := &timeline.Timeline{Tool: "compare-test", Outcome: timeline.RunOK, Steps: sts, End: timeline.Time(int64(len(sts)) * int64(time.Second)),
		Viewport: timeline.Viewport{Width: pics[0].Rect.Dx(), Height: pics[0].Rect.Dy(), Scale: 1}, Served: served,
		Boundaries: bounds, Receipts: []timeline.Receipt{}, Holds: []timeline.Hold{}, Page: &timeline.PageLog{Events: page}}
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

func cmpOr(o, d timeline.Outcome) timeline.Outcome {
	if o == "" {
		return d
	}
	return o
}

// Two takes of one script: each kind of change is found at its step, and
// nothing else is.
func TestCompare(t *testing.T) {
	pics := func() []*image.RGBA {
		return []*image.RGBA{solid(160, 90, white), solid(160, 90, white), solid(160, 90, white)}
	}
	sts := func() []timeline.Step { return steps("goto /", "click #buy", "expect done") }
	url := func(s string) *string { return &s }
	old := take(t, pics(), sts(), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:4000/a.html")}})

	same := take(t, pics(), sts(), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:5000/a.html")}})
	if r, err := Compare(old, same, Options{}); err != nil || len(r.Findings) != 0 || r.Fails() {
		t.Fatalf("the same take on another port: %+v, %v", r, err)
	}
	// A step's target that names the sample site names it on each run's
	// own port: the steps still pair.
	withPort := func(port string) []timeline.Step {
		s := sts()
		s[0].Target = "http://127.0.0.1:" + port + "/a.html"
		return s
	}
	oldP := take(t, pics(), withPort("4000"), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:4000/a.html")}})
	newP := take(t, pics(), withPort("5000"), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:5000/a.html")}})
	if r, err := Compare(oldP, newP, Options{}); err != nil || len(r.Findings) != 0 || len(r.Steps) != 3 {
		t.Fatalf("a goto to the sample site on another port: %+v, %v", r, err)
	}

	p := pics()
	paint(p[1], image.Rect(20, 20, 50, 40), black)
	s := sts()
	s[2].Outcome, s[2].Error = timeline.OutcomeUndispatched, "expected text done"
	s[1].End = 0 // set below
	changed := take(t, p, s, []timeline.PageEvent{
		{Kind: timeline.PageConsole, Level: "error", Text: "boom at 1234", At: 1.2e9},
		{Kind: timeline.PageRequest, Method: "GET", URL: "http://127.0.0.1:5000/api", Status: 404, At: 2.1e9},
	}, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:5000/b.html")}})
	changed.Timeline.Steps[1].End = changed.Timeline.Steps[1].Start + timeline.Time(2*time.Second)
	r, err := Compare(old, changed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range r.Findings {
		got[f.What] = f.New
	}
	want := map[string]int{FindingDocument: 0, FindingPicture: 1, FindingDuration: 1, FindingConsole: 1, FindingOutcome: 2, FindingRequest: 2}
	for what, step := range want {
		if s, ok := got[what]; !ok || s != step {
			t.Errorf("%s: found at step %v (%v), want step %d", what, s, ok, step)
		}
	}
	if len(r.Findings) != len(want) {
		for _, f := range r.Findings {
			t.Logf("%s at %d: %s", f.What, f.New, f.Message)
		}
		t.Errorf("%d findings, want %d", len(r.Findings), len(want))
	}
	for _, f := range r.Findings {
		if f.What == FindingDuration && f.Fails {
			t.Error("a slower step fails without MaxSlowdown")
		}
		if f.What == FindingPicture && (len(f.Regions) != 1 || f.Regions[0].X > 20 || f.Regions[0].X+f.Regions[0].W < 50) {
			t.Errorf("picture regions %+v", f.Regions)
		}
	}
	if !r.Fails() {
		t.Error("the comparison does not fail")
	}
	if r, _ := Compare(old, changed, Options{MaxSlowdown: time.Second}); !durationFails(r) {
		t.Error("with MaxSlowdown the slower step does not fail")
	}

	// A change that stays (a word changed in the copy, shown at every
	// step) is reported once, at the step that first showed it; one that
	// moves is reported again.
	stay := func(boxes ...image.Rectangle) []*image.RGBA {
		p := pics()
		for i, r := range boxes {
			paint(p[1+i], r, black)
		}
		paint(p[2], image.Rect(120, 60, 150, 80), black) // step 3 draws something new in both
		return p
	}
	base := take(t, stay(), sts(), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:4000/a.html")}})
	kept := take(t, stay(image.Rect(20, 20, 50, 40), image.Rect(20, 20, 50, 40)), sts(), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:4000/a.html")}})
	if r, _ := Compare(base, kept, Options{}); len(r.Findings) != 1 || r.Findings[0].New != 1 {
		t.Errorf("a change that stays: %+v, want one finding at step 1", r.Findings)
	}
	// The first picture differed in more places (one take caught it
	// mid-paint); the next one's differences lie within them: the same
	// change, reported once.
	shrunk := take(t, stay(image.Rect(20, 20, 90, 40), image.Rect(30, 24, 50, 36)), sts(), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:4000/a.html")}})
	if r, _ := Compare(base, shrunk, Options{}); len(r.Findings) != 1 || r.Findings[0].New != 1 {
		t.Errorf("a change within the one before: %+v, want one finding at step 1", r.Findings)
	}
	moved := take(t, stay(image.Rect(20, 20, 50, 40), image.Rect(60, 20, 90, 40)), sts(), nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:4000/a.html")}})
	if r, _ := Compare(base, moved, Options{}); len(r.Findings) != 2 {
		t.Errorf("a change that moves: %+v, want a finding at each step", r.Findings)
	}

	// A mask recorded by the step leaves a region out.
	p = pics()
	paint(p[1], image.Rect(20, 20, 50, 40), black)
	s = sts()
	s[1].Masks = []timeline.Rect{{X: 10, Y: 10, W: 60, H: 40}}
	masked := take(t, p, s, nil, []timeline.Boundary{{Document: 1, At: 1e8, URL: url("http://127.0.0.1:4000/a.html")}})
	r, _ = Compare(old, masked, Options{})
	if len(r.Findings) != 0 {
		t.Errorf("a masked change: %+v", r.Findings)
	}
	if m := StepMasks(old, masked, r.Steps[1]); len(m) != 1 || m[0] != image.Rect(10, 10, 70, 50) {
		t.Errorf("the step's masks: %v", m)
	}
}

func durationFails(r *Result) bool {
	for _, f := range r.Findings {
		if f.What == FindingDuration {
			return f.Fails
		}
	}
	return false
}

// A step that ends after a new document committed but before it drew
// (a wait that saw its text first) left that document's first frame.
func TestLeftFrameWaitsForTheNewDocument(t *testing.T) {
	ms := func(n int64) timeline.Time { return timeline.Time(n * int64(time.Millisecond)) }
	s := &side{tl: &timeline.Timeline{
		Steps: []timeline.Step{{Kind: "click", Start: 0, End: ms(100), Traits: timeline.Traits{ChangesPage: true}}, {Kind: "wait", Start: ms(100), End: ms(130)},
			{Kind: "select", Start: ms(130), End: ms(200), Traits: timeline.Traits{ChangesPage: true}}},
		Boundaries: []timeline.Boundary{{Document: 1, At: ms(10)}, {Document: 2, At: ms(100)}},
		End:        ms(300),
	}, frames: []timeline.Frame{{Seq: 0, Document: 1, Source: ms(20)}, {Seq: 1, Document: 1, Source: ms(90)}, {Seq: 2, Document: 2, Source: ms(160)}, {Seq: 3, Document: 2, Source: ms(250)}}}
	s.bySeq = map[int64]int{0: 0, 1: 1, 2: 2, 3: 3}
	// The click's picture is taken when the wait starts: the new document
	// has committed, and its first frame is what the click and the wait
	// left; the last step, the frame on screen at the end.
	for i, want := range []int64{2, 2, 3} {
		if got := s.leftFrame(i); got != want {
			t.Errorf("step %d left frame %d, want %d", i, got, want)
		}
	}
	// A document that never drew: the frame on screen stands.
	s.frames, s.bySeq = s.frames[:2], map[int64]int{0: 0, 1: 1}
	if got := s.leftFrame(1); got != 1 {
		t.Errorf("with no frame of the new document: %d, want 1", got)
	}
}

// The same picture a frame apart, within the step and the next, is the
// page drawn at another moment; a picture the old take never showed near
// the step is a change, and so is the old take's picture from before the
// step (the step did nothing visible).
func TestDrawnApart(t *testing.T) {
	a, b := image.Rect(20, 20, 50, 40), image.Rect(80, 20, 110, 40)
	pic := func(boxes ...image.Rectangle) *image.RGBA {
		p := solid(160, 90, white)
		for _, r := range boxes {
			paint(p, r, black)
		}
		return p
	}
	sts := func() []timeline.Step { return steps("goto /", "click #a", "click #b") }
	old := take(t, []*image.RGBA{pic(), pic(a), pic(a, b)}, sts(), nil, nil)
	early := take(t, []*image.RGBA{pic(), pic(a, b), pic(a, b)}, sts(), nil, nil)
	if r, err := Compare(old, early, Options{}); err != nil || len(r.Findings) != 0 {
		t.Errorf("drawn a frame early: %+v, %v", r.Findings, err)
	}
	other := take(t, []*image.RGBA{pic(), pic(b), pic(a, b)}, sts(), nil, nil)
	if r, _ := Compare(old, other, Options{}); len(r.Findings) != 1 || r.Findings[0].New != 1 {
		t.Errorf("a picture never shown: %+v, want one finding at step 1", r.Findings)
	}
	nothing := take(t, []*image.RGBA{pic(), pic(), pic(a, b)}, sts(), nil, nil)
	if r, _ := Compare(old, nothing, Options{}); len(r.Findings) != 1 || r.Findings[0].New != 1 {
		t.Errorf("a step that drew nothing: %+v, want one finding at step 1", r.Findings)
	}
}

// A commit at the very moment one step ends and the next begins may be
// counted in either: the same documents over the two steps are no change;
// a document gone or new is.
func TestDocumentCountedInTheNextStep(t *testing.T) {
	url := func(s string) *string { return &s }
	pics := []*image.RGBA{solid(160, 90, white), solid(160, 90, white), solid(160, 90, white)}
	sts := func() []timeline.Step { return steps("click #next", "wait done", "select #plan") }
	at := func(ms int64, u string) []timeline.Boundary {
		return []timeline.Boundary{{Document: 1, At: timeline.Time(ms * int64(time.Millisecond)), URL: url("http://127.0.0.1:4000/" + u)}}
	}
	old := take(t, pics, sts(), nil, at(1200, "pricing.html"))   // in the wait
	moved := take(t, pics, sts(), nil, at(2000, "pricing.html")) // as the select begins
	if r, _ := Compare(old, moved, Options{}); len(r.Findings) != 0 {
		t.Errorf("a commit counted in the next step: %+v", r.Findings)
	}
	other := take(t, pics, sts(), nil, at(2000, "billing.html"))
	if r, _ := Compare(old, other, Options{}); len(r.Findings) == 0 {
		t.Error("a document that is another is no finding")
	}
}

// A new document's picture the page replaced before a step that only
// waits, which left the same picture in both takes, was the page caught
// mid-paint: no finding. The same picture before a step that acts, or one
// that stays, is a change.
func TestCaughtMidPaint(t *testing.T) {
	a, b, c := image.Rect(20, 20, 50, 40), image.Rect(80, 20, 110, 40), image.Rect(20, 50, 50, 70)
	pic := func(boxes ...image.Rectangle) *image.RGBA {
		p := solid(160, 90, white)
		for _, r := range boxes {
			paint(p, r, black)
		}
		return p
	}
	url := "http://127.0.0.1:4000/index.html"
	doc := []timeline.Boundary{{Document: 1, At: 1e8, URL: &url}}
	waits := func() []timeline.Step { return steps("goto /", "wait Welcome", "click #b") }
	old := take(t, []*image.RGBA{pic(a), pic(a), pic(a, b)}, waits(), nil, doc)
	midPaint := take(t, []*image.RGBA{pic(c), pic(a), pic(a, b)}, waits(), nil, doc)
	if r, err := Compare(old, midPaint, Options{}); err != nil || len(r.Findings) != 0 {
		t.Errorf("caught mid-paint before a wait: %+v, %v", r.Findings, err)
	}
	stays := take(t, []*image.RGBA{pic(c), pic(c), pic(a, b)}, waits(), nil, doc)
	if r, _ := Compare(old, stays, Options{}); len(r.Findings) != 1 || r.Findings[0].New != 0 {
		t.Errorf("a change that stays: %+v, want one finding at step 0", r.Findings)
	}
	// One take caught mid-paint, or blank, and the copy changed too: the
	// change is reported once, where both takes had settled, with the
	// changed word's region alone.
	word, newWord := image.Rect(20, 60, 60, 70), image.Rect(20, 60, 40, 70)
	for _, first := range []*image.RGBA{pic(c), pic()} {
		caught := take(t, []*image.RGBA{first, pic(a, word), pic(a, b, word)}, waits(), nil, doc)
		changed := take(t, []*image.RGBA{pic(a, newWord), pic(a, newWord), pic(a, b, newWord)}, waits(), nil, doc)
		r, _ := Compare(caught, changed, Options{})
		if len(r.Findings) != 1 || r.Findings[0].New != 1 || len(r.Findings[0].Regions) != 1 || r.Findings[0].Regions[0].Y < 50 {
			t.Errorf("one take caught mid-paint, the copy changed: %+v, want one finding at step 1 around the word", r.Findings)
		}
	}
	acts := func() []timeline.Step { return steps("goto /", "click #a", "click #b") }
	oldActs := take(t, []*image.RGBA{pic(a), pic(a), pic(a, b)}, acts(), nil, doc)
	beforeClick := take(t, []*image.RGBA{pic(c), pic(a), pic(a, b)}, acts(), nil, doc)
	if r, _ := Compare(oldActs, beforeClick, Options{}); len(r.Findings) != 1 || r.Findings[0].New != 0 {
		t.Errorf("a picture a click replaced: %+v, want one finding at step 0", r.Findings)
	}
}

// coveredBy: every region of the first within one of the second's, give
// or take regionSlack.
func TestCoveredBy(t *testing.T) {
	r := func(x, y, w, h float64) timeline.Rect { return timeline.Rect{X: x, Y: y, W: w, H: h} }
	big := []timeline.Rect{r(280, 216, 512, 32), r(48, 16, 168, 40)}
	for _, c := range []struct {
		name string
		a, b []timeline.Rect
		want bool
	}{
		{"the word's pieces within its line", []timeline.Rect{r(440, 216, 128, 24), r(664, 216, 72, 32), r(608, 224, 32, 16)}, big, true},
		{"an edge a pixel out", []timeline.Rect{r(279, 215, 514, 34)}, big, true},
		{"an edge three pixels out", []timeline.Rect{r(277, 216, 100, 24)}, big, false},
		{"one region elsewhere", []timeline.Rect{r(440, 216, 128, 24), r(900, 400, 10, 10)}, big, false},
		{"nothing before", []timeline.Rect{r(440, 216, 128, 24)}, nil, false},
		{"no change", nil, big, false},
	} {
		if got := coveredBy(c.a, c.b); got != c.want {
			t.Errorf("%s: coveredBy = %v, want %v", c.name, got, c.want)
		}
	}
}

// Each boundary belongs to the step that made it: a commit to the step
// that can change the page and ended at its instant (a studio goto can
// take no page time: it ends at the instant the step after it starts),
// else to the step running then; a film of another tab to the step that
// began it. Pure.
func TestBoundaryOwners(t *testing.T) {
	ms := func(n int) timeline.Time { return timeline.Time(n) * timeline.Time(time.Millisecond) }
	step := func(kind string, from, to int) timeline.Step {
		changes := kind == "goto" || kind == "click" || kind == "tab"
		return timeline.Step{Kind: kind, Start: ms(from), End: ms(to), Traits: timeline.Traits{ChangesPage: changes}}
	}
	type at struct {
		ms  int
		tab string
	}
	for _, c := range []struct {
		name  string
		steps []timeline.Step
		at    []at
		want  []int
	}{
		{"a goto first", []timeline.Step{step("goto", 41, 41), step("expect", 41, 83), step("pause", 83, 416)}, []at{{41, ""}}, []int{0}},
		{"a goto after an expect", []timeline.Step{step("goto", 0, 41), step("expect", 41, 41), step("goto", 41, 41), step("pause", 41, 300)}, []at{{20, ""}, {41, ""}}, []int{0, 2}},
		{"a click's commit as it ends", []timeline.Step{step("click", 0, 83), step("expect", 83, 120)}, []at{{83, ""}}, []int{0}},
		{"between steps", []timeline.Step{step("click", 0, 50), step("pause", 80, 120)}, []at{{60, ""}}, []int{0}},
		{"a goto, then a click", []timeline.Step{step("goto", 41, 41), step("click", 41, 83), step("pause", 83, 100)}, []at{{41, ""}}, []int{0}},
		{"a tab step, then a click", []timeline.Step{step("tab", 41, 41), step("click", 41, 90)}, []at{{41, ""}}, []int{0}},
		{"a film of another tab", []timeline.Step{step("click", 0, 50), step("film", 50, 70), step("expect", 70, 100)}, []at{{10, "a"}, {50, "b"}}, []int{0, 1}},
		{"two gotos at one instant", []timeline.Step{step("goto", 41, 41), step("goto", 41, 41), step("pause", 41, 100)}, []at{{41, ""}, {41, ""}}, []int{0, 1}},
		{"before the first step, after the last", []timeline.Step{step("goto", 10, 50)}, []at{{0, ""}, {70, ""}}, []int{-1, 0}},
		{"a wait as the page goes on its own", []timeline.Step{step("wait", 0, 50), step("expect", 50, 80)}, []at{{50, ""}}, []int{1}},
		{"a commit mid-step", []timeline.Step{step("goto", 0, 500), step("expect", 500, 600)}, []at{{300, ""}}, []int{0}},
		{"a goto that commits as it begins", []timeline.Step{step("click", 0, 41), step("goto", 41, 83), step("expect", 83, 100)}, []at{{41, ""}}, []int{1}},
		{"the same, a frame later", []timeline.Step{step("click", 0, 41), step("goto", 41, 83), step("expect", 83, 100)}, []at{{58, ""}}, []int{1}},
		{"two gotos, the first's commit earlier", []timeline.Step{step("goto", 0, 41), step("goto", 41, 41), step("pause", 41, 100)}, []at{{20, ""}, {41, ""}}, []int{0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var bs []timeline.Boundary
			for k, a := range c.at {
				bs = append(bs, timeline.Boundary{Document: k + 1, At: ms(a.ms), Tab: a.tab})
			}
			if got := boundaryOwners(c.steps, bs); !slices.Equal(got, c.want) {
				t.Errorf("owners %v, want %v", got, c.want)
			}
		})
	}
}

// After a goto that took no page time and was not the take's first step,
// the steps before it left the old page and the goto the new one: it owns
// its document, so the mid-paint rules apply to its picture.
func TestLeftFrameAfterAnInstantGoto(t *testing.T) {
	ms := func(n int) timeline.Time { return timeline.Time(n) * timeline.Time(time.Millisecond) }
	a, b := "http://127.0.0.1:4000/a.html", "http://127.0.0.1:4000/b.html"
	steps := func() []timeline.Step {
		return []timeline.Step{
			{Index: 0, Kind: "goto", Start: 0, End: ms(41), Traits: timeline.Traits{ChangesPage: true}, Outcome: timeline.OutcomeOK},
			{Index: 1, Kind: "expect", Start: ms(41), End: ms(41), Traits: timeline.Traits{Waits: true}, Outcome: timeline.OutcomeOK},
			{Index: 2, Kind: "goto", Start: ms(41), End: ms(41), Traits: timeline.Traits{ChangesPage: true}, Outcome: timeline.OutcomeOK},
			{Index: 3, Kind: "pause", Start: ms(41), End: ms(300), Traits: timeline.Traits{Presentation: true}, Outcome: timeline.OutcomeOK},
		}
	}
	bounds := []timeline.Boundary{{Document: 1, At: ms(20), URL: &a}, {Document: 2, At: ms(41), URL: &b}}
	s := &side{tl: &timeline.Timeline{Steps: steps(), Boundaries: bounds, End: ms(300)},
		frames: []timeline.Frame{{Seq: 0, Document: 1, Source: ms(30)}, {Seq: 1, Document: 2, Source: ms(57)}, {Seq: 2, Document: 2, Source: ms(200)}}}
	s.bySeq = map[int64]int{0: 0, 1: 1, 2: 2}
	// The first goto and the expect left page a; the second goto the
	// first frame of page b.
	for i, want := range []int64{0, 0, 1, 2} {
		if got := s.leftFrame(i); got != want {
			t.Errorf("step %d left frame %d, want %d", i, got, want)
		}
	}
}

// A document belongs to the step that committed it: a goto that took no
// page time (studio) commits at the instant it ends, which is when the
// step after it starts and the one before it ended.
func TestDocumentsOfAnInstantGoto(t *testing.T) {
	ms := func(n int) timeline.Time { return timeline.Time(n) * timeline.Time(time.Millisecond) }
	step := func(kind string, from, to int) timeline.Step {
		changes := kind == "goto" || kind == "click"
		return timeline.Step{Kind: kind, Start: ms(from), End: ms(to), Traits: timeline.Traits{ChangesPage: changes}}
	}
	a, b := "http://127.0.0.1:4000/a.html", "http://127.0.0.1:4000/b.html"
	for _, c := range []struct {
		name  string
		steps []timeline.Step
		at    []int
		want  []string // each step's documents, joined
	}{
		{"a goto first", []timeline.Step{step("goto", 41, 41), step("expect", 41, 83), step("pause", 83, 416)}, []int{41}, []string{a, "", ""}},
		{"a goto after an expect", []timeline.Step{step("goto", 0, 41), step("expect", 41, 41), step("goto", 41, 41), step("pause", 41, 300)}, []int{20, 41}, []string{a, "", b, ""}},
		{"a click's commit as it ends", []timeline.Step{step("click", 0, 83), step("expect", 83, 120)}, []int{83}, []string{a, ""}},
		{"between steps", []timeline.Step{step("click", 0, 50), step("pause", 80, 120)}, []int{60}, []string{a, ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var bs []timeline.Boundary
			for k, at := range c.at {
				u := []string{a, b}[k]
				bs = append(bs, timeline.Boundary{Document: k + 1, At: ms(at), URL: &u})
			}
			s := newSide(&timeline.Take{Timeline: &timeline.Timeline{Steps: c.steps, Boundaries: bs, End: ms(500)}})
			for i, want := range c.want {
				if got := strings.Join(s.documents(i), " "); got != want {
					t.Errorf("step %d (%s): %q, want %q", i, c.steps[i].Kind, got, want)
				}
			}
		})
	}
}

// A page event belongs to the step that can have caused it at its
// instant, as a commit does: what a studio goto's page loads at the
// instant the goto ends is the goto's, not the next step's.
func TestEventStep(t *testing.T) {
	ms := func(n int) timeline.Time { return timeline.Time(n) * timeline.Time(time.Millisecond) }
	step := func(kind string, from, to int) timeline.Step {
		changes := kind == "goto" || kind == "click"
		return timeline.Step{Kind: kind, Start: ms(from), End: ms(to), Traits: timeline.Traits{ChangesPage: changes}}
	}
	for _, c := range []struct {
		name  string
		steps []timeline.Step
		at    int
		want  int
	}{
		{"a goto that took no page time", []timeline.Step{step("goto", 41, 41), step("expect", 41, 83)}, 41, 0},
		{"a click as it ends", []timeline.Step{step("click", 0, 83), step("expect", 83, 100)}, 83, 0},
		{"a wait as the page goes on its own", []timeline.Step{step("wait", 0, 50), step("expect", 50, 80)}, 50, 1},
		{"mid-step", []timeline.Step{step("goto", 0, 41), step("expect", 41, 83)}, 60, 1},
		{"before the first step", []timeline.Step{step("goto", 10, 41)}, 5, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSide(&timeline.Take{Timeline: &timeline.Timeline{Steps: c.steps, End: ms(500)}})
			if got := s.eventStep(ms(c.at)); got != c.want {
				t.Errorf("step %d, want %d", got, c.want)
			}
		})
	}
}
