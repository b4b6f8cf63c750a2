package benchpage

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"image"
	"io"
	"math"
	"os/exec"
	"strconv"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// ScenarioFigures are what a take of a scripted scenario on the bench page
// says about the capture. The scenario navigates, so the page's counter
// and clock start again in each document: every figure is taken within a
// document and then combined. Frames of the blank first tab, and frames
// without a readable code, are left out.
type ScenarioFigures struct {
	// Documents is how many documents showed the bench page.
	Documents int `json:"documents"`
	// Painted, Distinct and Coverage are as in Figures, summed over
	// documents.
	Painted  int64   `json:"painted"`
	Distinct int64   `json:"distinct"`
	Coverage float64 `json:"coverage"`
	// LongestFreezeMs is the longest source-time gap between consecutive
	// screencast frames of one document, from its first readable frame of
	// that page on (frames of the previous page that arrived after the
	// commit are left out, here and in coverage and drift): how long the
	// page looked stuck, navigations aside.
	LongestFreezeMs float64 `json:"longest_freeze_ms"`
	// LongestFreezeAt is the source time of the frame the longest freeze
	// began with (0 with no freeze; bench run reports it as a place in the
	// take).
	LongestFreezeAt timeline.Time `json:"-"`
	// Drift is |source time - rAF time - the median offset of the
	// document's frames within DriftWindow of it|: each frame's timing
	// against its neighbours'. DocumentDrift is the same against the
	// whole document's median offset. The two differ when the page's
	// frames reach the screen a vsync later for a while and then stay
	// there (the compositor's pipeline a frame deeper on a loaded
	// machine, seen for seconds at a time in the bench scenario): the
	// frames after the change are all shown one interval later, which a
	// viewer sees as one frame held once (freezes, repeats), not as every
	// frame off time; DocumentDrift counts each of them.
	Drift         Dist `json:"drift"`
	DocumentDrift Dist `json:"document_drift"`
	// SpanMs is, from a video (SummarizeFootage), the time from its first
	// tick that shows the page to its last new page frame: the part of
	// the video that films the page, without a blank lead-in or a last
	// frame held after the page's last new one (a recorder that pads its
	// end).
	SpanMs float64 `json:"span_ms,omitempty"`
	// Seeded is how many delivered frames were the recorder's screenshots.
	Seeded      int `json:"seeded"`
	Undecodable int `json:"undecodable"`
}

// DecodeTake opens and checks a take of the bench page and decodes every
// delivered frame's code, in delivery order.
func DecodeTake(dir string) (*timeline.Take, []Sample, error) { return decodeTake(dir) }

// DriftWindow is how far, either side, the frames whose offsets a frame's
// drift is measured against reach (ScenarioFigures.Drift).
const DriftWindow = 500 * time.Millisecond

// localDrift is, for each frame (source times at, ascending but for a
// few frames out of order; offsets off in ms), how far its offset is from
// the median offset of the frames within DriftWindow of it. Pure.
func localDrift(at []timeline.Time, off []float64) []float64 {
	w := timeline.FromDuration(DriftWindow)
	out := make([]float64, len(off))
	near := make([]float64, 0, 64)
	for i := range off {
		near = near[:0]
		for j := range off {
			if d := at[j] - at[i]; d >= -w && d <= w {
				near = append(near, off[j])
			}
		}
		out[i] = math.Abs(off[i] - median(near))
	}
	return out
}

// SummarizeScenario computes the scenario figures from decoded samples in
// delivery order.
func SummarizeScenario(samples []Sample) ScenarioFigures {
	var f ScenarioFigures
	type docState struct {
		*docFrames
		last *Sample // last screencast frame since the first readable one
	}
	docs := map[int]*docState{}
	var order []int
	for i := range samples {
		s := &samples[i]
		if s.Seeded {
			f.Seeded++
		}
		if !s.Decoded {
			f.Undecodable++
			continue
		}
		d := docs[s.Document]
		if d == nil {
			d = &docState{docFrames: newDocFrames(s.Code.Counter)}
			docs[s.Document] = d
			order = append(order, s.Document)
		}
		if s.Seeded {
			continue
		}
		c := s.Code.Counter
		if d.last != nil && c < d.last.Code.Counter {
			// The counter went back within a document: the frames before
			// showed the previous page (attributed by receipt, they arrived
			// after the commit), and they are left out.
			*d = docState{docFrames: newDocFrames(c)}
		}
		d.add(c, s.Source, s.Code.RAF)
		if d.last != nil {
			if gap := ms(s.Source - d.last.Source); gap > f.LongestFreezeMs {
				f.LongestFreezeMs, f.LongestFreezeAt = gap, d.last.Source
			}
		}
		d.last = s
	}
	kept := make([]*docFrames, 0, len(order))
	for _, n := range order {
		kept = append(kept, docs[n].docFrames)
	}
	f.sumDocuments(kept)
	return f
}

// docFrames are the page frames one document showed: the counters seen
// and their range, and each frame's offset (its time less its rAF time,
// in ms) at its time, for drift.
type docFrames struct {
	seen   map[uint32]bool
	lo, hi uint32
	drift  []float64
	at     []timeline.Time
}

// newDocFrames starts a document whose range begins at counter c.
func newDocFrames(c uint32) *docFrames {
	return &docFrames{seen: map[uint32]bool{}, lo: c, hi: c}
}

// add records page frame c, shown at at and drawn at rAF time raf.
func (d *docFrames) add(c uint32, at timeline.Time, raf time.Duration) {
	d.lo, d.hi = min(d.lo, c), max(d.hi, c)
	d.seen[c] = true
	d.drift = append(d.drift, ms(at-timeline.Time(raf)))
	d.at = append(d.at, at)
}

// sumDocuments adds docs' frames into f's coverage, and their offsets
// into its drift (against the neighbours' and the document's median):
// the documents that showed no frame are left out.
func (f *ScenarioFigures) sumDocuments(docs []*docFrames) {
	var drift, docDrift []float64
	for _, d := range docs {
		if len(d.seen) == 0 {
			continue
		}
		f.Documents++
		f.Painted += int64(d.hi-d.lo) + 1
		f.Distinct += int64(len(d.seen))
		off := median(d.drift)
		for _, v := range d.drift {
			docDrift = append(docDrift, math.Abs(v-off))
		}
		drift = append(drift, localDrift(d.at, d.drift)...)
	}
	if f.Painted > 0 {
		f.Coverage = float64(f.Distinct) / float64(f.Painted)
	}
	f.Drift, f.DocumentDrift = dist(drift), dist(docDrift)
}

// VideoTick is what one output frame of a video of the bench page shows.
type VideoTick struct {
	Code    Code
	Decoded bool
	// Hash is the FNV-1a hash of the decoded picture's pixels, to tell
	// whether two runs made the same frame.
	Hash uint64
}

// SameFrames counts the ticks at which two videos show the same picture
// (by hash), of the longer one's ticks: two runs of one script that make
// identical videos give of, of. Pure.
func SameFrames(a, b []VideoTick) (same, of int) {
	for k := range min(len(a), len(b)) {
		if a[k].Hash == b[k].Hash {
			same++
		}
	}
	return same, max(len(a), len(b))
}

// SamePictures compares the frames two takes stored (each in delivery
// order, by source time), frame by frame at each source time: same counts
// the times at which both stored the very same bytes in the same
// document; butNow also those whose pictures differ only in the
// performance.now() reading the page paints in its code (the same page
// frame at the same animation-frame time, and the same pixels outside the
// code). Each is of the source times either take stored a frame at. Pure.
func SamePictures(a, b []Sample) (same, butNow, of int) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		of++
		switch {
		case j == len(b) || i < len(a) && a[i].Source < b[j].Source:
			i++
			continue
		case i == len(a) || b[j].Source < a[i].Source:
			j++
			continue
		}
		x, y := a[i], b[j]
		i, j = i+1, j+1
		if x.Document != y.Document {
			continue
		}
		if x.Hash == y.Hash {
			same++
			butNow++
		} else if x.Decoded && y.Decoded && x.Rest == y.Rest && x.Code.Counter == y.Code.Counter && x.Code.RAF == y.Code.RAF {
			butNow++
		}
	}
	return same, butNow, of
}

// restHash hashes a decoded JPEG's pixels (its Y'CbCr planes) outside the
// code's strip, at scale device pixels per CSS pixel, the strip widened to
// whole 16-pixel blocks (the encoder's), so that a change in the code
// leaves the hash alone.
func restHash(img *image.YCbCr, scale float64) uint64 {
	strip := image.Rect(0, 0, roundUp(float64(Left+Cols*Block)*scale, 16), roundUp(float64(Top+Rows*Block)*scale, 16))
	h := fnv.New64a()
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		x0 := b.Min.X
		if y < strip.Max.Y {
			x0 = strip.Max.X
		}
		if x0 < b.Max.X {
			h.Write(img.Y[img.YOffset(x0, y) : img.YOffset(b.Max.X-1, y)+1])
			h.Write(img.Cb[img.COffset(x0, y) : img.COffset(b.Max.X-1, y)+1])
			h.Write(img.Cr[img.COffset(x0, y) : img.COffset(b.Max.X-1, y)+1])
		}
	}
	return h.Sum64()
}

func roundUp(v float64, to int) int { return (int(math.Ceil(v)) + to - 1) / to * to }

// VideoRepeats are the frames a person sees repeated in a video of a
// page that paints a new frame on every animation frame.
type VideoRepeats struct {
	FPS   int `json:"fps"`
	Ticks int `json:"ticks"`
	// Decoded ticks showed a readable code; Repeated showed the same page
	// frame as the tick before.
	Decoded  int `json:"decoded"`
	Repeated int `json:"repeated"`
	// LongestStillMs is the longest run of ticks showing one page frame,
	// leaving out runs that end at a new document (the page's counter
	// starting again): a navigation's wait.
	LongestStillMs float64 `json:"longest_still_ms"`
}

// SummarizeVideo counts the repeats of a video's ticks at fps.
func SummarizeVideo(ticks []VideoTick, fps int) VideoRepeats {
	r := VideoRepeats{FPS: fps, Ticks: len(ticks)}
	run := 0 // ticks in the current run of one page frame
	var prev *VideoTick
	end := func(next *VideoTick) {
		navigation := next != nil && next.Decoded && prev != nil && !counterBefore(prev.Code.Counter, next.Code.Counter)
		if run > 1 && !navigation {
			r.LongestStillMs = math.Max(r.LongestStillMs, float64(run)*1000/float64(fps))
		}
	}
	for i := range ticks {
		t := &ticks[i]
		if !t.Decoded {
			end(nil)
			prev, run = nil, 0
			continue
		}
		r.Decoded++
		if prev != nil && t.Code == prev.Code {
			r.Repeated++
			run++
			continue
		}
		if prev != nil {
			end(t)
		}
		prev, run = t, 1
	}
	end(nil)
	return r
}

// DecodeVideo decodes every frame of video, w x h pixels of a viewport vw
// CSS pixels wide, and reads each one's code.
func DecodeVideo(ctx context.Context, video string, w, h, vw int, ffmpeg string) ([]VideoTick, error) {
	if ffmpeg == "" {
		ffmpeg = "ffmpeg"
	}
	cmd := exec.CommandContext(ctx, ffmpeg, "-v", "error", "-i", video, "-vf", "scale="+strconv.Itoa(w)+":"+strconv.Itoa(h), "-f", "rawvideo", "-pix_fmt", "rgba", "-")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("decode %s: %w", video, err)
	}
	r := bufio.NewReaderSize(out, 1<<20)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var ticks []VideoTick
	for {
		if _, err := io.ReadFull(r, img.Pix); err != nil {
			break
		}
		c, err := Decode(img, float64(w)/float64(vw))
		h := fnv.New64a()
		h.Write(img.Pix)
		ticks = append(ticks, VideoTick{Code: c, Decoded: err == nil, Hash: h.Sum64()})
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("decode %s: %w", video, err)
	}
	return ticks, nil
}

// SummarizeFootage computes the scenario figures from a video alone, for
// a recorder that keeps no take (Playwright's recordVideo), and for
// clapper's own video to compare like with like: tick k is at k/fps. A
// page frame counts from the first tick that shows it; a document ends
// where the page's counter goes back (a navigation). LongestFreezeMs is
// the longest time one page frame stayed on screen within a document
// before the next one came (a frame held at the very end, after the
// last new one, is left out, as SpanMs leaves it out);
// drift is each new frame's tick time less its rAF time, against its
// neighbours' and the document's median, as in SummarizeScenario (a tick
// adds up to one frame interval of its own). Pure.
func SummarizeFootage(ticks []VideoTick, fps int) ScenarioFigures {
	var f ScenarioFigures
	if fps <= 0 {
		return f
	}
	var docs []*docFrames
	var cur *docFrames
	var prev uint32 // the counter of the last new frame
	var prevAt timeline.Time
	first := -1
	for k, t := range ticks {
		if !t.Decoded {
			f.Undecodable++
			continue
		}
		if first < 0 {
			first = k
		}
		at := timeline.Time(int64(k) * int64(time.Second) / int64(fps))
		c := t.Code
		switch {
		case cur == nil || c.Counter < prev:
			cur = newDocFrames(c.Counter)
			docs = append(docs, cur)
		case c.Counter == prev:
			continue
		default:
			if gap := ms(at - prevAt); gap > f.LongestFreezeMs {
				f.LongestFreezeMs, f.LongestFreezeAt = gap, prevAt
			}
		}
		cur.add(c.Counter, at, c.RAF)
		prev, prevAt = c.Counter, at
	}
	if cur != nil {
		f.SpanMs = ms(prevAt) - float64(first)*1000/float64(fps) + 1000/float64(fps)
	}
	f.sumDocuments(docs)
	return f
}
