package benchpage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// InfoFile is the file, in a take of the bench page, where the bench
// driver notes what it read from the page (its clock's time origin).
const InfoFile = "bench.json"

// Info is what the driver read from the page before capturing.
type Info struct {
	// TimeOrigin is performance.timeOrigin: the wall-clock time, in ms
	// since the epoch, of the page clock's zero.
	TimeOrigin float64 `json:"time_origin_ms"`
}

// Sample is one delivered frame of a take of the bench page, decoded.
type Sample struct {
	Seq int64
	// Document is the document the frame was received during.
	Document int
	Source   timeline.Time
	Received timeline.Time
	Seeded   bool
	// Code is valid when Decoded.
	Code    Code
	Decoded bool
	// Hash is the FNV-1a hash of the stored picture's bytes; Rest that of
	// its decoded pixels outside the code (restHash), when it decoded as
	// Y'CbCr.
	Hash, Rest uint64
}

// Dist summarises a distribution, in milliseconds.
type Dist struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	Max float64 `json:"max_ms"`
}

// Figures are what a take of the bench page says about the capture, from
// the take alone. Seeded frames are counted in the accounting but left out
// of the timing and coverage figures: their source time is the recorder's,
// not Chromium's.
type Figures struct {
	Mapping string  `json:"mapping"`
	Seconds float64 `json:"seconds"`
	// The take's accounting.
	timeline.Accounting
	// ReceivedPerSec is frames received per second of capture.
	ReceivedPerSec  float64 `json:"received_per_s"`
	DeliveredPerSec float64 `json:"delivered_per_s"`
	// Painted is the page frames painted over the counter range the
	// delivered frames show; Distinct how many of them were delivered;
	// Coverage their ratio.
	Painted  int64   `json:"painted"`
	Distinct int64   `json:"distinct"`
	Coverage float64 `json:"coverage"`
	// Undecodable frames showed no readable code.
	Undecodable int `json:"undecodable"`
	// Repeats are delivered frames showing the same page frame as the
	// last decoded frame before; Backwards those showing an older one.
	Repeats   int `json:"repeats"`
	Backwards int `json:"backwards"`
	// LongestGap is the longest source-time gap between consecutive
	// delivered frames.
	LongestGapMs float64 `json:"longest_gap_ms"`
	// ErrorRAF is |source time - page frame time - Offset|, the page frame
	// time being its requestAnimationFrame time; ErrorNow the same with
	// performance.now() read in the callback. OffsetMs is the constant
	// removed (the median of source - rAF time on the take clock, the
	// page clock placed through its time origin when known).
	ErrorRAF Dist    `json:"error_raf"`
	ErrorNow Dist    `json:"error_now"`
	OffsetMs float64 `json:"offset_ms"`
	// PageClockKnown says whether the page's time origin was known, so
	// that OffsetMs is the delay from the page's frame time to the source
	// time rather than an arbitrary constant.
	PageClockKnown bool `json:"page_clock_known"`
	// Latency is received - source.
	Latency Dist `json:"latency"`
}

// Analyze reads a take of the bench page: its timeline, every delivered
// frame (decoded with image/jpeg) and the driver's InfoFile when present.
func Analyze(dir string) (Figures, error) {
	tk, samples, err := decodeTake(dir)
	if err != nil {
		return Figures{}, err
	}
	var info *Info
	if b, err := os.ReadFile(filepath.Join(dir, InfoFile)); err == nil {
		var in Info
		if err := json.Unmarshal(b, &in); err != nil {
			return Figures{}, fmt.Errorf("%s: %w", InfoFile, err)
		}
		info = &in
	}
	return Summarize(tk.Timeline, samples, info), nil
}

// decodeTake opens and checks a take of the bench page and decodes every
// delivered frame's code, in delivery order.
func decodeTake(dir string) (*timeline.Take, []Sample, error) {
	tk, err := timeline.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := tk.Validate(); err != nil {
		return nil, nil, fmt.Errorf("take %s: %w", dir, err)
	}
	var frames []timeline.Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			return nil, nil, err
		}
		frames = append(frames, fr)
	}
	vw := tk.Timeline.Viewport.Width
	if vw <= 0 {
		return nil, nil, errors.New("take has no viewport width")
	}
	samples := make([]Sample, len(frames))
	var wg sync.WaitGroup
	next := make(chan int)
	errs := make([]error, len(frames))
	for w := 0; w < max(1, runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() { // owned by Analyze: ends when next is closed
			defer wg.Done()
			for i := range next {
				fr := frames[i]
				s := Sample{Seq: fr.Seq, Document: fr.Document, Source: fr.Source, Received: fr.Received, Seeded: fr.Seeded}
				b, err := tk.ReadFrame(fr)
				if err != nil {
					errs[i] = err
					continue
				}
				h := fnv.New64a()
				h.Write(b)
				s.Hash = h.Sum64()
				img, err := jpeg.Decode(bytes.NewReader(b))
				if err == nil {
					scale := float64(img.Bounds().Dx()) / float64(vw)
					if y, ok := img.(*image.YCbCr); ok {
						s.Rest = restHash(y, scale)
					}
					s.Code, err = Decode(img, scale)
				}
				s.Decoded = err == nil
				samples[i] = s
			}
		}()
	}
	for i := range frames {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return tk, samples, nil
}

// Summarize computes the figures from the timeline and the decoded
// samples, in delivery order. info, when not nil, places the page clock on
// the take clock (through the wall-clock time origin and the take's wall
// time), so the offset removed means something.
func Summarize(tl *timeline.Timeline, samples []Sample, info *Info) Figures {
	a := tl.Capture.Frames
	f := Figures{
		Mapping: string(tl.Clock.Mapping), Seconds: (tl.Capture.Ended - tl.Capture.Started).Seconds(),
		Accounting: a,
	}
	if f.Seconds > 0 {
		f.ReceivedPerSec = float64(a.Received) / f.Seconds
		f.DeliveredPerSec = float64(a.Delivered) / f.Seconds
	}
	// pageZero is the take time of the page clock's zero.
	var pageZero timeline.Time
	if info != nil && info.TimeOrigin > 0 && !tl.Clock.Wall.IsZero() {
		origin := time.Unix(0, int64(math.Round(info.TimeOrigin*1e6)))
		pageZero = timeline.Time(origin.Sub(tl.Clock.Wall))
		f.PageClockKnown = true
	}
	var (
		prev, prevCode      *Sample // the last frame, the last decoded frame
		seen                = map[uint32]bool{}
		lo, hi              uint32
		dRAF, dNow, latency []float64
	)
	for i := range samples {
		s := &samples[i]
		if s.Seeded {
			continue
		}
		latency = append(latency, ms(s.Received-s.Source))
		if prev != nil {
			f.LongestGapMs = math.Max(f.LongestGapMs, ms(s.Source-prev.Source))
		}
		if !s.Decoded {
			f.Undecodable++
			prev = s
			continue
		}
		c := s.Code.Counter
		if len(seen) == 0 {
			lo, hi = c, c
		}
		lo, hi = min(lo, c), max(hi, c)
		seen[c] = true
		dRAF = append(dRAF, ms(s.Source-pageZero-timeline.Time(s.Code.RAF)))
		dNow = append(dNow, ms(s.Source-pageZero-timeline.Time(s.Code.Now)))
		if prevCode != nil {
			switch {
			case c == prevCode.Code.Counter:
				f.Repeats++
			case c < prevCode.Code.Counter:
				f.Backwards++
			}
		}
		prev, prevCode = s, s
	}
	if len(seen) > 0 {
		f.Painted = int64(hi-lo) + 1
		f.Distinct = int64(len(seen))
		f.Coverage = float64(f.Distinct) / float64(f.Painted)
	}
	f.OffsetMs = median(dRAF)
	f.ErrorRAF = spread(dRAF, f.OffsetMs)
	f.ErrorNow = spread(dNow, median(dNow))
	f.Latency = dist(latency)
	return f
}

func ms(t timeline.Time) float64 { return float64(t) / float64(time.Millisecond) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return quantile(s, 0.5)
}

// quantile of sorted s, by linear interpolation.
func quantile(s []float64, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// spread is the distribution of |v - center|.
func spread(v []float64, center float64) Dist {
	d := make([]float64, len(v))
	for i, x := range v {
		d[i] = math.Abs(x - center)
	}
	return dist(d)
}

func dist(v []float64) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return Dist{P50: quantile(s, 0.5), P95: quantile(s, 0.95), Max: s[len(s)-1]}
}
