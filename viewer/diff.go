package viewer

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/jpeg"
	"io"
	"os"
	"strconv"

	_ "embed"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/timeline"
)

//go:embed assets/diff.html
var diffHTML string

//go:embed assets/diff.css
var diffCSS string

//go:embed assets/diff.js
var diffJS string

// diffPage holds the diff report's templates: "head" (up to the steps),
// "step" (a step with its pictures), "quiet" (a run of steps shown in a
// line each) and "tail". html/template escapes every value by where it
// goes: a title or message from a take is text.
var diffPage = template.Must(template.New("diff").Parse(diffHTML))

// DiffPictureBudget bounds the frame bytes a diff report embeds (each
// step's old and new picture, and its overlay counted as big as the new
// one): past it, the pictures of the later steps are left out, and the
// report says so.
const DiffPictureBudget = DefaultEmbedBudget

// WriteDiffReport writes the report of res, the comparison of new with
// old (compare.Compare), to path: one HTML file that opens from file://.
// It lists the findings first, each linking to its step, then the steps:
// those with findings (and the first and the last) with the old and the
// new picture, the changed regions boxed over the new one, the changed
// pixels drawn over a dimmed copy of it and a slider that wipes from one
// to the other; the others in a line each. Pictures are embedded for
// those steps only, up to DiffPictureBudget. The file is written beside
// path and renamed into place.
func WriteDiffReport(path string, old, new *timeline.Take, res *compare.Result) error {
	return writeDiffReport(path, old, new, res, DiffPictureBudget)
}

func writeDiffReport(path string, old, new *timeline.Take, res *compare.Result, budget int64) error {
	r, err := newDiffReport(old, new, res, budget)
	if err != nil {
		return fmt.Errorf("write diff report: %w", err)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write diff report: %w", err)
	}
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(f, 256<<10)
	err = r.write(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("write diff report: %w", err)
	}
	return nil
}

// diffReport is a comparison on its way to the page.
type diffReport struct {
	old, new  *timeline.Take
	res       *compare.Result
	oldFrames map[int64]timeline.Frame
	newFrames map[int64]timeline.Frame
	// pictured are the steps (indexes into res.Steps) whose pictures are
	// embedded.
	pictured map[int]bool
	// stepOf is the step (index into res.Steps) of each finding, -1 for
	// none.
	stepOf []int
	// leftOut counts the steps with findings whose pictures did not fit;
	// quiet the steps listed in a line.
	leftOut, quiet int
	budget         int64
}

func newDiffReport(old, new *timeline.Take, res *compare.Result, budget int64) (*diffReport, error) {
	r := &diffReport{old: old, new: new, res: res, budget: budget, pictured: map[int]bool{}, stepOf: make([]int, len(res.Findings))}
	var err error
	if r.oldFrames, err = frameIndex(old); err != nil {
		return nil, fmt.Errorf("old take: %w", err)
	}
	if r.newFrames, err = frameIndex(new); err != nil {
		return nil, fmt.Errorf("new take: %w", err)
	}
	for k := range r.stepOf {
		r.stepOf[k] = -1
	}
	for i, st := range res.Steps {
		for _, k := range st.Findings {
			if k >= 0 && k < len(r.stepOf) {
				r.stepOf[k] = i
			}
		}
	}
	// The steps with findings, and the first and the last, in step order,
	// while their pictures fit the budget.
	var spent int64
	for i, st := range res.Steps {
		if len(st.Findings) == 0 && i != 0 && i != len(res.Steps)-1 {
			continue
		}
		var cost int64
		for _, p := range r.pairs(i) {
			cost += int64(r.oldFrames[p.old].Bytes) + 2*int64(r.newFrames[p.new].Bytes)
		}
		if spent+cost > budget && spent > 0 {
			if len(st.Findings) > 0 {
				r.leftOut++
			}
			continue
		}
		spent += cost
		r.pictured[i] = true
	}
	for i, st := range res.Steps {
		if len(st.Findings) == 0 && !r.pictured[i] {
			r.quiet++
		}
	}
	return r, nil
}

// frameIndex maps a take's frames by sequence number.
func frameIndex(tk *timeline.Take) (map[int64]timeline.Frame, error) {
	out := map[int64]timeline.Frame{}
	for fr, err := range tk.Frames() {
		if err != nil {
			return nil, err
		}
		out[fr.Seq] = fr
	}
	return out, nil
}

// framePair is two frames shown together (-1: none in that take) and the
// changed regions found between them (CSS pixels).
type framePair struct {
	old, new int64
	regions  []timeline.Rect
	// what says which frames they are when they are not the step's last.
	what string
}

// pairs are the frame pairs step i shows: the pictures it left, with the
// regions of the finding about them, then the frames of a finding that
// compared others (Options.EveryFrame).
func (r *diffReport) pairs(i int) []framePair {
	st := r.res.Steps[i]
	if st.OldFrame < 0 && st.NewFrame < 0 {
		return nil
	}
	out := []framePair{{old: st.OldFrame, new: st.NewFrame}}
	for _, k := range st.Findings {
		f := r.res.Findings[k]
		if f.What != compare.FindingPicture {
			continue
		}
		if f.OldFrame == st.OldFrame && f.NewFrame == st.NewFrame {
			out[0].regions = append(out[0].regions, f.Regions...)
			continue
		}
		out = append(out, framePair{old: f.OldFrame, new: f.NewFrame, regions: f.Regions, what: "a frame while it ran"})
	}
	return out
}

// Template data.

type diffHead struct {
	CSP      string
	Style    template.CSS
	Title    string
	Takes    []diffTake
	Summary  string
	Fails    bool
	Findings []diffFinding
	Notes    []string
}

type diffTake struct {
	Role, Name, Script, Recorded, Tool, Outcome, Viewport string
	Steps                                                 int
}

type diffFinding struct {
	// Anchor is the id of its step in the page, "" when it has none.
	Anchor, Step, Where, Kind, Label, What, Message string
	Fails                                           bool
}

type diffStep struct {
	Anchor, Step, Kind, Label, Where string
	Findings                         []diffFinding
	Pairs                            []diffPair
	// Same is true for a step without findings; Note says why no
	// pictures are shown.
	Same bool
	Note string
}

type diffPair struct {
	ID, What       string
	OldSeq, NewSeq int64
	// Old, New and Overlay are the pictures' src attributes.
	Old, New, Overlay      template.HTMLAttr
	OldMissing, NewMissing string
	Boxes                  []diffBox
	// Note says why there is no overlay.
	Note string
}

type diffBox struct {
	X, Y, W, H, Title string
}

type quietStep struct {
	Anchor, Step, Kind, Label, Where string
}

func (r *diffReport) write(w io.Writer) error {
	if err := diffPage.ExecuteTemplate(w, "head", r.head()); err != nil {
		return err
	}
	var quiet []quietStep
	flush := func() error {
		if len(quiet) == 0 {
			return nil
		}
		err := diffPage.ExecuteTemplate(w, "quiet", quiet)
		quiet = nil
		return err
	}
	for i := range r.res.Steps {
		st := r.res.Steps[i]
		if len(st.Findings) == 0 && !r.pictured[i] {
			s := r.stepFacts(i)
			quiet = append(quiet, quietStep{Anchor: s.Anchor, Step: s.Step, Kind: s.Kind, Label: s.Label, Where: s.Where})
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		s, err := r.step(i)
		if err != nil {
			return err
		}
		if err := diffPage.ExecuteTemplate(w, "step", s); err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return diffPage.ExecuteTemplate(w, "tail", template.JS(diffJS))
}

func (r *diffReport) head() diffHead {
	tl := r.new.Timeline
	h := diffHead{
		CSP: CSP(diffJS, diffCSS), Style: template.CSS(diffCSS),
		Title: tl.Name + " — clapper diff",
		Takes: []diffTake{takeFacts("old", r.old), takeFacts("new", r.new)},
		Fails: r.res.Fails(),
	}
	failing := 0
	for k, f := range r.res.Findings {
		h.Findings = append(h.Findings, r.finding(k))
		if f.Fails {
			failing++
		}
	}
	n, m := len(r.res.Steps), len(r.res.Findings)
	switch {
	case m == 0:
		h.Summary = fmt.Sprintf("no differences in %d step%s", n, plural(n))
	case failing == 0:
		h.Summary = fmt.Sprintf("%d step%s compared: %d finding%s, none that fails", n, plural(n), m, plural(m))
	default:
		h.Summary = fmt.Sprintf("%d step%s compared: %d finding%s, %d failing", n, plural(n), m, plural(m), failing)
	}
	if r.quiet > 0 {
		h.Notes = append(h.Notes, fmt.Sprintf("Pictures are embedded for the steps with findings and for the first and the last step; the pictures of the %d other step%s are left out (they are listed in a line each). A change that stays as it was is a finding only at the step that first showed it.", r.quiet, plural(r.quiet)))
	}
	if r.leftOut > 0 {
		h.Notes = append(h.Notes, fmt.Sprintf("The pictures of %d step%s with findings are left out too: the report embeds at most %s of pictures.", r.leftOut, plural(r.leftOut), megabytes(r.budget)))
	}
	return h
}

func takeFacts(role string, tk *timeline.Take) diffTake {
	tl := tk.Timeline
	d := diffTake{Role: role, Name: tl.Name, Script: tl.Script, Tool: tl.Tool, Outcome: string(tl.Outcome), Steps: len(tl.Steps),
		Viewport: fmt.Sprintf("%d×%d @%gx", tl.Viewport.Width, tl.Viewport.Height, tl.Viewport.Scale)}
	if !tl.Clock.Wall.IsZero() {
		d.Recorded = tl.Clock.Wall.UTC().Format("2006-01-02 15:04:05 MST")
	}
	return d
}

func (r *diffReport) finding(k int) diffFinding {
	f := r.res.Findings[k]
	d := diffFinding{Step: stepName(f.Old, f.New), Where: where(f.File, f.Line), Kind: f.Kind, Label: f.Label, What: f.What, Message: f.Message, Fails: f.Fails}
	if i := r.stepOf[k]; i >= 0 {
		d.Anchor = stepAnchor(i)
	}
	return d
}

// stepName is how clapper diff names a step: by its number in the new
// take, or in the old one for a step only it has.
func stepName(old, new int) string {
	switch {
	case new >= 0:
		return fmt.Sprintf("step %d", new+1)
	case old >= 0:
		return fmt.Sprintf("old step %d", old+1)
	}
	return "the page"
}

func where(file string, line int) string {
	switch {
	case file != "":
		return fmt.Sprintf("%s:%d", file, line)
	case line > 0:
		return fmt.Sprintf("line %d", line)
	}
	return ""
}

func stepAnchor(i int) string { return "step-" + strconv.Itoa(i) }

// stepFacts names result step i: its number, kind, label and place, from
// the new take (the old one for a step only it has).
func (r *diffReport) stepFacts(i int) diffStep {
	p := r.res.Steps[i]
	st, ok := stepOf(r.new.Timeline, p.New)
	if !ok {
		st, _ = stepOf(r.old.Timeline, p.Old)
	}
	label := st.Label
	if label == "" {
		label = st.Target
	}
	return diffStep{Anchor: stepAnchor(i), Step: stepName(p.Old, p.New), Kind: st.Kind, Label: label, Where: where(st.File, st.Line)}
}

func stepOf(tl *timeline.Timeline, i int) (timeline.Step, bool) {
	if i < 0 || i >= len(tl.Steps) {
		return timeline.Step{}, false
	}
	return tl.Steps[i], true
}

// step is result step i with its findings and (when pictured) its
// pictures, read, compared and encoded now: one step's pictures are in
// memory at a time.
func (r *diffReport) step(i int) (diffStep, error) {
	s := r.stepFacts(i)
	st := r.res.Steps[i]
	for _, k := range st.Findings {
		s.Findings = append(s.Findings, r.finding(k))
	}
	s.Same = len(st.Findings) == 0
	if !r.pictured[i] {
		s.Note = fmt.Sprintf("Pictures left out: the report embeds at most %s of them.", megabytes(r.budget))
		return s, nil
	}
	pairs := r.pairs(i)
	if len(pairs) == 0 {
		s.Note = "Neither take has a picture of this step."
	}
	for k, p := range pairs {
		dp, err := r.pair(st, p)
		if err != nil {
			return s, fmt.Errorf("%s: %w", s.Step, err)
		}
		dp.ID = fmt.Sprintf("p%d-%d", i, k)
		s.Pairs = append(s.Pairs, dp)
	}
	return s, nil
}

// pair reads and encodes one pair of pictures, its regions as boxes over
// the new one and its changed pixels as an overlay.
func (r *diffReport) pair(st compare.Step, p framePair) (diffPair, error) {
	d := diffPair{What: p.what, OldSeq: p.old, NewSeq: p.new}
	var a, b image.Image
	if p.old >= 0 {
		raw, img, err := readPicture(r.old, r.oldFrames, p.old)
		if err != nil {
			return d, fmt.Errorf("old take: %w", err)
		}
		d.Old, a = srcData(raw), img
	} else {
		d.OldMissing = "not in the old take"
	}
	if p.new >= 0 {
		raw, img, err := readPicture(r.new, r.newFrames, p.new)
		if err != nil {
			return d, fmt.Errorf("new take: %w", err)
		}
		d.New, b = srcData(raw), img
	} else {
		d.NewMissing = "not in the new take"
	}
	if a == nil || b == nil {
		return d, nil
	}
	tol := r.res.Tolerance
	if tol <= 0 {
		tol = compare.DefaultTolerance
	}
	changed := compare.ChangedPixels(a, b, compare.StepMasks(r.old, r.new, st), tol)
	if changed == nil {
		d.Note = fmt.Sprintf("The pictures are not the same size (%dx%d, was %dx%d): no overlay.", b.Bounds().Dx(), b.Bounds().Dy(), a.Bounds().Dx(), a.Bounds().Dy())
		return d, nil
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, compare.Overlay(b, changed), &jpeg.Options{Quality: 80}); err != nil {
		return d, err
	}
	d.Overlay = srcData(buf.Bytes())
	// Regions are in CSS pixels; the picture is the viewport times its
	// scale. A box placed in shares of the picture scales with it.
	scale := r.new.Timeline.Viewport.Scale
	if scale <= 0 {
		scale = 1
	}
	pw, ph := float64(b.Bounds().Dx())/scale, float64(b.Bounds().Dy())/scale
	for _, g := range p.regions {
		d.Boxes = append(d.Boxes, diffBox{
			X: pct(g.X, pw), Y: pct(g.Y, ph), W: pct(g.W, pw), H: pct(g.H, ph),
			Title: fmt.Sprintf("changed: %.0f,%.0f (%.0fx%.0f CSS px)", g.X, g.Y, g.W, g.H),
		})
	}
	return d, nil
}

func pct(v, of float64) string {
	return strconv.FormatFloat(100*v/of, 'f', 3, 64) + "%"
}

// readPicture reads frame seq of a take and decodes it.
func readPicture(tk *timeline.Take, frames map[int64]timeline.Frame, seq int64) ([]byte, image.Image, error) {
	fr, ok := frames[seq]
	if !ok {
		return nil, nil, fmt.Errorf("no frame %d", seq)
	}
	raw, err := tk.ReadFrame(fr)
	if err != nil {
		return nil, nil, err
	}
	img, err := decodeFrame(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("frame %d: %w", seq, err)
	}
	return raw, img, nil
}

// srcData is the src attribute of a picture embedded as a data: URI: an
// attribute written whole, since html/template would escape each + of the
// base64 as a character reference.
func srcData(jpg []byte) template.HTMLAttr {
	return template.HTMLAttr(`src="data:image/jpeg;base64,` + base64.StdEncoding.EncodeToString(jpg) + `"`)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func megabytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MB"
}
