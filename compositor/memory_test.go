package compositor

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// Rendering streams: Go holds one frame's bytes at a time, whatever the
// take's length. A take of 256 frames of 256 KiB (64 MiB, each frame fed
// three times) is rendered through a stand-in ffmpeg that reads and
// discards its input, and the live heap, measured after a collection every
// few frames handed over, must stay within 8 MiB of what it was before the
// render: a renderer that kept frames, or read the take whole, crosses it
// within the first sixth of the take.
func TestRenderMemoryBounded(t *testing.T) {
	const (
		frames    = 256
		frameSize = 256 << 10
		limit     = 8 << 20
	)
	dir := t.TempDir()
	takeDir := filepath.Join(dir, "take")
	log, err := timeline.CreateTake(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, frameSize)
	for i := 0; i < frames; i++ {
		// Each frame's bytes differ, as a capture's do.
		for j := 0; j < len(data); j += 4096 {
			data[j] = byte(i)
		}
		fr := timeline.Frame{Seq: int64(i), Source: timeline.FromDuration(ms(100 * i)), Received: timeline.FromDuration(ms(100*i + 3)),
			Width: 640, Height: 360, Bytes: frameSize, File: timeline.FramePath(int64(i)), PageScaleFactor: 1, DeviceWidth: 640, DeviceHeight: 360}
		if err := os.WriteFile(filepath.Join(takeDir, fr.File), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := log.Append(fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	data = nil
	end := timeline.FromDuration(ms(100 * frames))
	tl := &timeline.Timeline{Name: "long", Tool: "compositor-test", Outcome: timeline.RunOK, End: end,
		Viewport: timeline.Viewport{Width: 640, Height: 360, Scale: 1},
		Capture:  timeline.Capture{Ended: end, EndReason: "stopped", Frames: timeline.Accounting{Received: frames, Delivered: frames, Upstream: "unknown"}}}
	if err := timeline.WriteTimeline(takeDir, tl); err != nil {
		t.Fatal(err)
	}
	tk, err := timeline.Open(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	// The stand-in encoder drains its input; the output file it should
	// write stays the empty one the publisher reserved.
	fake := filepath.Join(dir, "drain-ffmpeg")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexec cat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.FFmpeg, s.FPS = fake, 30
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := live()
	var peak uint64
	calls, lastDone := 0, 0
	err = Render(context.Background(), tk, filepath.Join(dir, "out.mp4"), s, func(done, total int) {
		calls++
		lastDone = done
		if calls%16 == 0 || done == total {
			peak = max(peak, live())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if lastDone != frames*3 || calls < frames/2 {
		t.Fatalf("progress reached %d of %d ticks in %d calls: the frames were not all fed", lastDone, frames*3, calls)
	}
	if peak < base {
		peak = base
	}
	if grew := peak - base; grew > limit {
		t.Errorf("the live heap grew by %.1f MiB while rendering a take of %d MiB, more than %d MiB", float64(grew)/(1<<20), frames*frameSize>>20, limit>>20)
	}
}

// BenchmarkLongTakeMemory is a benchmark, not a test: it renders busy
// takes of 1 and 10 minutes at 720p30 with the real ffmpeg and reports the
// peak resident memory of this process (VmHWM) and of ffmpeg (the largest
// waited child) after each, for a person to compare (the 10-minute figures
// should equal the 1-minute ones). It asserts nothing;
// TestRenderMemoryBounded asserts the bound on Go's side. Run it alone:
//
//	go test ./compositor/ -run '^$' -bench LongTakeMemory -benchtime 1x -timeout 30m
func BenchmarkLongTakeMemory(b *testing.B) {
	testenv.Need(b, "ffmpeg")
	for _, d := range []time.Duration{time.Minute, 10 * time.Minute} {
		b.Run(d.String(), func(b *testing.B) {
			dir := b.TempDir()
			tk, err := BusyTake(filepath.Join(dir, "take"), timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, d)
			if err != nil {
				b.Fatal(err)
			}
			s := DefaultSettings()
			s.X264Preset = "ultrafast"
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if err := Render(context.Background(), tk, filepath.Join(dir, "out.mp4"), s, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(d.Seconds()*float64(b.N)/time.Since(start).Seconds(), "x-realtime")
			b.ReportMetric(float64(vmHWM())/1024, "go-peak-MB")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "ffmpeg-peak-MB")
			}
		})
	}
}

// vmHWM returns this process's peak resident set in KiB.
func vmHWM() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}
