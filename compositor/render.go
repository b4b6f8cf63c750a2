package compositor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clapper-dev/clapper/timeline"
)

// plan is everything decided before ffmpeg starts.
type plan struct {
	settings Settings
	schedule *Schedule
	geometry Geometry
	track    *CursorTrack
}

// newPlan reads the take's timeline and first frame record (not the frames'
// bytes) and decides the schedule and the geometry.
func newPlan(tk *timeline.Take, s Settings) (*plan, error) {
	tl := tk.Timeline
	if tl == nil {
		return nil, errors.New("take has no timeline")
	}
	first, last, n, err := frameSpan(tk)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("take has no frames to render")
	}
	start, end := tl.Start, tl.End
	if end <= start {
		// A take cut short may lack its end: run to the last frame.
		end = last.Source + timeline.Time(second/int64(s.FPS))
		if end <= start {
			end = start + timeline.Time(second/int64(s.FPS))
		}
	}
	sched, err := NewSchedule(s.FPS, start, end, nil)
	if err != nil {
		return nil, err
	}
	geo, err := NewGeometry(first.Width, first.Height, tl.Viewport, s.Width, s.Height)
	if err != nil {
		return nil, fmt.Errorf("frame %d: %w", first.Seq, err)
	}
	return &plan{
		settings: s,
		schedule: sched,
		geometry: geo,
		track:    NewCursorTrack(tl.Receipts, tl.Capture.Tab),
	}, nil
}

// frameSpan streams the frame index once and returns the first and last
// frames and their count.
func frameSpan(tk *timeline.Take) (first, last timeline.Frame, n int, err error) {
	for fr, err := range tk.Frames() {
		if err != nil {
			return first, last, n, err
		}
		if n == 0 {
			first = fr
		}
		last = fr
		n++
	}
	return first, last, n, nil
}

// Render renders the take to out (an .mp4 file) with settings s. progress, if
// not nil, is called on the calling goroutine after each run of output frames
// is handed to ffmpeg, with the frames done and the total; it must not block.
//
// The take is never modified. ffmpeg writes to a temporary file beside out,
// renamed into place on success and removed on any failure or when ctx ends
// (ffmpeg is killed then).
func Render(ctx context.Context, tk *timeline.Take, out string, s Settings, progress func(done, total int)) error {
	s, err := s.normalize()
	if err != nil {
		return fmt.Errorf("render settings: %w", err)
	}
	if ext := strings.ToLower(filepath.Ext(out)); ext != ".mp4" {
		return fmt.Errorf("render %s: unsupported output format %q (use .mp4)", out, ext)
	}
	bin, err := lookFFmpeg(s.FFmpeg)
	if err != nil {
		return err
	}
	p, err := newPlan(tk, s)
	if err != nil {
		return fmt.Errorf("render %s: %w", tk.Dir, err)
	}

	work, err := os.MkdirTemp("", "clapper-render-")
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	defer os.RemoveAll(work)

	overlay := ""
	if s.Cursor.Enabled {
		overlay = filepath.Join(work, "overlay.ass")
		if err := writeFile(overlay, func(w io.Writer) error {
			return writeOverlay(w, overlayInput{Schedule: p.schedule, Geometry: p.geometry, Cursor: s.Cursor, Track: p.track})
		}); err != nil {
			return fmt.Errorf("write overlay script: %w", err)
		}
	}

	tmp, err := tempBeside(out)
	if err != nil {
		return fmt.Errorf("render %s: %w", out, err)
	}
	keep := false
	defer func() {
		if !keep {
			os.Remove(tmp)
		}
	}()
	args, err := buildArgs(encodeSpec{
		FPS: s.FPS, Geometry: p.geometry, Overlay: overlay, Background: s.Background,
		CRF: s.CRF, Preset: s.X264Preset, Output: tmp,
	})
	if err != nil {
		return err
	}
	err = runFFmpeg(ctx, bin, args, func(w io.Writer) error {
		return feedFrames(ctx, tk, p.schedule, w, progress)
	})
	if err != nil {
		return fmt.Errorf("render %s: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("render %s: %w", out, err)
	}
	keep = true
	return nil
}

// tempBeside reserves a temporary file in out's folder with out's extension,
// so ffmpeg can write it and a rename publishes it.
func tempBeside(out string) (string, error) {
	dir, base := filepath.Split(out)
	if dir == "" {
		dir = "."
	}
	ext := filepath.Ext(base)
	f, err := os.CreateTemp(dir, "."+strings.TrimSuffix(base, ext)+".partial-*"+ext)
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	return name, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// feedFrames streams the take's frames through the resampler and writes each
// output tick's JPEG bytes to w, one frame's bytes in memory at a time.
// Errors reading the take are feedErrors.
func feedFrames(ctx context.Context, tk *timeline.Take, sched *Schedule, w io.Writer, progress func(done, total int)) error {
	rs := NewResampler(sched)
	total := sched.Ticks()
	done := 0
	write := func(run Run) error {
		b, err := tk.ReadFrame(run.Frame)
		if err != nil {
			return feedError{err}
		}
		for i := 0; i < run.Count; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		done += run.Count
		if progress != nil {
			progress(done, total)
		}
		return nil
	}
	for fr, err := range tk.Frames() {
		if err != nil {
			return feedError{err}
		}
		if run, ok := rs.Push(fr); ok {
			if err := write(run); err != nil {
				return err
			}
		}
	}
	if run, ok := rs.Flush(); ok {
		return write(run)
	}
	return nil
}
