package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/size"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// renderConfig is the take's render.json.
type renderConfig = compositor.RenderConfig

func configOf(o scripts.Output) renderConfig {
	return renderConfig{Video: o.Video, FPS: o.FPS, Width: o.Width, Height: o.Height, Preset: o.Preset, Options: o.Options}
}

// renderFlags are command-line overrides of the take's render settings.
type renderFlags struct {
	preset        string
	fps           int
	width, height int
	noCursor      bool
	plain         bool
	ffmpeg        string
	crf           int
	x264Preset    string
}

func renderCommand() *cli.Command {
	return &cli.Command{
		Name:  "render",
		Usage: "re-render a stored take with other settings, no browser needed",
		Description: "Renders a take (folder or .clap) again without a browser: the script's videos beside the take, or each -o file\n" +
			"(.mp4, .webm, .gif, or .png for a folder of frames), with the take's output settings changed by the flags.\n" +
			"Example: clapper render out/quickstart/take -o square.mp4 --size 1080x1080",
		ArgsUsage: "TAKE",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "out", Aliases: []string{"o"}, Usage: "output file: .mp4, .webm, .gif or .png (a folder of frames); repeatable (default: the script's videos beside the take)"},
			&cli.StringFlag{Name: "preset", Usage: "docs (1920x1080 60 fps), social (1080x1080 framed) or readme (GIF)"},
			&cli.IntFlag{Name: "fps", DefaultText: "the take's, else 30", Usage: "frame rate, 1 to 120: 24, 25, 30, 50 or 60 play everywhere"},
			&cli.StringFlag{Name: "size", Usage: "output size WIDTHxHEIGHT, e.g. 1920x1080"},
			&cli.BoolFlag{Name: "no-cursor", Usage: "do not draw the pointer"},
			&cli.IntFlag{Name: "crf", DefaultText: "the take's, else 20", Usage: "x264 quality, 1 to 51 (lower is better and larger)"},
			&cli.StringFlag{Name: "x264-preset", Usage: "x264 speed preset: ultrafast … veryslow"},
			&cli.BoolFlag{Name: "plain", Usage: "the capture as recorded: no window frame, zoom, captions or cuts (the cursor stays)"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("render takes one take folder, e.g. clapper render out/quickstart/take")
			}
			f := renderFlags{preset: c.String("preset"), fps: c.Int("fps"), noCursor: c.Bool("no-cursor"), plain: c.Bool("plain"), ffmpeg: c.String("ffmpeg"),
				crf: c.Int("crf"), x264Preset: c.String("x264-preset")}
			for _, n := range []struct{ name, span string }{{"fps", "1 to 120"}, {"crf", "1 to 51"}} {
				if c.IsSet(n.name) && c.Int(n.name) < 1 {
					return usageErr("--%s %d: use %s, or leave it out for the take's", n.name, c.Int(n.name), n.span)
				}
			}
			if sz := c.String("size"); sz != "" {
				w, h, err := parseSize(sz)
				if err != nil {
					return usageErr("--size %q: %v", sz, err)
				}
				f.width, f.height = w, h
			}
			// Videos go beside the take, or beside the bundle it came in.
			outDir := filepath.Dir(filepath.Clean(c.Args().First()))
			takeDir, _, done, err := checkedTakeArg(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			defer done()
			rc, err := compositor.ReadRenderConfig(takeDir)
			if err != nil {
				return err
			}
			s, err := renderSettings(rc, f)
			if err != nil {
				return usageErr("%v", err)
			}
			outs := c.StringSlice("out")
			if len(outs) == 0 {
				// Names from the take make new files only: a take is data,
				// and must not choose a file to replace.
				s.NewFilesOnly = true
				outs = rc.Video
				if len(outs) == 0 {
					outs = []string{"video.mp4"}
				}
			} else {
				outDir = ""
			}
			// A folder a run is writing is that run's.
			for _, o := range outs {
				dir := outDir
				if dir == "" || filepath.IsAbs(o) {
					dir = filepath.Dir(o)
				}
				if holder, busy := folderInUse(dir); busy {
					return usageErr("%s is in use by %s: wait for it to end, or render with -o elsewhere", dir, holder)
				}
			}
			return renderOutputs(c.Context, takeDir, c.Args().First(), outDir, outs, s, newUI(c.Bool("quiet")))
		},
	}
}

func parseSize(s string) (int, int, error) { return size.Parse(s) }

// renderSettings builds the compositor's settings: a preset (flag, else
// the script's), the script's output options, then the flags.
func renderSettings(rc renderConfig, f renderFlags) (compositor.Settings, error) {
	s := compositor.DefaultSettings()
	preset := rc.Preset
	if f.preset != "" {
		preset = f.preset
	}
	if preset != "" {
		p, err := compositor.Preset(preset)
		if err != nil {
			return s, err
		}
		s = p
	}
	if err := s.Apply(rc.Options); err != nil {
		return s, err
	}
	if f.preset == "" {
		if rc.FPS > 0 {
			s.FPS = rc.FPS
		}
		if rc.Width > 0 {
			s.Width, s.Height = rc.Width, rc.Height
		}
	}
	if f.fps > 0 {
		s.FPS = f.fps
	}
	if f.width > 0 {
		s.Width, s.Height = f.width, f.height
	}
	if f.noCursor {
		s.Cursor.Enabled = false
	}
	if f.plain {
		s.Frame.Enabled = false
		s.Zoom.Auto, s.Zoom.MaxScale = false, 1
		s.Captions, s.StepLabels, s.Keys, s.Cuts = "none", false, false, false
	}
	if f.ffmpeg != "" {
		s.FFmpeg = f.ffmpeg
	}
	if f.crf > 0 {
		s.CRF = f.crf
	}
	if f.x264Preset != "" {
		s.X264Preset = f.x264Preset
	}
	// Check the flags' values too, before anything renders.
	if err := s.Apply(nil); err != nil {
		return s, err
	}
	return s, nil
}

// renderOutputs renders a take to the named outputs in one pass (relative
// names land in outDir). The take is only read. shown is the take as the
// user named it (a bundle's path, not the temporary folder it was
// unpacked into).
func renderOutputs(ctx context.Context, takeDir, shown, outDir string, outs []string, s compositor.Settings, ui *ui) error {
	return renderOutputsCached(ctx, takeDir, shown, outDir, outs, s, ui, nil)
}

// renderOutputsCached is renderOutputs using the chunks rendered while the
// take was captured (nil: none).
func renderOutputsCached(ctx context.Context, takeDir, shown, outDir string, outs []string, s compositor.Settings, ui *ui, cache *compositor.ChunkCache) error {
	tk, err := timeline.Open(takeDir)
	if err != nil {
		return err
	}
	if tk.Timeline.Capture.Frames.Delivered == 0 {
		return fmt.Errorf("the take %s has no frames to render", shown)
	}
	if r := tk.Timeline.Recovered; r != nil {
		fmt.Fprintf(os.Stderr, "clapper: the take %s was recovered (%s): the video ends where its run did\n", shown, r.Reason)
	}
	paths := make([]string, len(outs))
	for i, o := range outs {
		paths[i] = o
		if outDir != "" && !filepath.IsAbs(o) {
			paths[i] = filepath.Join(outDir, o)
		}
	}
	started := time.Now()
	bar := ui.bar("render", 0)
	err = compositor.RenderAllCached(ctx, tk, paths, s, bar.set, cache)
	bar.done()
	if err != nil {
		return fmt.Errorf("render: %w (the take %s is kept)", err, shown)
	}
	for _, p := range paths {
		size := int64(0)
		if st, err := os.Stat(p); err == nil {
			size = st.Size()
		}
		ui.printf("video: %s (%.1f MB)\n", p, float64(size)/1e6)
	}
	ui.printf("rendered %s of video in %.1fs\n", time.Duration(tk.Timeline.End-tk.Timeline.Start).Round(100*time.Millisecond), time.Since(started).Seconds())
	return nil
}

// outputError places an error in the script's output options at the
// option it concerns, as file:line:col with the line and a caret, like every
// other script error. path is the script as the user named it.
func outputError(path string, s *scripts.Script, err error) error {
	msg := s.Mask(err.Error())
	var oe *compositor.OptionError
	if !errors.As(err, &oe) {
		return fmt.Errorf("%s: %s", path, msg)
	}
	pos, ok := s.Output.OptionPos[oe.Key]
	if !ok {
		return fmt.Errorf("%s: %s", path, msg)
	}
	e := &scripts.Error{Pos: scripts.Pos{File: path, Line: pos.Line, Col: pos.Col}, Msg: msg}
	if b, rerr := os.ReadFile(pos.File); rerr == nil {
		if lines := strings.Split(string(b), "\n"); pos.Line >= 1 && pos.Line <= len(lines) {
			e.Source = strings.TrimRight(lines[pos.Line-1], "\r")
		}
	}
	return e
}
