package benchpage

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func at(v float64) timeline.Time { return timeline.Time(v * float64(time.Millisecond)) }

// sample makes a decoded sample: page frame n painted at rAF time
// n*16.667 ms, shown by a frame with the given source time.
func sample(seq int64, n uint32, src float64) Sample {
	raf := time.Duration(float64(n) * 16.667 * float64(time.Millisecond))
	return Sample{Seq: seq, Source: at(src), Received: at(src + 40), Decoded: true, Code: Code{Counter: n, RAF: raf, Now: raf + time.Millisecond}}
}

func TestSummarize(t *testing.T) {
	tl := &timeline.Timeline{Capture: timeline.Capture{Started: 0, Ended: at(1000),
		Frames: timeline.Accounting{Received: 12, Delivered: 9, Late: 2, Overflow: 1}}, Clock: timeline.Clock{Mapping: timeline.MappingMonotonic}}
	off := 50.0 // the page frame reaches the screencast 50 ms after its rAF time
	samples := []Sample{
		{Seq: 0, Seeded: true, Source: at(1), Decoded: true, Code: Code{Counter: 1}}, // left out
		sample(1, 2, 2*16.667+off),
		sample(2, 3, 3*16.667+off),
		sample(3, 5, 5*16.667+off), // page frame 4 missing
		sample(4, 5, 5*16.667+off+16.667),
		{Seq: 5, Source: at(7*16.667 + off), Received: at(200)}, // undecodable
		sample(6, 4, 8*16.667+off),                              // shows an older page frame
		sample(7, 9, 9*16.667+off+3),
		sample(8, 10, 10*16.667+off),
	}
	f := Summarize(tl, samples, nil)
	if f.ReceivedPerSec != 12 || f.DeliveredPerSec != 9 || f.Late != 2 || f.Overflow != 1 || f.Mapping != "monotonic" {
		t.Errorf("rates and accounting: %+v", f)
	}
	// Counters 2..10 painted, 2,3,4,5,9,10 seen.
	if f.Painted != 9 || f.Distinct != 6 || math.Abs(f.Coverage-6.0/9) > 1e-9 {
		t.Errorf("coverage %d/%d = %v", f.Distinct, f.Painted, f.Coverage)
	}
	if f.Undecodable != 1 || f.Repeats != 1 || f.Backwards != 1 {
		t.Errorf("undecodable %d, repeats %d, backwards %d", f.Undecodable, f.Repeats, f.Backwards)
	}
	if math.Abs(f.LongestGapMs-(16.667+off-off)-16.667) > 0.01 { // 5*16.667+off+16.667 -> 7*16.667+off
		t.Errorf("longest gap %v ms", f.LongestGapMs)
	}
	if math.Abs(f.OffsetMs-off) > 0.01 || f.ErrorRAF.P50 > 0.01 || math.Abs(f.ErrorRAF.Max-(8*16.667+off-4*16.667-off)) > 0.05 {
		t.Errorf("offset %v, error %+v", f.OffsetMs, f.ErrorRAF)
	}
	if math.Abs(f.Latency.P50-40) > 1e-6 || f.PageClockKnown {
		t.Errorf("latency %+v, page clock known %v", f.Latency, f.PageClockKnown)
	}
}

func TestSummarizePlacesThePageClock(t *testing.T) {
	wall := time.Unix(1_700_000_000, 0)
	tl := &timeline.Timeline{Clock: timeline.Clock{Wall: wall}, Capture: timeline.Capture{Ended: at(100)}}
	// The page clock's zero is 2 s before the take's.
	info := &Info{TimeOrigin: float64(wall.Add(-2*time.Second).UnixNano()) / 1e6}
	// rAF time 2100 ms on the page clock is take time 100 ms; the frame
	// shows it at 130 ms.
	s := Sample{Source: at(130), Decoded: true, Code: Code{RAF: 2100 * time.Millisecond, Now: 2101 * time.Millisecond}}
	f := Summarize(tl, []Sample{s}, info)
	if !f.PageClockKnown || math.Abs(f.OffsetMs-30) > 0.01 {
		t.Errorf("offset %v ms (known %v), want 30", f.OffsetMs, f.PageClockKnown)
	}
}

func TestQuantile(t *testing.T) {
	d := dist([]float64{5, 1, 4, 2, 3})
	if d.P50 != 3 || d.Max != 5 || math.Abs(d.P95-4.8) > 1e-9 {
		t.Errorf("%+v", d)
	}
	if d := dist(nil); d != (Dist{}) {
		t.Errorf("empty: %+v", d)
	}
}

// Analyze reads a take written to disk: frames decoded with image/jpeg.
func TestAnalyzeTake(t *testing.T) {
	dir := t.TempDir()
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	for i := 0; i < n; i++ {
		img := image.NewRGBA(image.Rect(0, 0, 640, 360))
		c := Code{Counter: uint32(100 + i), RAF: time.Duration(i) * 16667 * time.Microsecond}
		c.Now = c.RAF + 2*time.Millisecond
		Draw(img, c, 1)
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
			t.Fatal(err)
		}
		fr := timeline.Frame{Seq: int64(i), Source: at(float64(i)*16.667 + 33.3), Received: at(float64(i)*16.667 + 80), Width: 640, Height: 360, Bytes: b.Len(), File: timeline.FramePath(int64(i))}
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
	tl := &timeline.Timeline{Viewport: timeline.Viewport{Width: 640, Height: 360, Scale: 1},
		Capture: timeline.Capture{Ended: at(200), Frames: timeline.Accounting{Received: n, Delivered: n, Upstream: "unknown"}}}
	if err := timeline.WriteTimeline(dir, tl); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Info{TimeOrigin: 1})
	if err := os.WriteFile(filepath.Join(dir, InfoFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Distinct != n || f.Painted != n || f.Coverage != 1 || f.Undecodable != 0 || f.Backwards != 0 || f.ErrorRAF.Max > 0.01 {
		t.Errorf("figures %+v", f)
	}
}
