package compositor

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// Segment is an interval [Start, End) of the take clock kept in the video,
// played at Speed times real time (0 and 1 both mean real time).
type Segment struct {
	Start, End timeline.Time
	Speed      float64
}

// speed returns the segment's playback speed, at least 1.
func (sg Segment) speed() float64 {
	if sg.Speed <= 1 {
		return 1
	}
	return sg.Speed
}

// outLen returns the output nanoseconds the segment lasts.
func (sg Segment) outLen() int64 {
	return int64(float64(sg.End-sg.Start)/sg.speed() + 0.5)
}

// Schedule maps output frames (ticks) to the take clock. Output tick k sits
// at output time k/FPS; output time runs through the kept segments one after
// another, so a cut (a gap between segments) takes no output time.
type Schedule struct {
	fps      int64
	segments []Segment
	cum      []int64 // output ns at which each segment starts
	total    int64   // kept ns
	ticks    int
}

const second = int64(time.Second)

// newSchedule builds the schedule for a take running from start to end at
// fps, with the intervals in cuts removed. Cuts may overlap, be unordered or
// reach outside [start, end].
func newSchedule(fps int, start, end timeline.Time, cuts []Segment) (*Schedule, error) {
	return NewPacedSchedule(fps, start, end, cuts, nil)
}

// NewPacedSchedule is newSchedule where the kept time inside each of the
// fast segments plays at that segment's Speed (a long wait shown sped up,
// not hidden). Fast segments that overlap an earlier one are trimmed.
func NewPacedSchedule(fps int, start, end timeline.Time, cuts, fast []Segment) (*Schedule, error) {
	if fps <= 0 {
		return nil, fmt.Errorf("fps %d must be positive", fps)
	}
	if end <= start {
		return nil, fmt.Errorf("take ends (%v) before it starts (%v)", end, start)
	}
	s := &Schedule{fps: int64(fps)}
	s.segments = paced(keptSegments(start, end, cuts), fast)
	if len(s.segments) == 0 {
		return nil, errors.New("the cuts remove the whole take")
	}
	for _, sg := range s.segments {
		s.cum = append(s.cum, s.total)
		s.total += sg.outLen()
	}
	// round(total * fps / 1s): the video lasts the kept time within half a frame.
	s.ticks = int((s.total*s.fps + second/2) / second)
	if s.ticks < 1 {
		s.ticks = 1
	}
	return s, nil
}

// keptSegments returns [start, end) minus the cuts, in order.
func keptSegments(start, end timeline.Time, cuts []Segment) []Segment {
	cs := make([]Segment, 0, len(cuts))
	for _, c := range cuts {
		if c.End > c.Start {
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Start < cs[j].Start })
	var out []Segment
	cur := start
	for _, c := range cs {
		if c.End <= cur {
			continue
		}
		if c.Start >= end {
			break
		}
		if c.Start > cur {
			out = append(out, Segment{Start: cur, End: c.Start})
		}
		cur = c.End
	}
	if cur < end {
		out = append(out, Segment{Start: cur, End: end})
	}
	return out
}

// paced splits kept segments where fast segments start and end, giving
// the parts inside a fast segment its speed.
func paced(kept, fast []Segment) []Segment {
	fs := make([]Segment, 0, len(fast))
	for _, f := range fast {
		if f.End > f.Start && f.speed() > 1 {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return kept
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start })
	// Trim overlaps so the fast segments are disjoint.
	for i := 1; i < len(fs); i++ {
		if fs[i].Start < fs[i-1].End {
			fs[i].Start = fs[i-1].End
		}
	}
	var out []Segment
	for _, k := range kept {
		cur := k.Start
		for _, f := range fs {
			if f.End <= cur || f.Start >= k.End || f.End <= f.Start {
				continue
			}
			if f.Start > cur {
				out = append(out, Segment{Start: cur, End: f.Start})
				cur = f.Start
			}
			e := min(f.End, k.End)
			out = append(out, Segment{Start: cur, End: e, Speed: f.Speed})
			cur = e
		}
		if cur < k.End {
			out = append(out, Segment{Start: cur, End: k.End})
		}
	}
	return out
}

// FPS returns the output frame rate.
func (s *Schedule) FPS() int { return int(s.fps) }

// Ticks returns the number of output frames.
func (s *Schedule) Ticks() int { return s.ticks }

// Duration returns the video's length: Ticks frames at FPS.
func (s *Schedule) Duration() time.Duration {
	return time.Duration(int64(s.ticks) * second / s.fps)
}

// tickOutput returns the output time of tick k in ns, rounded down.
func (s *Schedule) tickOutput(k int) int64 { return int64(k) * second / s.fps }

// TakeTime returns the take-clock time output tick k shows (rounded down to
// the nanosecond). Ticks past the kept time stay at the end of the last
// segment.
func (s *Schedule) TakeTime(k int) timeline.Time {
	o := s.tickOutput(k)
	i := sort.Search(len(s.cum), func(i int) bool { return s.cum[i] > o }) - 1
	if i < 0 {
		i = 0
	}
	sg := s.segments[i]
	t := sg.Start + timeline.Time(float64(o-s.cum[i])*sg.speed())
	if t > sg.End {
		t = sg.End
	}
	return t
}

// OutputTime maps a take-clock time to output time. A time inside a cut maps
// to the output time of the next kept segment; a time before the first
// segment maps to 0 and one after the last to the kept total.
func (s *Schedule) OutputTime(t timeline.Time) time.Duration {
	for i, sg := range s.segments {
		if t < sg.Start {
			return time.Duration(s.cum[i])
		}
		if t < sg.End {
			return time.Duration(s.cum[i] + int64(float64(t-sg.Start)/sg.speed()))
		}
	}
	return time.Duration(s.total)
}

// Cut reports whether t falls outside every kept segment.
func (s *Schedule) Cut(t timeline.Time) bool {
	for _, sg := range s.segments {
		if t >= sg.Start && t < sg.End {
			return false
		}
	}
	return true
}

// TicksBefore returns how many output ticks show a take time strictly before
// t: exactly the ticks k with TakeTime(k) < t inside kept time.
func (s *Schedule) TicksBefore(t timeline.Time) int {
	o := int64(s.OutputTime(t))
	if o <= 0 {
		return 0
	}
	// ticks k with k*1s/fps < o, i.e. k < o*fps/1s.
	n := (o*s.fps + second - 1) / second
	if n > int64(s.ticks) {
		n = int64(s.ticks)
	}
	return int(n)
}

// TickOf returns the first output tick that shows take time t: the ticks
// before it show times more than TickSlack before t. Frames, overlays,
// captions and zoom all place themselves on ticks through it, so that
// what happens at a frame's time appears with that frame.
func (s *Schedule) TickOf(t timeline.Time) int { return s.TicksBefore(t - TickSlack) }

// Run says that output ticks [First, First+Count) show Frame.
type Run struct {
	Frame timeline.Frame
	First int
	Count int
}

// Resampler turns delivered frames, pushed in delivery order, into runs of
// output ticks: tick k shows the latest frame whose source time is at or
// before TakeTime(k), to within TickSlack; ticks before the first frame
// show the first frame. It keeps one frame of state, whatever the take's
// length.
type Resampler struct {
	s    *Schedule
	next int // first tick not yet assigned
	cur  timeline.Frame
	have bool
}

// TickSlack is how far after a tick's time a frame (or a step, a click, a
// caption: TickOf) may be placed and still count as at it. Tick and frame times are each rounded to the nanosecond
// on their own: a studio take's frame k is at k/fps rounded, and a video
// that starts at frame 2 (a page's first frame) put its tick 1 at frame 2's
// time plus one interval rounded down, a nanosecond before frame 3, so
// every third tick showed the frame before it.
const TickSlack = timeline.Time(time.Microsecond)

// NewResampler starts resampling onto s.
func NewResampler(s *Schedule) *Resampler { return &Resampler{s: s} }

// Push feeds the next delivered frame. When the frame settles the run of the
// one before it, Push returns that run; ok is false when that run is empty (the
// previous frame was superseded before any tick showed it) or there was no
// previous frame.
func (r *Resampler) Push(fr timeline.Frame) (run Run, ok bool) {
	if r.have {
		end := r.s.TickOf(fr.Source)
		if end > r.next {
			run, ok = Run{Frame: r.cur, First: r.next, Count: end - r.next}, true
			r.next = end
		}
	}
	r.cur, r.have = fr, true
	return run, ok
}

// Flush returns the last run: the remaining ticks show the last frame pushed.
// ok is false when no frame was pushed or no tick remains.
func (r *Resampler) Flush() (run Run, ok bool) {
	if !r.have || r.next >= r.s.ticks {
		return Run{}, false
	}
	run = Run{Frame: r.cur, First: r.next, Count: r.s.ticks - r.next}
	r.next = r.s.ticks
	return run, true
}
