package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/timeline"
)

func benchRenderCommand() *cli.Command {
	return &cli.Command{
		Name:        "render",
		Usage:       "render speed (720p30, 1080p60, with and without overlays) and resampling quality on a take of the bench page",
		Description: "Example: clapper bench render --seconds 5 --runs 3",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "take", Usage: "a take of the bench page (from bench capture --keep); default: record one"},
			&cli.StringFlag{Name: "size", Value: "1280x720", Usage: "viewport of the take to record"},
			&cli.Float64Flag{Name: "seconds", Value: 10, Usage: "length of the take to record, and of the synthetic take for speed"},
			&cli.IntFlag{Name: "fps", Value: 60, Usage: "output rate for the quality check"},
			&cli.IntFlag{Name: "runs", Value: 3, Usage: "renders per speed case; figures are their medians"},
			&cli.BoolFlag{Name: "no-speed", Usage: "skip the speed cases"},
			&cli.StringFlag{Name: "x264-preset", Usage: "x264 preset for the speed cases (default: the compositor's)"},
			&cli.BoolFlag{Name: "no-quality", Usage: "skip the quality check (and recording a take)"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			w, h, err := parseSize(c.String("size"))
			if err != nil {
				return usageErr("--size: %v", err)
			}
			secs := time.Duration(c.Float64("seconds") * float64(time.Second))
			return benchRender(c.Context, benchRenderOptions{take: c.String("take"), w: w, h: h, secs: secs, fps: c.Int("fps"), runs: c.Int("runs"),
				speed: !c.Bool("no-speed"), quality: !c.Bool("no-quality"), noSandbox: c.Bool("no-sandbox"), json: c.Bool("json"), preset: c.String("x264-preset")})
		},
	}
}

type speedCase struct {
	Name   string                 `json:"name"`
	Result compositor.BenchResult `json:"result"`
}

type renderReport struct {
	Quality benchpage.VideoFigures `json:"quality"`
	Speed   []speedCase            `json:"speed,omitempty"`
}

type benchRenderOptions struct {
	take                            string
	w, h, fps, runs                 int
	secs                            time.Duration
	speed, quality, noSandbox, json bool
	preset                          string
}

func benchRender(ctx context.Context, o benchRenderOptions) error {
	work, err := os.MkdirTemp("", "clapper-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var rep renderReport
	if o.speed {
		if err := benchRenderSpeed(ctx, o, &rep); err != nil {
			return err
		}
	}
	if o.quality {
		if err := benchRenderQuality(ctx, o, work, &rep); err != nil {
			return err
		}
	}
	if o.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return nil
}

// benchRenderQuality renders a take of the bench page at o.fps and decodes
// every output frame against the resampling contract.
func benchRenderQuality(ctx context.Context, o benchRenderOptions, work string, rep *renderReport) error {
	takeDir, w, h, secs, fps := o.take, o.w, o.h, o.secs, o.fps
	if takeDir == "" {
		co := benchCaptureOptions{seconds: secs, runs: 1, quality: 85, inFlight: 3, everyNth: 1, sendLast: true, noSandbox: o.noSandbox, keep: work}
		srv, url, err := serveBenchPage()
		if err != nil {
			return err
		}
		_, _, err = benchCaptureRun(ctx, co, w, h, 1, url, 1)
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
	if !o.json {
		q := rep.Quality
		fmt.Printf("quality at %d fps: %d ticks, %d decoded, %d exact (%.3f), coverage %.3f of delivered page frames (%.3f of painted), backwards %d, error vs the contract p50/p95/max %.2f/%.2f/%.2f ms\n",
			q.FPS, q.Ticks, q.Decoded, q.Exact, float64(q.Exact)/float64(max(1, q.Ticks)), q.Coverage, q.CoveragePainted, q.Backwards, q.Error.P50, q.Error.P95, q.Error.Max)
	}
	return nil
}

// benchRenderSpeed renders a busy synthetic take in the four speed cases.
func benchRenderSpeed(ctx context.Context, o benchRenderOptions, rep *renderReport) error {
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
			if o.preset != "" {
				s.X264Preset = o.preset
			}
			if c.overlays {
				s.Frame.Enabled, s.Frame.Bar, s.Zoom.Auto, s.Keys = true, true, true, true
			} else {
				s.Cursor.Enabled, s.Captions, s.Chapters = false, "none", false
			}
			r, err := compositor.Bench(ctx, compositor.BenchOptions{Viewport: vp, Duration: o.secs, Settings: s, Runs: o.runs})
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			rep.Speed = append(rep.Speed, speedCase{c.name, r})
			if !o.json {
				fmt.Printf("%-18s %s\n", c.name, r)
			}
		}
	}
	return nil
}
