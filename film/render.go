package film

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// RenderConfig is the take's render.json.
type RenderConfig = compositor.RenderConfig

func ConfigOf(o scripts.Output) RenderConfig {
	return RenderConfig{Video: o.Video, FPS: o.FPS, Width: o.Width, Height: o.Height, Preset: o.Preset, Options: o.Options}
}

// RenderFlags are command-line overrides of the take's render settings.
type RenderFlags struct {
	Preset        string
	FPS           int
	Width, Height int
	NoCursor      bool
	Plain         bool
	FFmpeg        string
	CRF           int
	X264Preset    string
}

// RenderSettings builds the compositor's settings: a preset (flag, else
// the script's), the script's output options, then the flags.
func RenderSettings(rc RenderConfig, f RenderFlags) (compositor.Settings, error) {
	s := compositor.DefaultSettings()
	preset := rc.Preset
	if f.Preset != "" {
		preset = f.Preset
	}
	if preset != "" {
		p, err := compositor.Preset(preset)
		if err != nil {
			return s, err
		}
		s = p
	}
	s.Set(rc.Options)
	if f.Preset == "" {
		if rc.FPS > 0 {
			s.FPS = rc.FPS
		}
		if rc.Width > 0 {
			s.Width, s.Height = rc.Width, rc.Height
		}
	}
	if f.FPS > 0 {
		s.FPS = f.FPS
	}
	if f.Width > 0 {
		s.Width, s.Height = f.Width, f.Height
	}
	if f.NoCursor {
		s.Cursor.Enabled = false
	}
	if f.Plain {
		s.Frame.Enabled = false
		s.Zoom.Auto, s.Zoom.MaxScale = false, 1
		s.Captions, s.StepLabels, s.Keys, s.Cuts = "none", false, false, false
	}
	if f.FFmpeg != "" {
		s.FFmpeg = f.FFmpeg
	}
	if f.CRF > 0 {
		s.CRF = f.CRF
	}
	if f.X264Preset != "" {
		s.X264Preset = f.X264Preset
	}
	// Check the flags' values too, before anything renders.
	return s, s.Check()
}

// RenderOutputs renders a take to the named outputs in one pass (relative
// names land in outDir). The take is only read. shown is the take as the
// user named it (a bundle's path, not the temporary folder it was
// unpacked into).
func RenderOutputs(ctx context.Context, takeDir, shown, outDir string, outs []string, s compositor.Settings, ui *UI) error {
	return RenderOutputsCached(ctx, takeDir, shown, outDir, outs, s, ui, nil)
}

// RenderOutputsCached is RenderOutputs using the chunks rendered while the
// take was captured (nil: none).
func RenderOutputsCached(ctx context.Context, takeDir, shown, outDir string, outs []string, s compositor.Settings, ui *UI, cache *compositor.ChunkCache) error {
	tk, err := timeline.Open(takeDir)
	if err != nil {
		return err
	}
	if tk.Timeline.Capture.Frames.Delivered == 0 {
		return fmt.Errorf("the take %s has no frames to render", shown)
	}
	if r := tk.Timeline.Recovered; r != nil {
		ui.Warnf("the take %s was recovered (%s): the video ends where its run did", shown, r.Reason)
	}
	paths := outputPaths(outDir, outs)
	started := time.Now()
	bar := ui.Bar("render", 0)
	err = compositor.RenderAllCached(ctx, tk, paths, s, bar.Set, cache)
	bar.Done()
	if err != nil {
		return fmt.Errorf("render: %w (the take %s is kept)", err, shown)
	}
	for _, p := range paths {
		size := int64(0)
		if st, err := os.Stat(p); err == nil {
			size = st.Size()
		}
		ui.Printf("video: %s (%.1f MB)\n", p, float64(size)/1e6)
	}
	ui.Printf("rendered %s of video in %.1fs\n", time.Duration(tk.Timeline.End-tk.Timeline.Start).Round(100*time.Millisecond), time.Since(started).Seconds())
	return nil
}

// OutputError names the script in an error of its render settings, its
// secrets masked; path is the script as the user named it. An option's own
// error is refused at load, at its file:line:col (scripts.Load): what is
// left here concerns the settings together (a preset, the bounds of the
// whole).
func OutputError(path string, s *scripts.Script, err error) error {
	return fmt.Errorf("%s: %s", path, s.Mask(err.Error()))
}

// outputPaths are the files the outputs name: relative names land in
// outDir ("" for the working folder).
func outputPaths(outDir string, outs []string) []string {
	paths := make([]string, len(outs))
	for i, o := range outs {
		paths[i] = o
		if outDir != "" && !filepath.IsAbs(o) {
			paths[i] = filepath.Join(outDir, o)
		}
	}
	return paths
}
