package compositor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// BenchmarkLongTakeMemory renders busy takes of 1 and 10 minutes at 720p30
// and reports the peak resident memory of this process (VmHWM) and of
// ffmpeg (the largest waited child), after each. Memory is bounded when the
// 10-minute figures equal the 1-minute ones. Run it alone:
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
