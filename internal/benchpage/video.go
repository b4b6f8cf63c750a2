package benchpage

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"io"
	"os/exec"
	"strconv"

	"github.com/clapper-dev/clapper/timeline"
)

// VideoFigures say how faithfully a video rendered from a take of the bench
// page resamples it: every output tick k at Start + k/fps should show the
// latest delivered frame at or before it (the first frame before that).
type VideoFigures struct {
	FPS     int `json:"fps"`
	Ticks   int `json:"ticks"`
	Decoded int `json:"decoded"`
	// Exact counts the ticks showing the frame the contract names.
	Exact int `json:"exact"`
	// Coverage is the distinct page frames the video shows over the
	// distinct page frames the take delivered (what the compositor could
	// show); CoveragePainted is over the page frames painted meanwhile.
	Coverage        float64 `json:"coverage"`
	CoveragePainted float64 `json:"coverage_painted"`
	// Backwards counts ticks whose page frame is older than the previous
	// tick's.
	Backwards int `json:"backwards"`
	// Error is, per tick, how far the shown frame's source time is from
	// the expected frame's.
	Error Dist `json:"error"`
}

// AnalyzeVideo decodes every frame of video (rendered from the take in dir
// at fps, at the capture's size, without zoom or frame) with ffmpeg and
// compares it with the resampling contract.
func AnalyzeVideo(ctx context.Context, dir, video string, fps int, ffmpeg string) (VideoFigures, error) {
	tk, samples, err := decodeTake(dir)
	if err != nil {
		return VideoFigures{}, err
	}
	// The contract is over every delivered frame, seeded ones included;
	// coverage counts the screencast's own page frames.
	var real []Sample
	bySource := map[uint32]timeline.Time{}
	delivered := map[uint32]bool{}
	for _, s := range samples {
		if s.Decoded {
			real = append(real, s)
			bySource[s.Code.Counter] = s.Source
			if !s.Seeded {
				delivered[s.Code.Counter] = true
			}
		}
	}
	if len(delivered) == 0 {
		return VideoFigures{}, fmt.Errorf("take %s: no decodable bench frames", dir)
	}
	var first timeline.Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			return VideoFigures{}, err
		}
		first = fr
		break
	}
	w, h := first.Width, first.Height
	if ffmpeg == "" {
		ffmpeg = "ffmpeg"
	}
	cmd := exec.CommandContext(ctx, ffmpeg, "-v", "error", "-i", video, "-vf", "scale="+strconv.Itoa(w)+":"+strconv.Itoa(h), "-f", "rawvideo", "-pix_fmt", "rgba", "-")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return VideoFigures{}, err
	}
	if err := cmd.Start(); err != nil {
		return VideoFigures{}, fmt.Errorf("decode %s: %w", video, err)
	}
	defer cmd.Wait()
	r := bufio.NewReaderSize(out, 1<<20)
	scale := float64(w) / float64(tk.Timeline.Viewport.Width)
	f := VideoFigures{FPS: fps}
	start := tk.Timeline.Start
	shown := map[uint32]bool{}
	var errs []float64
	var prev uint32
	havePrev := false
	next := 0 // index into real of the first frame after the tick
	for k := 0; ; k++ {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		if _, err := io.ReadFull(r, img.Pix); err != nil {
			break
		}
		f.Ticks++
		t := start + timeline.Time(int64(k)*1e9/int64(fps))
		for next < len(real) && real[next].Source <= t {
			next++
		}
		want := real[max(0, next-1)]
		c, err := Decode(img, scale)
		if err != nil {
			continue
		}
		f.Decoded++
		if c.Counter == want.Code.Counter {
			f.Exact++
		}
		if delivered[c.Counter] {
			shown[c.Counter] = true
		}
		if src, ok := bySource[c.Counter]; ok {
			d := float64(src-want.Source) / 1e6
			if d < 0 {
				d = -d
			}
			errs = append(errs, d)
		}
		if havePrev && counterBefore(c.Counter, prev) {
			f.Backwards++
		}
		prev, havePrev = c.Counter, true
	}
	if f.Ticks == 0 {
		return f, fmt.Errorf("decode %s: no frames", video)
	}
	f.Coverage = float64(len(shown)) / float64(len(delivered))
	lo, hi := ^uint32(0), uint32(0)
	for c := range delivered {
		lo, hi = min(lo, c), max(hi, c)
	}
	if painted := int(hi-lo) + 1; painted > 0 {
		f.CoveragePainted = float64(len(shown)) / float64(painted)
	}
	f.Error = dist(errs)
	return f, nil
}

// counterBefore reports whether a comes before b on the page's 24-bit
// frame counter.
func counterBefore(a, b uint32) bool {
	return (b-a)&0xFFFFFF != 0 && (b-a)&0xFFFFFF < 1<<23
}
