package compositor

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func timeDur(ns int64) time.Duration { return time.Duration(ns) }

func fmtSscanf(s, f string, a ...any) (int, error) { return fmt.Sscanf(s, f, a...) }

type colorRGBA = color.RGBA

// addFrame writes frame fr's picture b into the take at dir and appends fr
// to the take's frame log.
func addFrame(t testing.TB, dir string, log *timeline.FrameLog, fr timeline.Frame, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, fr.File), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(fr); err != nil {
		t.Fatal(err)
	}
}

// finishTake writes tl as the timeline of the take at dir, whose frame log
// holds n frames (all delivered), and opens the take as rendering reads it.
func finishTake(t testing.TB, dir string, tl *timeline.Timeline, n int64) *timeline.Take {
	t.Helper()
	tl.Capture.Frames = timeline.Accounting{Received: n, Delivered: n, Upstream: "unknown"}
	if err := timeline.WriteTimeline(dir, tl); err != nil {
		t.Fatal(err)
	}
	tk, err := timeline.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}
