package compare

import (
	"fmt"
	"image"
	"slices"
	"sort"
	"strings"

	"github.com/clapper-dev/clapper/timeline"
)

// side is one take of a comparison, read once: its steps, its frames in
// time order, and the pictures decoded so far (the last few).
type side struct {
	tk     *timeline.Take
	tl     *timeline.Timeline
	frames []timeline.Frame
	bySeq  map[int64]int // index into frames
	cache  map[int64]image.Image
	order  []int64
	byStep map[int][]int // each step's boundaries (owners)
	upTo   []int         // the last document by each step (owners)
}

func newSide(tk *timeline.Take) *side {
	return &side{tk: tk, tl: tk.Timeline, cache: map[int64]image.Image{}}
}

// load reads the frame index.
func (s *side) load() error {
	for fr, err := range s.tk.Frames() {
		if err != nil {
			return err
		}
		s.frames = append(s.frames, fr)
	}
	sort.SliceStable(s.frames, func(i, j int) bool { return s.frames[i].Source < s.frames[j].Source })
	s.bySeq = make(map[int64]int, len(s.frames))
	for i, fr := range s.frames {
		s.bySeq[fr.Seq] = i
	}
	return nil
}

func (s *side) step(i int) timeline.Step {
	if i < 0 || i >= len(s.tl.Steps) {
		return timeline.Step{Index: -1}
	}
	return s.tl.Steps[i]
}

// until is when step i's picture is taken: the next step's start (a
// picture of the settled page taken after the step counts), or the take's
// end for the last step.
func (s *side) until(i int) timeline.Time {
	if i+1 < len(s.tl.Steps) {
		return s.tl.Steps[i+1].Start
	}
	return max(s.tl.End, s.step(i).End)
}

// frameAt is the frame on screen at t: the last at or before it (-1:
// none).
func (s *side) frameAt(t timeline.Time) int64 {
	k := sort.Search(len(s.frames), func(k int) bool { return s.frames[k].Source > t })
	if k == 0 {
		return -1
	}
	return s.frames[k-1].Seq
}

// leftFrame is the frame step i left on screen (-1: none, or no step i).
// When a document committed by then (by step i or one before it,
// boundaryOwners) has not drawn yet (a wait that saw its text before its
// first paint), it is that document's first frame: the step left the new
// page, not the old one still on screen.
func (s *side) leftFrame(i int) int64 {
	if i < 0 {
		return -1
	}
	seq := s.frameAt(s.until(i))
	s.owners()
	doc := s.upTo[min(i, len(s.upTo)-1)]
	k, ok := s.bySeq[seq]
	if !ok || s.frames[k].Document >= doc {
		return seq
	}
	for _, fr := range s.frames[k+1:] {
		if fr.Document >= doc {
			return fr.Seq
		}
	}
	return seq
}

// framesIn are the frames made while step st ran.
func (s *side) framesIn(st timeline.Step) []timeline.Frame {
	var out []timeline.Frame
	for _, fr := range s.frames {
		if fr.Source >= st.Start && fr.Source <= st.End {
			out = append(out, fr)
		}
	}
	return out
}

// image decodes frame seq's picture, keeping the last few decoded.
func (s *side) image(seq int64) (image.Image, error) {
	if img, ok := s.cache[seq]; ok {
		return img, nil
	}
	k, ok := s.bySeq[seq]
	if !ok {
		return nil, fmt.Errorf("no frame %d", seq)
	}
	b, err := s.tk.ReadFrame(s.frames[k])
	if err != nil {
		return nil, err
	}
	img, err := decodeJPEG(b)
	if err != nil {
		return nil, fmt.Errorf("frame %d: %w", seq, err)
	}
	s.cache[seq] = img
	s.order = append(s.order, seq)
	if len(s.order) > 4 {
		delete(s.cache, s.order[0])
		s.order = s.order[1:]
	}
	return img, nil
}

// scale is the take's device pixels per CSS pixel.
func (s *side) scale() float64 {
	if s.tl.Viewport.Scale > 0 {
		return s.tl.Viewport.Scale
	}
	return 1
}

// masks are the regions step i's script masked when its picture was
// taken (CSS pixels).
func (s *side) masks(i int) []timeline.Rect {
	return s.step(i).Masks
}

// documents are the addresses step i went to (and the tabs it filmed).
func (s *side) documents(i int) []string {
	if i < 0 || i >= len(s.tl.Steps) {
		return nil
	}
	var out []string
	s.owners()
	for _, k := range s.byStep[i] {
		b := s.tl.Boundaries[k]
		if b.Document == 0 {
			continue
		}
		u := "(an address too long to record)"
		if b.URL != nil {
			u = s.norm(*b.URL)
		}
		out = append(out, u)
	}
	return out
}

// owners works out, once, which step each boundary belongs to
// (boundaryOwners): byStep lists each step's boundaries, and upTo[i] is
// the last document committed by step i or before it.
func (s *side) owners() {
	if s.byStep != nil {
		return
	}
	owner := boundaryOwners(s.tl.Steps, s.tl.Boundaries)
	s.byStep = map[int][]int{}
	s.upTo = make([]int, len(s.tl.Steps)+1)
	for k, o := range owner {
		s.byStep[o] = append(s.byStep[o], k)
		d := s.tl.Boundaries[k].Document
		s.upTo[max(o, 0)] = max(s.upTo[max(o, 0)], d)
	}
	for i := 1; i < len(s.upTo); i++ {
		s.upTo[i] = max(s.upTo[i], s.upTo[i-1])
	}
}

// boundaryOwners says which step each boundary belongs to (-1: before
// the first step). A boundary that starts the film of another tab
// belongs to the step running then, the last to start (a film step). A
// commit belongs to the step that made it, of those it can be at its
// instant t: a step that navigates (goto, back, forward, reload, tab) and
// began at t (in studio the clock stands while a navigation is asked
// for, so it commits at the instant it began), or a step that can change
// the page and ended at t (a goto that took no page time also ended then;
// a click's navigation can commit as it ends). Several commits at one
// instant go to the last of those steps, one each, in order. Any other
// commit belongs to the step running then, the last to start; else to
// the last step started before it. steps are in the order they ran. Pure.
func boundaryOwners(steps []timeline.Step, bs []timeline.Boundary) []int {
	owners := make([]int, len(bs))
	for k := 0; k < len(bs); {
		t := bs[k].At
		n := k // the boundaries at t: bs[k:n]
		for n < len(bs) && bs[n].At == t {
			n++
		}
		running := lastStarted(steps, t)
		makers := makersAt(steps, running, t)
		var commits []int
		for m := k; m < n; m++ {
			owners[m] = running
			if m == 0 || bs[m].Tab == bs[m-1].Tab {
				commits = append(commits, m)
			}
		}
		// The last commits go to the last makers, one each; any before
		// them to the first.
		for c := len(commits) - 1; c >= 0 && len(makers) > 0; c-- {
			owners[commits[c]] = makers[max(len(makers)-(len(commits)-c), 0)]
		}
		k = n
	}
	return owners
}

// makersAt are the steps that can have made a commit, or what its page
// loads, at instant t, in the order they ran: those that navigate and
// began at t, and those that can change the page and ended at t. running
// is lastStarted(steps, t). Pure.
func makersAt(steps []timeline.Step, running int, t timeline.Time) []int {
	var makers []int
	for j := running; j >= 0 && steps[j].End >= t; j-- {
		st := steps[j]
		if st.Start == t && navigates[st.Kind] || st.End == t && st.Traits.ChangesPage {
			makers = append(makers, j)
		}
	}
	slices.Reverse(makers)
	return makers
}

// lastStarted is the last step started at or before t: the one running
// then, or the last before it (-1: none). Pure.
func lastStarted(steps []timeline.Step, t timeline.Time) int {
	return sort.Search(len(steps), func(k int) bool { return steps[k].Start > t }) - 1
}

// eventStep is the step a page event at t belongs to: the last of the
// steps that can have made it at that instant (makersAt: a studio goto
// that took no page time ends as the step after it begins, and what its
// page loads then is the goto's), else the step running then.
func (s *side) eventStep(t timeline.Time) int {
	running := lastStarted(s.tl.Steps, t)
	if m := makersAt(s.tl.Steps, running, t); len(m) > 0 {
		return m[len(m)-1]
	}
	return running
}

// navigates are the kinds of step that ask for a navigation themselves.
var navigates = map[string]bool{"goto": true, "back": true, "forward": true, "reload": true, "tab": true}

// norm writes the take's own sample-site address as ${serve.url}: each
// run serves the site on a port of its own.
func (s *side) norm(text string) string {
	if s.tl.Served == "" {
		return text
	}
	return strings.ReplaceAll(text, strings.TrimSuffix(s.tl.Served, "/"), "${serve.url}")
}
