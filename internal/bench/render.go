package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/timeline"
)

type speedCase struct {
	Name   string                 `json:"name"`
	Result compositor.BenchResult `json:"result"`
}

type renderReport struct {
	Quality benchpage.VideoFigures `json:"quality"`
	Speed   []speedCase            `json:"speed,omitempty"`
}

// RenderOptions are clapper bench render's settings.
type RenderOptions struct {
	Take                            string
	W, H, FPS, Runs                 int
	Secs                            time.Duration
	Speed, Quality, NoSandbox, JSON bool
	Preset                          string
}

// Render runs the render benchmark: the speed cases on a synthetic take,
// then the resampling quality on a take of the bench page (recorded unless
// o.Take names one). It prints to w.
func Render(ctx context.Context, o RenderOptions, w io.Writer) error {
	work, err := os.MkdirTemp("", "clapper-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var rep renderReport
	if o.Speed {
		if err := renderSpeed(ctx, o, w, &rep); err != nil {
			return err
		}
	}
	if o.Quality {
		if err := renderQuality(ctx, o, w, work, &rep); err != nil {
			return err
		}
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return nil
}

// renderQuality renders a take of the bench page at o.FPS and decodes
// every output frame against the resampling contract.
func renderQuality(ctx context.Context, o RenderOptions, out io.Writer, work string, rep *renderReport) error {
	takeDir, w, h, secs, fps := o.Take, o.W, o.H, o.Secs, o.FPS
	if takeDir == "" {
		co := CaptureOptions{Seconds: secs, Runs: 1, Quality: 85, InFlight: 3, EveryNth: 1, SendLast: true, NoSandbox: o.NoSandbox, Keep: work}
		srv, url, err := servePage()
		if err != nil {
			return err
		}
		_, _, err = liveRun(ctx, co, w, h, 1, url, 1)
		srv.Close()
		if err != nil {
			return fmt.Errorf("record the bench page: %w", err)
		}
		takeDir = filepath.Join(work, fmt.Sprintf("%dx%d-run1", w, h))
	}
	tk, err := timeline.Open(takeDir)
	if err != nil {
		return err
	}
	s := compositor.DefaultSettings()
	s.FPS, s.Cursor.Enabled, s.Captions, s.Chapters = fps, false, "none", false
	video := filepath.Join(work, "quality.mp4")
	if err := compositor.Render(ctx, tk, video, s, nil); err != nil {
		return err
	}
	if rep.Quality, err = benchpage.AnalyzeVideo(ctx, takeDir, video, fps, ""); err != nil {
		return err
	}
	if !o.JSON {
		q := rep.Quality
		fmt.Fprintf(out, "quality at %d fps: %d ticks, %d decoded, %d exact (%.3f), coverage %.3f of delivered page frames (%.3f of painted), backwards %d, error vs the contract p50/p95/max %.2f/%.2f/%.2f ms\n",
			q.FPS, q.Ticks, q.Decoded, q.Exact, float64(q.Exact)/float64(max(1, q.Ticks)), q.Coverage, q.CoveragePainted, q.Backwards, q.Error.P50, q.Error.P95, q.Error.Max)
	}
	return nil
}

// renderSpeed renders a busy synthetic take in the four speed cases.
func renderSpeed(ctx context.Context, o RenderOptions, out io.Writer, rep *renderReport) error {
	{
		vp := timeline.Viewport{Width: 1280, Height: 720, Scale: 1}
		for _, c := range []struct {
			name     string
			w, h     int
			fps      int
			overlays bool
		}{{"720p30 plain", 1280, 720, 30, false}, {"720p30 overlays", 1280, 720, 30, true}, {"1080p60 plain", 1920, 1080, 60, false}, {"1080p60 overlays", 1920, 1080, 60, true}} {
			s := compositor.DefaultSettings()
			s.Width, s.Height, s.FPS = c.w, c.h, c.fps
			if o.Preset != "" {
				s.X264Preset = o.Preset
			}
			if c.overlays {
				s.Frame.Enabled, s.Frame.Bar, s.Zoom.Auto, s.Keys = true, true, true, true
			} else {
				s.Cursor.Enabled, s.Captions, s.Chapters = false, "none", false
			}
			r, err := compositor.Bench(ctx, compositor.BenchOptions{Viewport: vp, Duration: o.Secs, Settings: s, Runs: o.Runs})
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			rep.Speed = append(rep.Speed, speedCase{c.name, r})
			if !o.JSON {
				fmt.Fprintf(out, "%-18s %s\n", c.name, r)
			}
		}
	}
	return nil
}
