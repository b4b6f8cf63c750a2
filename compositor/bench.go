package compositor

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// BenchOptions describe a render benchmark over a synthetic busy take.
type BenchOptions struct {
	// Viewport is the page in CSS pixels and its scale; the capture is
	// Viewport x Scale device pixels.
	Viewport timeline.Viewport
	// Duration is the take's length; frames arrive at ~60 Hz with jitter.
	Duration time.Duration
	// Settings render it (size, fps, overlays).
	Settings Settings
	// Runs is how many times to render (the median is reported).
	Runs int
	// Dir holds the take and outputs; "" uses a temporary folder, removed
	// afterwards.
	Dir string
}

// BenchResult is the median of the runs.
type BenchResult struct {
	Runs int
	// Video is the output's length, Wall the median render time.
	Video, Wall time.Duration
	// Speed is Video / Wall: how many times faster than real time.
	Speed float64
	// CPUPerSecond is CPU seconds (clapper and ffmpeg, user+system) spent
	// per second of output video.
	CPUPerSecond float64
	Frames       int
}

func (r BenchResult) String() string {
	return fmt.Sprintf("%d frames, %.1fs of video in %.2fs: %.2fx real time, %.2f CPU-s per output second (median of %d)",
		r.Frames, r.Video.Seconds(), r.Wall.Seconds(), r.Speed, r.CPUPerSecond, r.Runs)
}

// Bench builds a synthetic busy take (moving shapes on every frame, a
// pointer sweeping and clicking, typing, captions; the camera zooms when
// the settings' auto zoom is on) and renders it
// o.Runs times to an .mp4, timing each run.
func Bench(ctx context.Context, o BenchOptions) (BenchResult, error) {
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if o.Duration <= 0 {
		o.Duration = 5 * time.Second
	}
	if o.Viewport.Width <= 0 || o.Viewport.Height <= 0 {
		o.Viewport = timeline.Viewport{Width: 1280, Height: 720, Scale: 1}
	}
	if o.Viewport.Scale <= 0 {
		o.Viewport.Scale = 1
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "clapper-bench-")
		if err != nil {
			return BenchResult{}, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	tk, err := BusyTake(filepath.Join(dir, "take"), o.Viewport, o.Duration)
	if err != nil {
		return BenchResult{}, err
	}
	var walls, cpus []float64
	res := BenchResult{Runs: o.Runs}
	for i := 0; i < o.Runs; i++ {
		out := filepath.Join(dir, fmt.Sprintf("bench-%d.mp4", i))
		start := time.Now()
		frames := 0
		cpu, err := cpuOf(func() error {
			return Render(ctx, tk, out, o.Settings, func(d, _ int) { frames = d })
		})
		if err != nil {
			return res, err
		}
		wall := time.Since(start)
		os.Remove(out)
		s, _ := o.Settings.normalize()
		res.Frames = frames
		res.Video = time.Duration(int64(frames) * int64(time.Second) / int64(s.FPS))
		walls = append(walls, wall.Seconds())
		cpus = append(cpus, cpu)
	}
	res.Wall = time.Duration(median(walls) * float64(time.Second))
	res.Speed = res.Video.Seconds() / median(walls)
	res.CPUPerSecond = median(cpus) / res.Video.Seconds()
	return res, nil
}

// cpuOf runs f and returns the CPU it took, this process's and its
// children's (user and system).
func cpuOf(f func() error) (float64, error) {
	var self0, kids0, self1, kids1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
	err := f()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1)
	return cpuDelta(self0, self1) + cpuDelta(kids0, kids1), err
}

func cpuDelta(a, b syscall.Rusage) float64 {
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(b.Utime) - tv(a.Utime) + tv(b.Stime) - tv(a.Stime)
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BusyTake writes a synthetic take to dir: frames at ~60 Hz with jitter for
// d, each different (a sliding gradient and moving boxes, as busy as a
// scrolling page), 48 distinct images cycled; a pointer sweeping, clicking
// and typing; a caption and a chapter step (no zoom step: auto zoom
// follows the clicks and typing).
func BusyTake(dir string, vp timeline.Viewport, d time.Duration) (*timeline.Take, error) {
	log, err := timeline.CreateTake(dir)
	if err != nil {
		return nil, err
	}
	w, h := int(float64(vp.Width)*vp.Scale), int(float64(vp.Height)*vp.Scale)
	const distinct = 48
	imgs := make([][]byte, distinct)
	for i := range imgs {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				o := img.PixOffset(x, y)
				v := uint8((x + y + i*24) % 256)
				img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = 240-v/4, 235-v/5, 230, 255
			}
		}
		for b := 0; b < 12; b++ {
			bx := (b*w/12 + i*w/distinct) % w
			by := (b*97 + i*13) % (h - h/10)
			fill(img, bx, by, w/16, h/10, color.RGBA{uint8(40 + b*15), uint8(90 + b*10), 200, 255})
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
			return nil, err
		}
		imgs[i] = buf.Bytes()
	}
	// Each distinct image is written once and shared by the frames that
	// show it, so a long take costs little disk.
	files := make([]string, distinct)
	for i, b := range imgs {
		files[i] = fmt.Sprintf("%s/busy%02d.jpg", timeline.FramesDir, i)
		if err := os.WriteFile(filepath.Join(dir, files[i]), b, 0o644); err != nil {
			return nil, err
		}
	}
	period := int64(time.Second / 60)
	var n int64
	for t := int64(0); t < int64(d); t += period {
		jitter := (n * 7919 % 5) * int64(time.Millisecond)
		fr := timeline.Frame{Seq: n + 1, Source: timeline.Time(t + jitter), Received: timeline.Time(t + jitter + 3e6),
			Width: w, Height: h, Bytes: len(imgs[n%distinct]), File: files[n%distinct]}
		if err := log.Append(fr); err != nil {
			return nil, err
		}
		n++
	}
	if err := log.Close(); err != nil {
		return nil, err
	}
	end := timeline.Time(d)
	tl := &timeline.Timeline{
		Name: "bench", Tool: "clapper-bench", Viewport: vp, Start: 0, End: end, Outcome: "ok",
		Capture: timeline.Capture{Started: 0, Ended: end, EndReason: "stopped",
			Frames: timeline.Accounting{Received: n, Delivered: n, Upstream: "unknown"}},
		Steps: []timeline.Step{
			{Kind: kindChapter, Traits: timeline.Traits{Presentation: true}, Text: "Bench", Start: 0, Outcome: "ok"},
			{Kind: kindCaption, Traits: timeline.Traits{Presentation: true}, Text: "A busy synthetic page", Start: 0, Duration: d / 2, Outcome: "ok"},
			{Kind: "click", Traits: timeline.Traits{ChangesPage: true, Focus: true}, Start: end / 3, End: end/3 + timeline.Time(300*time.Millisecond), Outcome: "ok",
				Region: &timeline.Rect{X: float64(vp.Width) * 0.6, Y: float64(vp.Height) * 0.4, W: 120, H: 40}},
		},
	}
	// The pointer sweeps in 16 ms steps, clicking every second, typing between.
	for t := int64(0); t < int64(d); t += period {
		u := float64(t) / float64(d)
		x := float64(vp.Width) * (0.1 + 0.8*u)
		y := float64(vp.Height) * (0.5 + 0.3*math.Sin(u*6*math.Pi))
		tl.Receipts = append(tl.Receipts, timeline.Receipt{Kind: timeline.InputMove, X: x, Y: y, Sent: timeline.Time(t), Acked: timeline.Time(t + 1e6)})
		if t%int64(time.Second) < period {
			tl.Receipts = append(tl.Receipts,
				timeline.Receipt{Kind: timeline.InputDown, X: x, Y: y, Sent: timeline.Time(t + 2e6), Button: "left", Clicks: 1},
				timeline.Receipt{Kind: timeline.InputUp, X: x, Y: y, Sent: timeline.Time(t + 8e6), Button: "left", Clicks: 1},
				timeline.Receipt{Kind: timeline.InputKey, Type: "keyDown", Key: "a", Sent: timeline.Time(t + 9e6)})
		}
	}
	if err := timeline.WriteTimeline(dir, tl); err != nil {
		return nil, err
	}
	return timeline.Open(dir)
}

func fill(img *image.RGBA, x0, y0, w, h int, c color.RGBA) {
	b := img.Bounds()
	for y := max(y0, b.Min.Y); y < min(y0+h, b.Max.Y); y++ {
		for x := max(x0, b.Min.X); x < min(x0+w, b.Max.X); x++ {
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = c.R, c.G, c.B, 255
		}
	}
}
