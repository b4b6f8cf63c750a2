package compositor

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// A chunk's camera is whole only when zoompan would compute zoom 1 at each
// of its ticks from constant leaves: checked over random cameras cut to
// random chunks, and by cases.
func TestZoomTrackWhole(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	wholes := 0
	for trial := 0; trial < 5000; trial++ {
		n := 2 + r.Intn(200)
		zt := randomTrack(r, n)
		first := r.Intn(n)
		c := chunk{First: first, Count: 1 + r.Intn(n-first)}
		cut := zt.cut(c)
		if !cut.whole() {
			continue
		}
		wholes++
		for k := 0; k < c.Count; k++ {
			if z := exprValues(cut, k)[0]; z != 1 {
				t.Fatalf("trial %d: whole, but zoom %v at tick %d of the chunk (segs %+v)", trial, z, k, cut.segs)
			}
			if z := zt.At(c.First + k).Z; z != 1 {
				t.Fatalf("trial %d: whole, but the take's camera is at zoom %v at tick %d", trial, z, c.First+k)
			}
		}
		for _, sg := range cut.segs {
			if sg.From.Z != sg.To.Z {
				t.Fatalf("trial %d: whole with an easing zoom (segs %+v)", trial, cut.segs)
			}
		}
	}
	if wholes < 500 {
		t.Fatalf("only %d of 5000 random chunks were whole: the check says little", wholes)
	}
	centre := zoomState{1, 640, 360}
	in := zoomSeg{K0: 100, K1: 120, From: centre, To: zoomState{2, 300, 200}}
	out := zoomSeg{K0: 200, K1: 220, From: zoomState{2, 300, 200}, To: centre}
	pan := zoomSeg{K0: 300, K1: 320, From: centre, To: zoomState{1, 100, 100}}
	track := &ZoomTrack{base: centre, segs: []zoomSeg{in, out, pan}}
	for _, c := range []struct {
		c    chunk
		want bool
	}{
		{chunk{0, 60}, true},    // before the zoom
		{chunk{60, 60}, false},  // the zoom starts in it
		{chunk{120, 60}, false}, // held in
		{chunk{220, 60}, false}, // eased out before it: its expression is computed
		{chunk{300, 60}, true},  // a pan at zoom 1
		{chunk{90, 10}, true},   // ends where the zoom starts
		{chunk{90, 11}, false},
	} {
		if got := track.cut(c.c).whole(); got != c.want {
			t.Errorf("chunk %+v: whole %v, want %v", c.c, got, c.want)
		}
	}
	if !(*ZoomTrack)(nil).whole() || (&ZoomTrack{base: zoomState{1.5, 640, 360}}).whole() {
		t.Error("no track is whole; a track held at 1.5 is not")
	}
}

// A chunked MP4 is the same video, frame for frame, whether its chunks
// whose camera is whole are zoomed at zoom 1 or not zoomed at all: at the
// capture's size, shrunk and enlarged. Those chunks' graphs have no
// zoompan.
func TestWholeCameraChunksSameVideo(t *testing.T) {
	tk := liveTake(t, timeline.FromDuration(ms(4000))) // the zoom in at 2.5 s, 120 ticks
	dir := t.TempDir()
	wrapper, graphs := graphLoggingFFmpeg(t, dir)
	for _, size := range [][2]int{{640, 360}, {320, 180}, {960, 540}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := DefaultSettings()
			s.FPS, s.Width, s.Height = 30, size[0], size[1]
			s.FFmpeg = wrapper
			render := func(unzoom bool) ([]string, string) {
				return renderFlagged(t, tk, s, unzoomWhole, unzoom, filepath.Join(dir, fmt.Sprintf("%dx%d-%v.mp4", size[0], size[1], unzoom)), graphs)
			}
			zoomed, zoomedGraphs := render(false)
			unzoomed, unzoomedGraphs := render(true)
			chunks := len(planChunks(120, 30))
			// The zoom step comes at 2.5 s: the first two chunks are whole.
			if n := strings.Count(zoomedGraphs, "zoompan="); n != chunks {
				t.Fatalf("every chunk zoomed: %d of %d graphs zoom", n, chunks)
			}
			if n := strings.Count(unzoomedGraphs, "zoompan="); n != chunks-2 {
				t.Fatalf("%d of %d graphs zoom, want all but the first two:\n%s", n, chunks, unzoomedGraphs)
			}
			if len(zoomed) != 120 || len(unzoomed) != 120 || !strings.HasPrefix(zoomed[0], rgbFrame(size[0], size[1])+" ") {
				t.Fatalf("the renders decode to %d and %d frames (the first %v), want 120 of %dx%d", len(zoomed), len(unzoomed), zoomed[:min(1, len(zoomed))], size[0], size[1])
			}
			for k := range 120 {
				if zoomed[k] != unzoomed[k] {
					t.Fatalf("frame %d differs between a whole camera zoomed at 1 and not zoomed", k)
				}
			}
		})
	}
}

// A chunk rendered while capturing, before the take had a zoom step, is
// used by the final render of the take with one: its camera is whole, so it
// is rendered unzoomed either way.
func TestChunkRenderedBeforeAZoomIsUsed(t *testing.T) {
	requireTool(t, "ffmpeg")
	ctx := context.Background()
	s := DefaultSettings()
	s.FPS, s.Width, s.Height = 30, 640, 360
	cache := &ChunkCache{Dir: t.TempDir() + "/chunks"}
	// Known up to 2.4 s, before the zoom step at 2.5 s: the first chunk
	// (0 to 1 s) is settled.
	n, _, err := renderEarly(ctx, liveTake(t, timeline.FromDuration(ms(2400))), s, cache, 0, nil)
	if err != nil || n == 0 {
		t.Fatalf("rendered early: %d chunks, %v", n, err)
	}
	out := filepath.Join(t.TempDir(), "v.mp4")
	if err := RenderAllCached(ctx, liveTake(t, timeline.FromDuration(ms(8000))), []string{out}, s, nil, cache); err != nil {
		t.Fatal(err)
	}
	if used := cache.Used.Load(); used != int64(n) {
		t.Fatalf("the final render used %d of the %d chunks rendered before the take had a zoom", used, n)
	}
}
