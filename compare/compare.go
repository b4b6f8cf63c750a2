package compare

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// Options tune a comparison. The zero value takes the defaults.
type Options struct {
	// Tolerance is how far (of 255) a channel of a pixel may move before
	// the pixel counts as changed; 0 means DefaultTolerance.
	Tolerance int
	// MinRegion is the fewest changed pixels a changed region needs; 0
	// means DefaultMinRegion.
	MinRegion int
	// EveryFrame compares every frame of a step too, not only the
	// picture it left: a frame of the new take against the old take's
	// frame at the same time from the step's start.
	EveryFrame bool
	// MaxSlowdown, when above 0, makes a step that took longer than its
	// old self by more than this a failure (it is otherwise reported but
	// does not fail the comparison).
	MaxSlowdown time.Duration
}

// The defaults. Two studio takes of each of the quickstart, tour, qa-check
// and inputs samples (two runs of one script, nothing changed; compared
// with clapper diff --tolerance 1 --min-region 1) differed in no pixel at
// all (docs/internals.md, "Comparing takes: the noise"). The tolerance and the smallest region are margin for
// what that did not cover (live takes, a machine with other fonts or
// another Chromium, JPEG's noise at a lower quality); a word changed in a
// page's copy still changes hundreds of pixels by far more
// (TestDiffTwoRunsAndAChangedWord).
const (
	DefaultTolerance = 40
	DefaultMinRegion = 12
)

// What a finding is about.
const (
	FindingPicture   = "picture"
	FindingOutcome   = "outcome"
	FindingDuration  = "duration"
	FindingDocument  = "document"
	FindingConsole   = "console"
	FindingPageError = "page error"
	FindingRequest   = "request"
	FindingDialog    = "dialog"
	FindingAdded     = "added"
	FindingRemoved   = "removed"
)

// Finding is one thing that changed.
type Finding struct {
	What string `json:"what"`
	// Old and New are the step's index in each take (-1: not in it).
	Old int `json:"old"`
	New int `json:"new"`
	// Where the step is in the (new) script, and what it is.
	File  string `json:"file,omitempty"`
	Line  int    `json:"line"`
	Kind  string `json:"kind"`
	Label string `json:"label,omitempty"`
	// Message says what changed, in one line.
	Message string `json:"message"`
	// Fails is true when the finding fails the comparison (a slower step
	// only with Options.MaxSlowdown).
	Fails bool `json:"fails"`
	// A picture's: the share of pixels changed, the changed regions in
	// CSS pixels, and the frames compared (their sequence numbers).
	Changed  float64         `json:"changed,omitempty"`
	Regions  []timeline.Rect `json:"regions,omitempty"`
	OldFrame int64           `json:"old_frame,omitempty"`
	NewFrame int64           `json:"new_frame,omitempty"`
}

// Step is one pair of matched steps with the pictures they left.
type Step struct {
	Pair
	// OldFrame and NewFrame are the frames each step left on screen (-1:
	// none, or the step is not in that take).
	OldFrame int64 `json:"old_frame"`
	NewFrame int64 `json:"new_frame"`
	// Findings are the indexes into Result.Findings about this step.
	Findings []int `json:"findings,omitempty"`
}

// Result is a comparison of two takes.
type Result struct {
	Steps    []Step    `json:"steps"`
	Findings []Finding `json:"findings"`
	// Tolerance is the per-pixel tolerance the pictures were compared
	// with (Options.Tolerance, or its default).
	Tolerance int `json:"tolerance"`
}

// Fails reports whether any finding fails the comparison.
func (r *Result) Fails() bool {
	for _, f := range r.Findings {
		if f.Fails {
			return true
		}
	}
	return false
}

// Compare compares the new take with the old, step by step.
func Compare(old, new *timeline.Take, o Options) (*Result, error) {
	if o.Tolerance <= 0 {
		o.Tolerance = DefaultTolerance
	}
	if o.MinRegion <= 0 {
		o.MinRegion = DefaultMinRegion
	}
	c := &comparison{o: o, old: newSide(old), new: newSide(new), res: &Result{Tolerance: o.Tolerance}}
	if err := c.old.load(); err != nil {
		return nil, fmt.Errorf("old take: %w", err)
	}
	if err := c.new.load(); err != nil {
		return nil, fmt.Errorf("new take: %w", err)
	}
	pairs := matchSignatures(signatures(old.Timeline.Steps, c.old.norm), signatures(new.Timeline.Steps, c.new.norm))
	for _, p := range pairs {
		if err := c.pair(p); err != nil {
			return nil, err
		}
	}
	c.pageEvents()
	return c.res, nil
}

type comparison struct {
	o        Options
	old, new *side
	res      *Result
	// shown are the changed regions of the last picture compared, nil
	// when it did not change.
	shown []timeline.Rect
}

// coveredBy says whether every changed region of a lies within one of
// b's, each edge within regionSlack: the change a picture shows is all
// where the picture before it had changed already (the same change, the
// picture before it perhaps also caught mid-paint). Pure.
func coveredBy(a, b []timeline.Rect) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	for _, r := range a {
		in := false
		for _, o := range b {
			in = in || (r.X >= o.X-regionSlack && r.Y >= o.Y-regionSlack &&
				r.X+r.W <= o.X+o.W+regionSlack && r.Y+r.H <= o.Y+o.H+regionSlack)
		}
		if !in {
			return false
		}
	}
	return true
}

// regionSlack is how far (CSS px) a changed region's edge may move and
// still be the same change: a glyph's antialiasing moves an edge by one.
const regionSlack = 2

// add records a finding about the step at index i of the result's steps
// (-1: none).
func (c *comparison) add(i int, f Finding) {
	c.res.Findings = append(c.res.Findings, f)
	if i >= 0 {
		c.res.Steps[i].Findings = append(c.res.Steps[i].Findings, len(c.res.Findings)-1)
	}
}

// finding starts a finding about pair p, placed at its new step (its old
// one when removed).
func (c *comparison) finding(p Pair, what string) Finding {
	f := Finding{What: what, Old: p.Old, New: p.New}
	st := c.new.step(p.New)
	if p.New < 0 {
		st = c.old.step(p.Old)
	}
	f.File, f.Line, f.Kind, f.Label = st.File, st.Line, st.Kind, st.Label
	return f
}

// slower is how much longer than its old self a step must take to be
// reported: half as long again, and at least this.
const slower = 500 * time.Millisecond

func (c *comparison) pair(p Pair) error {
	i := len(c.res.Steps)
	c.res.Steps = append(c.res.Steps, Step{Pair: p, OldFrame: c.old.leftFrame(p.Old), NewFrame: c.new.leftFrame(p.New)})
	switch {
	case p.Old < 0:
		f := c.finding(p, FindingAdded)
		f.Message, f.Fails = "a step the old take does not have", true
		c.add(i, f)
		return nil
	case p.New < 0:
		f := c.finding(p, FindingRemoved)
		f.Message, f.Fails = "a step the new take does not have", true
		c.add(i, f)
		return nil
	}
	os, ns := c.old.step(p.Old), c.new.step(p.New)
	if os.Outcome != ns.Outcome || c.old.norm(os.Error) != c.new.norm(ns.Error) {
		f := c.finding(p, FindingOutcome)
		f.Message, f.Fails = fmt.Sprintf("was %s, is %s", describeOutcome(os, c.old), describeOutcome(ns, c.new)), true
		c.add(i, f)
	}
	od, nd := time.Duration(os.End-os.Start), time.Duration(ns.End-ns.Start)
	if nd-od > max(slower, od/2) {
		f := c.finding(p, FindingDuration)
		f.Message = fmt.Sprintf("took %s, was %s", round(nd), round(od))
		f.Fails = c.o.MaxSlowdown > 0 && nd-od > c.o.MaxSlowdown
		c.add(i, f)
	}
	if ou, nu := c.old.documents(p.Old), c.new.documents(p.New); strings.Join(ou, " ") != strings.Join(nu, " ") && !c.documentMoved(p) {
		f := c.finding(p, FindingDocument)
		f.Message, f.Fails = fmt.Sprintf("went to %s, was %s", listOr(nu, "no new document"), listOr(ou, "no new document")), true
		c.add(i, f)
	}
	return c.pictures(i, p)
}

// documentMoved says whether the documents of p's steps differ only by
// a commit counted in the step next to it: the same documents, in the
// same order, over the step and the one before or after, in both takes
// (a commit at the very moment one step ends and the next begins).
func (c *comparison) documentMoved(p Pair) bool {
	over := func(s *side, a, b int) string {
		return strings.Join(append(s.documents(a), s.documents(b)...), " ")
	}
	return over(c.old, p.Old-1, p.Old) == over(c.new, p.New-1, p.New) && p.Old > 0 && p.New > 0 ||
		over(c.old, p.Old, p.Old+1) == over(c.new, p.New, p.New+1)
}

// pictures compares the pictures the steps of p left (and with
// EveryFrame, their frames).
func (c *comparison) pictures(i int, p Pair) error {
	st := &c.res.Steps[i]
	if st.OldFrame < 0 || st.NewFrame < 0 {
		return nil
	}
	// A step that left the picture the step before it left in both takes
	// has nothing of its own to compare.
	if i > 0 {
		prev := c.res.Steps[i-1]
		if prev.OldFrame == st.OldFrame && prev.NewFrame == st.NewFrame {
			return nil
		}
	}
	f, err := c.picture(p, st.OldFrame, st.NewFrame)
	if err != nil {
		return err
	}
	// A change that stays as it was (a word changed in the copy, shown
	// step after step) is reported at the step that first showed it, also
	// when that step's picture differed in more places (it was caught
	// mid-paint in one take) and the next one's differences lie within
	// them.
	last := c.shown
	c.shown = nil
	if f != nil {
		// The same picture a frame or so apart is the page drawn at
		// another moment (a document's first paint a frame later on a
		// busy machine), not a change.
		apart, err := c.drawnApart(p, st.OldFrame, st.NewFrame)
		if err != nil {
			return err
		}
		if apart {
			f = nil
		}
	}
	if f != nil {
		// A new document's picture the page replaced before the next
		// step, which only waits or looks, left the same settled picture
		// in both takes: the page caught mid-paint (a first paint on a
		// busy machine). Or only one take's picture was replaced before
		// that step: that take caught it mid-paint, and the step after
		// compares the settled pictures.
		if c.passiveNext(p) {
			passing, err := c.settledAlike(p)
			if err != nil {
				return err
			}
			if !passing {
				if passing, err = c.caughtMidPaint(p); err != nil {
					return err
				}
			}
			if passing {
				f = nil
			}
		}
	}
	if f == nil {
		return nil
	}
	c.shown = f.Regions
	if last != nil && coveredBy(f.Regions, last) {
		return nil
	}
	f.Message = "the picture it left changed: " + f.Message
	c.add(i, *f)
	if !c.o.EveryFrame {
		return nil
	}
	os, ns := c.old.step(p.Old), c.new.step(p.New)
	for _, fr := range c.new.framesIn(ns) {
		oldSeq := c.old.frameAt(os.Start + (fr.Source - ns.Start))
		if oldSeq < 0 || fr.Seq == st.NewFrame {
			continue
		}
		f, err := c.picture(p, oldSeq, fr.Seq)
		if err != nil {
			return err
		}
		if f != nil {
			f.Message = fmt.Sprintf("a frame %s into it changed: %s", round(time.Duration(fr.Source-ns.Start)), f.Message)
			c.add(i, *f)
			break // the first frame that differs says enough
		}
	}
	return nil
}

// drawnApart says whether the new take's picture newSeq is one the old
// take showed near the step of p: from the step's start to the picture
// the step after it left, at most apartFrames frames either side of
// oldSeq.
func (c *comparison) drawnApart(p Pair, oldSeq, newSeq int64) (bool, error) {
	os := c.old.step(p.Old)
	from, to := os.Start, c.old.until(p.Old+1)
	k, ok := c.old.bySeq[oldSeq]
	if !ok {
		return false, nil
	}
	for d := 1; d <= apartFrames; d++ {
		for _, j := range []int{k - d, k + d} {
			if j < 0 || j >= len(c.old.frames) {
				continue
			}
			fr := c.old.frames[j]
			if fr.Source < from || fr.Source > to {
				continue
			}
			f, err := c.picture(p, fr.Seq, newSeq)
			if err != nil {
				return false, err
			}
			if f == nil {
				return true, nil
			}
		}
	}
	return false, nil
}

// settledAlike says whether, of the steps of p (passiveNext), the steps
// after them left pictures that do not differ: then what p's steps left
// was on its way to the same page.
func (c *comparison) settledAlike(p Pair) (bool, error) {
	oldSeq, newSeq := c.old.leftFrame(p.Old+1), c.new.leftFrame(p.New+1)
	next := Pair{Old: p.Old + 1, New: p.New + 1}
	f, err := c.picture(next, oldSeq, newSeq)
	return f == nil && err == nil, err
}

// passiveNext says whether the steps of p committed a document in both
// takes and the steps after them are the same step, one that changes
// nothing on the page and commits no document, and that left a picture
// in both.
func (c *comparison) passiveNext(p Pair) bool {
	if len(c.old.documents(p.Old)) == 0 || len(c.new.documents(p.New)) == 0 {
		return false
	}
	os, ns := c.old.step(p.Old+1), c.new.step(p.New+1)
	if os.Index < 0 || ns.Index < 0 || os.Kind != ns.Kind || os.Traits.ChangesPage || ns.Traits.ChangesPage ||
		len(c.old.documents(p.Old+1)) > 0 || len(c.new.documents(p.New+1)) > 0 {
		return false
	}
	return c.old.leftFrame(p.Old+1) >= 0 && c.new.leftFrame(p.New+1) >= 0
}

// caughtMidPaint says whether, of the steps of p (passiveNext), one take's
// left a picture that its next step, which only waits or looks, no longer
// shows, while the other take's stayed: that take caught the new page
// mid-paint, so the pictures p's steps left are not compared with each
// other (what differs there is partly the paint), and the step after,
// settled in both, compares what changed.
func (c *comparison) caughtMidPaint(p Pair) (bool, error) {
	masks := pictureMasks(c.old, c.new, p)
	moved := func(s *side, i int) (bool, error) {
		a, b := s.leftFrame(i), s.leftFrame(i+1)
		if a == b || a < 0 {
			return false, nil
		}
		x, err := s.image(a)
		if err != nil {
			return false, err
		}
		y, err := s.image(b)
		if err != nil {
			return false, err
		}
		return DiffPictures(x, y, masks, c.o.Tolerance, c.o.MinRegion).Differs(), nil
	}
	oldMoved, err := moved(c.old, p.Old)
	if err != nil {
		return false, err
	}
	newMoved, err := moved(c.new, p.New)
	if err != nil {
		return false, err
	}
	return oldMoved != newMoved, nil
}

// apartFrames bounds how far apart (in stored frames) the same picture is
// looked for.
const apartFrames = 3

// picture compares one frame of each take; nil when they do not differ.
func (c *comparison) picture(p Pair, oldSeq, newSeq int64) (*Finding, error) {
	a, err := c.old.image(oldSeq)
	if err != nil {
		return nil, err
	}
	b, err := c.new.image(newSeq)
	if err != nil {
		return nil, err
	}
	scale := c.new.scale()
	d := DiffPictures(a, b, pictureMasks(c.old, c.new, p), c.o.Tolerance, c.o.MinRegion)
	if !d.Differs() {
		return nil, nil
	}
	f := c.finding(p, FindingPicture)
	f.Fails, f.OldFrame, f.NewFrame, f.Changed = true, oldSeq, newSeq, d.Changed
	if d.Size {
		f.Message = fmt.Sprintf("its size is %dx%d, was %dx%d", b.Bounds().Dx(), b.Bounds().Dy(), a.Bounds().Dx(), a.Bounds().Dy())
		return &f, nil
	}
	for _, r := range d.Regions {
		f.Regions = append(f.Regions, toCSS(r, scale))
	}
	r := f.Regions[0]
	f.Message = fmt.Sprintf("%.2f%% of its pixels, in %d region%s, the largest at %.0f,%.0f (%.0fx%.0f)",
		100*d.Changed, len(d.Regions), plural(len(d.Regions)), r.X, r.Y, r.W, r.H)
	return &f, nil
}

func describeOutcome(st timeline.Step, s *side) string {
	if st.Outcome == timeline.OutcomeOK {
		return "ok"
	}
	msg, _, _ := strings.Cut(s.norm(st.Error), "\n")
	return fmt.Sprintf("%s (%s)", st.Outcome, msg)
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }

func listOr(l []string, none string) string {
	if len(l) == 0 {
		return none
	}
	return strings.Join(l, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// decodeJPEG decodes a frame's picture.
func decodeJPEG(b []byte) (image.Image, error) {
	return jpeg.Decode(bytes.NewReader(b))
}
