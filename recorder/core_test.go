package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/clapper-dev/clapper/timeline"
)

// These tests drive a capture's loop and spool writer with synthetic
// events, without a browser.

var tinyJPEG = func() []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 16, 8)), nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

type synth struct {
	t   *testing.T
	c   *Capture
	dir string
	log *timeline.FrameLog
}

// synthClock is a take clock that starts now on the host's monotonic
// clock, as a run's does: the capture stamps its start and end with the
// real clock, so an origin made up in the test would put them before the
// take (on a machine up for less time than the origin) or more than a
// take's length after it (on one up for days). Its wall time is made up:
// 1.7e9 s since the epoch at the origin, with the given error in ns.
func synthClock(errNs int64) *Clock {
	origin := Monotonic()
	return &Clock{Origin: origin, Wall: time.Unix(1_700_000_000, 0), Offset: WallOffset{Offset: origin - 1_700_000_000_000_000_000, Error: errNs}}
}

func newSynth(t *testing.T, o Options) *synth {
	t.Helper()
	dir := t.TempDir()
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	o.Dir, o.Log = dir, log
	if o.Clock == nil {
		o.Clock = synthClock(100)
	}
	return &synth{t: t, c: newCapture(nil, o), dir: dir, log: log}
}

// frame offers a screencast frame with a monotonic source time at take time
// src (ms), received at recv (ms).
func (s *synth) frame(src, recv float64) {
	mono := float64(s.c.clock.Origin)/1e9 + src/1e3
	s.c.enqueue(event{kind: evFrame, at: timeline.Time(recv * 1e6), frame: &page.EventScreencastFrame{
		Data: tinyJPEG, Metadata: &page.ScreencastFrameMetadata{MonotonicTimestamp: cdp.MonotonicTime(mono), DeviceWidth: 16, DeviceHeight: 8, PageScaleFactor: 1},
	}})
}

func (s *synth) raw(ev event) { s.c.enqueue(ev) }

// waitReceived waits until the loop has handled n frames.
func (s *synth) waitReceived(n int64) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second) // bounds a hang only
	for s.c.Snapshot().Received < n {
		if time.Now().After(deadline) {
			s.t.Fatalf("loop handled %d of %d frames", s.c.Snapshot().Received, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// finish drains the capture, writes the timeline and reads the take back.
func (s *synth) finish() (Result, []timeline.Frame) {
	s.t.Helper()
	res := s.c.drain()
	if err := s.log.Close(); err != nil {
		s.t.Fatal(err)
	}
	tl := &timeline.Timeline{Name: "synthetic", Clock: res.Clock, Capture: res.Capture, Boundaries: res.Boundaries}
	if err := timeline.WriteTimeline(s.dir, tl); err != nil {
		s.t.Fatal(err)
	}
	tk, err := timeline.Open(s.dir)
	if err != nil {
		s.t.Fatalf("take: %v", err)
	}
	if err := tk.Validate(); err != nil {
		s.t.Fatalf("take: %v", err)
	}
	var frames []timeline.Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			s.t.Fatal(err)
		}
		frames = append(frames, fr)
	}
	return res, frames
}

func sources(frames []timeline.Frame) []float64 {
	var out []float64
	for _, fr := range frames {
		out = append(out, float64(fr.Source)/1e6)
	}
	return out
}

func TestCaptureAccountsSyntheticStream(t *testing.T) {
	s := newSynth(t, Options{Tab: "main", InitialURL: "http://127.0.0.1/a"})
	// 0: seed; then frames 10, 30, 20 (behind one: put back in order), 30
	// (duplicate), 15 (behind three, more than the window: late), a
	// navigation, 40, an undecodable one, 50.
	s.raw(event{kind: evSeed, at: timeline.Time(5e6), src: timeline.Time(1e6), data: tinyJPEG})
	s.frame(10, 12)
	s.frame(30, 31)
	s.frame(20, 32)
	s.frame(30, 33)
	s.frame(15, 33.5)
	s.raw(event{kind: evNav, at: timeline.Time(34e6), url: "http://127.0.0.1/b"})
	s.frame(40, 41)
	s.raw(event{kind: evFrame, at: timeline.Time(42e6), frame: &page.EventScreencastFrame{Data: []byte("not a jpeg"), Metadata: &page.ScreencastFrameMetadata{MonotonicTimestamp: cdp.MonotonicTime(float64(s.c.clock.Origin)/1e9 + 0.045)}}})
	s.frame(50, 51)
	res, frames := s.finish()
	a := res.Capture.Frames
	want := timeline.Accounting{Received: 9, Delivered: 6, Late: 1, Duplicates: 1, Rejected: 1, Upstream: "unknown"}
	if a != want {
		t.Errorf("accounting %+v, want %+v", a, want)
	}
	if got := fmt.Sprint(sources(frames)); got != "[1 10 20 30 40 50]" {
		t.Errorf("delivered sources %s", got)
	}
	// Sequence numbers follow the ledger's order: 15 (late) is 3, the
	// duplicate 30 is 5, and the undecodable frame, judged as it came, is
	// 6, before the 40 and 50 the window still held.
	wantSeq := []int64{0, 1, 2, 4, 7, 8}
	if len(frames) != len(wantSeq) {
		t.Fatalf("%d frames, want %d", len(frames), len(wantSeq))
	}
	for i, fr := range frames {
		if fr.Seq != wantSeq[i] {
			t.Errorf("frame %d has seq %d, want %d (gaps mark omissions)", i, fr.Seq, wantSeq[i])
		}
		if fr.Seeded != (i == 0) || fr.Tab != "main" || fr.Width != 16 || fr.Height != 8 || fr.Bytes != len(tinyJPEG) || fr.File != timeline.FramePath(fr.Seq) {
			t.Errorf("frame %+v", fr)
		}
		if wantDoc := map[bool]int{true: 1, false: 0}[fr.Seq > 5]; fr.Document != wantDoc {
			t.Errorf("frame %d in document %d, want %d", fr.Seq, fr.Document, wantDoc)
		}
	}
	if frames[1].Received != timeline.Time(12e6) || frames[1].DeviceWidth != 16 || frames[1].PageScaleFactor != 1 {
		t.Errorf("frame 1 %+v lost its receipt time or geometry", frames[1])
	}
	bs := res.Boundaries
	if len(bs) != 2 || *bs[0].URL != "http://127.0.0.1/a" || bs[0].LastSeq != -1 || *bs[1].URL != "http://127.0.0.1/b" || bs[1].LastSeq != 5 || bs[1].At != timeline.Time(34e6) {
		t.Errorf("boundaries %+v", bs)
	}
	if res.Err != nil || res.Capture.EndReason != "stopped" || res.Mapping != timeline.MappingMonotonic {
		t.Errorf("end %v %q, mapping %q", res.Err, res.Capture.EndReason, res.Mapping)
	}
}

func TestCaptureLongURLIsNull(t *testing.T) {
	s := newSynth(t, Options{InitialURL: strings.Repeat("a", timeline.MaxURL+1)})
	s.raw(event{kind: evNav, at: 1, url: "http://x/" + strings.Repeat("b", timeline.MaxURL)})
	s.raw(event{kind: evNav, at: 2, url: "http://x/" + strings.Repeat("b", timeline.MaxURL-9)})
	res, _ := s.finish()
	bs := res.Boundaries
	if len(bs) != 3 || bs[0].URL != nil || bs[1].URL != nil || bs[2].URL == nil || len(*bs[2].URL) != timeline.MaxURL {
		t.Errorf("boundaries: %v %v %v", bs[0].URL, bs[1].URL, bs[2].URL)
	}
}

func TestCaptureMappings(t *testing.T) {
	clock := synthClock(50)
	wallOf := func(ms float64) float64 { // wall seconds of take time ms
		return float64(clock.Origin-clock.Offset.Offset)/1e9 + ms/1e3
	}
	monoOf := func(ms float64) float64 { return float64(clock.Origin)/1e9 + ms/1e3 }
	cases := []struct {
		name    string
		forced  timeline.Mapping
		meta    func(ms float64) *page.ScreencastFrameMetadata
		mapping timeline.Mapping
		rejects bool
	}{
		{"monotonic", "", func(ms float64) *page.ScreencastFrameMetadata {
			return &page.ScreencastFrameMetadata{MonotonicTimestamp: cdp.MonotonicTime(monoOf(ms)), Timestamp: cdp.TimeSinceEpoch(wallOf(ms))}
		}, timeline.MappingMonotonic, false},
		{"wall only", "", func(ms float64) *page.ScreencastFrameMetadata {
			return &page.ScreencastFrameMetadata{Timestamp: cdp.TimeSinceEpoch(wallOf(ms))}
		}, timeline.MappingWallOffset, false},
		{"monotonic on another clock", "", func(ms float64) *page.ScreencastFrameMetadata {
			return &page.ScreencastFrameMetadata{MonotonicTimestamp: cdp.MonotonicTime(monoOf(ms) + 3600), Timestamp: cdp.TimeSinceEpoch(wallOf(ms))}
		}, timeline.MappingWallOffset, false},
		{"forced wall-offset", timeline.MappingWallOffset, func(ms float64) *page.ScreencastFrameMetadata {
			return &page.ScreencastFrameMetadata{MonotonicTimestamp: cdp.MonotonicTime(monoOf(ms)), Timestamp: cdp.TimeSinceEpoch(wallOf(ms))}
		}, timeline.MappingWallOffset, false},
		{"no times", "", func(float64) *page.ScreencastFrameMetadata { return &page.ScreencastFrameMetadata{} }, timeline.MappingReceipt, false},
		{"forced monotonic, missing", timeline.MappingMonotonic, func(ms float64) *page.ScreencastFrameMetadata {
			return &page.ScreencastFrameMetadata{Timestamp: cdp.TimeSinceEpoch(wallOf(ms))}
		}, timeline.MappingMonotonic, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSynth(t, Options{Clock: clock, Mapping: c.forced})
			for i, ms := range []float64{100, 116.667, 133.333} {
				s.raw(event{kind: evFrame, at: timeline.Time((ms + 50) * 1e6), frame: &page.EventScreencastFrame{Data: tinyJPEG, Metadata: c.meta(ms)}})
				_ = i
			}
			res, frames := s.finish()
			if res.Mapping != c.mapping || res.Clock.Mapping != c.mapping {
				t.Fatalf("mapping %q (clock %q), want %q", res.Mapping, res.Clock.Mapping, c.mapping)
			}
			if c.rejects {
				if a := res.Capture.Frames; a.Rejected != 3 || len(frames) != 0 {
					t.Errorf("accounting %+v, want every frame rejected", a)
				}
				return
			}
			if len(frames) != 3 {
				t.Fatalf("%d frames", len(frames))
			}
			for i, ms := range []float64{100, 116.667, 133.333} {
				want := timeline.Time(ms * 1e6)
				if c.mapping == timeline.MappingReceipt {
					want = timeline.Time((ms + 50) * 1e6)
				}
				if d := frames[i].Source - want; d > 1000 || d < -1000 {
					t.Errorf("frame %d: source %v, want %v", i, frames[i].Source, want)
				}
			}
			if c.mapping == timeline.MappingWallOffset {
				if res.Clock.OffsetNs != clock.WallToTake() || res.Clock.ErrorNs < clock.Offset.Error+wallQuantum {
					t.Errorf("clock %+v: offset or error bound missing", res.Clock)
				}
			} else if res.Clock.OffsetNs != 0 || res.Clock.ErrorNs != 0 {
				t.Errorf("clock %+v records an offset for %q", res.Clock, c.mapping)
			}
		})
	}
}

// A clock going backwards (more late frames in a row than the in-flight
// limit, after the reorder window) ends the interval with a ClockError;
// later frames are rejected.
func TestCaptureClockError(t *testing.T) {
	s := newSynth(t, Options{MaxFramesInFlight: 2})
	// The window holds one frame: 100 and 101 pass it in order, 102 waits
	// in it while 50, 51 and 52 come out behind 101, late, three in a row:
	// more than 2 in flight. 102, still held then, is rejected with 53 and
	// 200: once the clock went back, which side is right is not known.
	s.frame(100, 101)
	s.frame(101, 102)
	s.frame(102, 103)
	s.frame(50, 104)
	s.frame(51, 105)
	s.frame(52, 106)
	s.frame(53, 107)
	s.frame(200, 201)
	res, frames := s.finish()
	var ce *ClockError
	if !errors.As(res.Err, &ce) || ce.Run != 3 || ce.Limit != 2 {
		t.Fatalf("capture ended with %v, want a clock error", res.Err)
	}
	// 52 tips it, judged (released by the window) when 53 arrives; the
	// interval ends at its receipt.
	if !strings.Contains(res.Capture.EndReason, "source clock went backwards") || res.Capture.Ended != timeline.Time(106e6) {
		t.Errorf("end %q at %v", res.Capture.EndReason, res.Capture.Ended)
	}
	a := res.Capture.Frames
	if a.Delivered != 2 || a.Late != 3 || a.Rejected != 3 || len(frames) != 2 {
		t.Errorf("accounting %+v, %d frames", a, len(frames))
	}
	select {
	case <-s.c.Done():
	default:
		t.Error("Done not closed")
	}
}

// Frames after the interval ended (a crash here) are rejected, and the
// first reason stands.
func TestCaptureFramesAfterEnd(t *testing.T) {
	s := newSynth(t, Options{})
	s.frame(10, 11)
	s.raw(event{kind: evEnd, at: timeline.Time(12e6), err: ErrCrashed})
	s.raw(event{kind: evEnd, at: timeline.Time(13e6), err: errors.New("target detached: target_closed")})
	s.frame(20, 21)
	s.raw(event{kind: evSeed, at: timeline.Time(22e6), src: timeline.Time(22e6), data: tinyJPEG})
	res, frames := s.finish()
	if !errors.Is(res.Err, ErrCrashed) || res.Capture.EndReason != "renderer crashed" || res.Capture.Ended != timeline.Time(12e6) {
		t.Errorf("end %v %q at %v", res.Err, res.Capture.EndReason, res.Capture.Ended)
	}
	if a := res.Capture.Frames; a.Received != 3 || a.Delivered != 1 || a.Rejected != 2 || len(frames) != 1 {
		t.Errorf("accounting %+v", a)
	}
}

// A slow disk shows up as overflow, and the buffer never holds more than
// its bounds.
func TestCaptureSlowDiskOverflows(t *testing.T) {
	for _, bound := range []struct {
		name   string
		frames int
		bytes  int64
	}{
		{"count", 5, 0},
		{"bytes", 0, int64(3 * len(tinyJPEG))},
	} {
		t.Run(bound.name, func(t *testing.T) {
			release := make(chan struct{})
			var writing atomic.Int64
			o := Options{BufferFrames: bound.frames, BufferBytes: bound.bytes}
			if bound.frames == 0 {
				o.BufferFrames = -1 // no count bound: bytes only
			}
			o.WriteFile = func(name string, data []byte) error {
				writing.Add(1)
				<-release
				return os.WriteFile(name, data, 0o644)
			}
			s := newSynth(t, o)
			const n = 40
			for i := 0; i < n; i++ {
				s.frame(float64(10*(i+1)), float64(10*(i+1)+1))
			}
			s.waitReceived(n)
			s.c.bmu.Lock()
			held, heldBytes := s.c.buf.Len(), s.c.buf.Bytes()
			s.c.bmu.Unlock()
			maxItems := bound.frames
			if maxItems == 0 {
				maxItems = 3
			}
			if held > maxItems || (bound.bytes > 0 && heldBytes > bound.bytes) {
				t.Errorf("buffer holds %d frames, %d bytes: over its bounds", held, heldBytes)
			}
			close(release)
			res, frames := s.finish()
			a := res.Capture.Frames
			// At most one frame was in the writer's hands when the rest
			// arrived; everything else beyond the bound was evicted.
			if a.Overflow < int64(n-maxItems-1) || a.Delivered > int64(maxItems+1) || a.Delivered+a.Overflow != n || len(frames) != int(a.Delivered) {
				t.Errorf("accounting %+v with a buffer of %d", a, maxItems)
			}
			// The survivors are the newest frames.
			if last := frames[len(frames)-1]; last.Seq != n-1 {
				t.Errorf("last delivered frame is %d, want %d", last.Seq, n-1)
			}
		})
	}
}

// A failing disk ends the capture with the error: the frame being written
// and everything queued behind it count as rejected, and the take keeps
// what was written before.
func TestCaptureDiskFull(t *testing.T) {
	var writes atomic.Int64
	o := Options{WriteFile: func(name string, data []byte) error {
		if writes.Add(1) > 3 {
			_ = os.WriteFile(name, data[:1], 0o644) // partial
			return &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
		}
		return os.WriteFile(name, data, 0o644)
	}}
	s := newSynth(t, o)
	for i := 0; i < 20; i++ {
		s.frame(float64(10*(i+1)), float64(10*(i+1)+1))
	}
	s.waitReceived(20)
	res, frames := s.finish()
	if !errors.Is(res.Err, syscall.ENOSPC) || !strings.Contains(res.Capture.EndReason, "spool frame 3") {
		t.Fatalf("end %v (%q)", res.Err, res.Capture.EndReason)
	}
	a := res.Capture.Frames
	if a.Delivered != 3 || a.Rejected != 17 || !a.Balanced() || len(frames) != 3 {
		t.Errorf("accounting %+v, %d frames", a, len(frames))
	}
	if files, _ := filepath.Glob(filepath.Join(s.dir, "frames", "*.jpg")); len(files) != 3 {
		t.Errorf("%d files on disk, want 3 (the partial one removed)", len(files))
	}
}

// A frame whose picture was written but whose index record was not (the
// index's file failing) is removed with the capture's end: the take lists
// every picture it holds and holds every picture it lists.
func TestCaptureIndexFailureRemovesTheFrame(t *testing.T) {
	var s *synth
	var writes atomic.Int64
	s = newSynth(t, Options{WriteFile: func(name string, data []byte) error {
		if writes.Add(1) == 4 {
			_ = s.log.Close() // the index's next flush fails
		}
		return os.WriteFile(name, data, 0o644)
	}})
	for i := 0; i < 10; i++ {
		s.frame(float64(10*(i+1)), float64(10*(i+1)+1))
	}
	s.waitReceived(10)
	res := s.c.drain()
	if res.Err == nil || !strings.Contains(res.Capture.EndReason, "spool frame 3") {
		t.Fatalf("end %v (%q), want the index's failure at frame 3", res.Err, res.Capture.EndReason)
	}
	a := res.Capture.Frames
	if a.Delivered != 3 || a.Rejected != 7 || !a.Balanced() {
		t.Errorf("accounting %+v", a)
	}
	files, _ := filepath.Glob(filepath.Join(s.dir, "frames", "*.jpg"))
	index, err := os.ReadFile(filepath.Join(s.dir, "frames.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(index), "\n"); len(files) != 3 || lines != 3 {
		t.Errorf("%d pictures on disk and %d in the index, want 3 and 3", len(files), lines)
	}
}

// A seed stamped at or behind the last frame taken (a screencast frame made
// while the screenshot was) is kept just after it, not thrown away as late:
// it is the final state a settled picture exists for. A screencast frame
// older than the seed arriving after it is late.
func TestSeedBehindTheLastFrameIsKept(t *testing.T) {
	s := newSynth(t, Options{Tab: "main"})
	s.frame(10, 11)
	s.frame(30, 31)
	s.waitReceived(2)
	s.raw(event{kind: evSeed, at: timeline.Time(32e6), src: timeline.Time(20e6), data: tinyJPEG})
	s.waitReceived(3)
	s.frame(25, 33)
	s.frame(40, 41)
	s.waitReceived(5)
	res, frames := s.finish()
	a := res.Capture.Frames
	if a.Delivered != 4 || a.Late != 1 || !a.Balanced() {
		t.Fatalf("accounting %+v", a)
	}
	if seed := frames[2]; !seed.Seeded || seed.Source != frames[1].Source+1 {
		t.Errorf("the seed is kept at %v (seeded %v), want just after %v", seed.Source, seed.Seeded, frames[1].Source)
	}
}

// Snapshot is safe to call from other goroutines while frames flow (run
// with -race), and its counts only grow.
func TestCaptureSnapshotConcurrent(t *testing.T) {
	s := newSynth(t, Options{BufferFrames: 8})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var bad atomic.Value
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() { // owned by the test: ends when stop closes
			defer wg.Done()
			var prev Snapshot
			for {
				select {
				case <-stop:
					return
				default:
				}
				sn := s.c.Snapshot()
				if sn.Received < prev.Received || sn.Delivered+sn.Discarded > sn.Received || sn.Discarded != sn.Overflow+sn.Late+sn.Duplicates+sn.Rejected {
					bad.Store(fmt.Sprintf("%+v after %+v", sn, prev))
				}
				prev = sn
			}
		}()
	}
	for i := 0; i < 500; i++ {
		src := float64(10 * (i + 1))
		if i%7 == 3 {
			src -= 15 // late
		}
		s.frame(src, src+1)
		if i%50 == 0 {
			s.raw(event{kind: evNav, at: timeline.Time(src * 1e6), url: "http://x/"})
		}
	}
	s.waitReceived(500)
	res, _ := s.finish()
	close(stop)
	wg.Wait()
	if b := bad.Load(); b != nil {
		t.Error(b)
	}
	sn, a := s.c.Snapshot(), res.Capture.Frames
	if sn.Received != a.Received || sn.Delivered != a.Delivered || sn.Discarded != a.Discarded() || sn.Documents != len(res.Boundaries) {
		t.Errorf("final snapshot %+v, accounting %+v, %d documents", sn, a, len(res.Boundaries))
	}
}
