package compositor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// BenchmarkRender renders a synthetic busy take at 720p30 and 1080p60, plain
// (no overlays), with the cursor, and with every studio overlay (frame with
// bar, captions, keys, auto zoom). Each b.N iteration runs Bench with three
// runs; metrics are medians:
//
//	go test ./compositor/ -run '^$' -bench Render -benchtime 1x
func BenchmarkRender(b *testing.B) {
	requireTool(b, "ffmpeg")
	cases := []struct {
		name string
		vp   timeline.Viewport
		w, h int
		fps  int
	}{
		{"720p30", timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 1280, 720, 30},
		{"1080p60", timeline.Viewport{Width: 1280, Height: 720, Scale: 1.5}, 1920, 1080, 60},
	}
	variants := []struct {
		name string
		set  func(*Settings)
	}{
		{"plain", func(s *Settings) { s.Cursor.Enabled = false }},
		{"cursor", func(s *Settings) {}},
		{"studio", func(s *Settings) {
			s.Frame.Enabled, s.Frame.Bar = true, true
			s.Captions, s.Keys, s.Zoom.Auto = "burn", true, true
		}},
	}
	for _, c := range cases {
		for _, v := range variants {
			b.Run(c.name+"/"+v.name, func(b *testing.B) {
				s := DefaultSettings()
				s.Width, s.Height, s.FPS = c.w, c.h, c.fps
				v.set(&s)
				var r BenchResult
				for i := 0; i < b.N; i++ {
					var err error
					r, err = Bench(context.Background(), BenchOptions{Viewport: c.vp, Duration: 5 * time.Second, Settings: s, Runs: 3})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.Speed, "x-realtime")
				b.ReportMetric(r.CPUPerSecond, "cpu-s/out-s")
				b.Logf("%s/%s: %v", c.name, v.name, r)
			})
		}
	}
}

// BenchmarkWriteBackground: the frame picture of the docs preset (1920x1080,
// window, shadow and bar over a gradient), drawn and encoded, as a render's
// prepare does the first time (writeBackground then keeps it).
func BenchmarkWriteBackground(b *testing.B) {
	s := docsWith(b, map[string]any{"frame": map[string]any{"bar": true}})
	s, err := s.normalize()
	if err != nil {
		b.Fatal(err)
	}
	g, err := layout(2560, 1440, timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, s.Width, s.Height, s.Fit, s.Frame)
	if err != nil {
		b.Fatal(err)
	}
	var n int
	for b.Loop() {
		d, err := encodeBackground(g, s.Frame)
		if err != nil {
			b.Fatal(err)
		}
		n = len(d.yuv)
	}
	b.ReportMetric(float64(n), "bytes")
}

// renderVariants are the settings of the compositor a benchmark compares,
// each off against on.
var renderVariants = []struct {
	name string
	set  func(s *Settings, on bool)
}{
	{"keep-freed-memory", func(s *Settings, on bool) { s.tune.freeMemory = !on }},
	{"zoom-still-ticks", zoomStill},
	{"unzoom-whole-chunks", unzoomWhole},
}

// zoomStill and unzoomWhole turn two of the render's ways to save work
// on or off (tuning).
func zoomStill(s *Settings, on bool)   { s.tune.zoomEveryTick = !on }
func unzoomWhole(s *Settings, on bool) { s.tune.zoomWholeChunks = !on }

// BenchmarkRenderVariants renders one synthetic busy take (1280x720 at
// scale 2, the docs preset: 1920x1080 at 60 fps in a window frame, auto
// zoom, captions, keys) with each of renderVariants off and on, the two
// alternating in one run so that both see the same machine, and reports
// the median CPU (clapper and ffmpeg) per output second of each and their
// ratio:
//
//	go test ./compositor/ -run '^$' -bench RenderVariants -benchtime 1x
func BenchmarkRenderVariants(b *testing.B) {
	requireTool(b, "ffmpeg")
	dir := b.TempDir()
	tk, err := BusyTake(filepath.Join(dir, "take"), timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	s := docsWith(b, map[string]any{"frame": map[string]any{"bar": true}, "zoom": map[string]any{"auto": true}, "captions": "burn", "keys": true})
	const runs = 5
	for _, v := range renderVariants {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				var off, on []float64
				for i := 0; i < runs; i++ {
					for _, state := range []bool{false, true} {
						vs := s
						v.set(&vs, state)
						cpu, err := cpuOf(func() error { return Render(context.Background(), tk, filepath.Join(dir, "out.mp4"), vs, nil) })
						if err != nil {
							b.Fatal(err)
						}
						if state {
							on = append(on, cpu)
						} else {
							off = append(off, cpu)
						}
					}
				}
				b.ReportMetric(median(off), "cpu-s-off")
				b.ReportMetric(median(on), "cpu-s-on")
				b.ReportMetric(median(on)/median(off), "on/off")
				b.Logf("%s: off %.2f CPU-s, on %.2f CPU-s (medians of %d, alternating): on/off %.3f", v.name, median(off), median(on), runs, median(on)/median(off))
			}
		})
	}
}
