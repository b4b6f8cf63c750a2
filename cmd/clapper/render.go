package main

import (
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/internal/size"
)

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
			&cli.StringFlag{Name: "size", Usage: "output size WIDTHxHEIGHT, even sides from 16 to 8192, e.g. 1920x1080"},
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
			f := film.RenderFlags{Preset: c.String("preset"), FPS: c.Int("fps"), NoCursor: c.Bool("no-cursor"), Plain: c.Bool("plain"), FFmpeg: c.String("ffmpeg"),
				CRF: c.Int("crf"), X264Preset: c.String("x264-preset")}
			if c.IsSet("fps") && outrules.CheckFPS(c.Int("fps")) != nil {
				return usageErr("--fps %d: use %s, or leave it out for the take's", c.Int("fps"), outrules.FPSHint)
			}
			if c.IsSet("preset") {
				if err := outrules.CheckPreset(c.String("preset")); err != nil {
					return usageErr("--preset: %v", err)
				}
			}
			if c.IsSet("crf") && (c.Int("crf") < 1 || c.Int("crf") > 51) {
				return usageErr("--crf %d: use 1 to 51, or leave it out for the take's", c.Int("crf"))
			}
			if sz := c.String("size"); sz != "" {
				w, h, err := parseSize(sz)
				if err == nil {
					err = outrules.CheckSize(w, h)
				}
				if err != nil {
					return usageErr("--%v", err) // "--size ...: why"
				}
				f.Width, f.Height = w, h
			}
			// Videos go beside the take, or beside the bundle it came in.
			outDir := filepath.Dir(filepath.Clean(c.Args().First()))
			takeDir, _, done, err := film.CheckedTakeArg(c.Context, c.Args().First(), c.App.ErrWriter)
			if err != nil {
				return err
			}
			defer done()
			if err := film.RefusePruned(c.Args().First(), takeDir); err != nil {
				return err
			}
			rc, err := compositor.ReadRenderConfig(takeDir)
			if err != nil {
				return err
			}
			s, err := film.RenderSettings(rc, f)
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
				if holder, busy := film.FolderInUse(dir); busy {
					return usageErr("%s is in use by %s: wait for it to end, or render with -o elsewhere", dir, holder)
				}
			}
			return film.RenderOutputs(c.Context, takeDir, c.Args().First(), outDir, outs, s, film.NewUI(c.Bool("quiet"), c.App.Writer, c.App.ErrWriter))
		},
	}
}

func parseSize(s string) (int, int, error) { return size.Parse(s) }
