package compositor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// keyOfFirstChunk prepares the first chunk of tk in dir as a render does
// (without ffmpeg) and returns its cache key; edit, when given, changes
// the whole take's overlay script before the chunk is cut from it.
func keyOfFirstChunk(t *testing.T, tk *timeline.Take, s Settings, dir string, edit func(string) string) string {
	t.Helper()
	s, err := s.normalize()
	if err != nil {
		t.Fatal(err)
	}
	ti, err := scanFrames(tk)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlan(tk, ti, s, s.FPS, s.Width, s.Height)
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main")
	sp, err := prepare(tk, p, s, main)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Overlay == "" {
		t.Fatal("no overlay script: the test needs one")
	}
	if edit != nil {
		b, err := os.ReadFile(sp.Overlay)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sp.Overlay, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cr, stop := newChunkRuns(tk, p.schedule)
	defer stop()
	out := outputSpec{Format: formatMP4, CRF: s.CRF, Preset: s.X264Preset}
	j, err := prepareChunk(0, planChunks(p.schedule.Ticks(), s.FPS)[0], cr, p.schedule, sp, out, main)
	if err != nil {
		t.Fatal(err)
	}
	return j.key
}

// A chunk's cache key is the same in any render's folder, and changes
// with what the chunk's overlay draws inside it, not with what the take's
// overlay draws elsewhere: a chunk rendered while capturing is used only
// when the finished take gives it the same cursor, ripples and captions.
// The overlay is named in the filter graph only, not in ffmpeg's
// arguments; a long graph is passed in a file whose paths are the
// render's own.
func TestChunkKeyDigestsTheOverlay(t *testing.T) {
	tk := liveTake(t, timeline.FromDuration(ms(8000)))
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 30, 640, 360
	s.Captions = "burn"
	event := func(from, to string) func(string) string {
		return func(ass string) string {
			return strings.TrimRight(ass, "\n") + "\nDialogue: 0," + from + "," + to + ",Default,,0,0,0,,{\\pos(10,10)}stale\n"
		}
	}
	for _, inline := range []bool{true, false} {
		name := "graph in the arguments"
		s := s
		if !inline {
			name = "graph in a file"
			s.tune.maxInlineGraph = 16
		}
		t.Run(name, func(t *testing.T) {
			a := keyOfFirstChunk(t, tk, s, t.TempDir(), nil)
			if b := keyOfFirstChunk(t, tk, s, t.TempDir(), nil); a != b {
				t.Errorf("the same chunk in two folders: keys %s and %s", a, b)
			}
			if b := keyOfFirstChunk(t, tk, s, t.TempDir(), event("0:00:00.40", "0:00:00.60")); a == b {
				t.Error("an overlay event inside the chunk left its key as it was")
			}
			if b := keyOfFirstChunk(t, tk, s, t.TempDir(), event("0:00:06.00", "0:00:07.00")); a != b {
				t.Error("an overlay event after the chunk changed its key")
			}
		})
	}
}
