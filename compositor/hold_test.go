package compositor

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// A take with a hold renders: while the stage tab is held no frame
// arrives, and every output tick of the held stretch repeats the last
// frame before it; the first frame after the resume follows on time.
// Input sent to the scout tab during the hold is not drawn.
func TestRenderTakeWithHold(t *testing.T) {
	requireTool(t, "ffmpeg")
	at := func(n int) timeline.Time { return timeline.FromDuration(ms(n)) }
	frames := []synthFrame{
		{ms(50), palette[0]}, {ms(400), palette[1]}, {ms(700), palette[2]}, // held from 1000 to 2200
		{ms(2250), palette[3]}, {ms(2600), palette[4]},
	}
	tl := timeline.Timeline{
		Name: "hold", Viewport: timeline.Viewport{Width: 320, Height: 180, Scale: 1},
		Start: 0, End: at(3000),
		Capture: timeline.Capture{Tab: "stage", Started: 0, Ended: at(3000), EndReason: "stopped"},
		Steps: []timeline.Step{
			{Index: 0, Kind: "goto", Line: 4, Tab: "stage", Start: at(0), End: at(300), Outcome: timeline.OutcomeOK},
			{Index: 1, Kind: "hold", Line: 5, Tab: "stage", Start: at(1000), End: at(1010), Outcome: timeline.OutcomeOK},
			{Index: 2, Kind: "click", Line: 6, Tab: "scout", Start: at(1100), End: at(1500), Outcome: timeline.OutcomeOK},
			{Index: 3, Kind: "resume", Line: 7, Tab: "stage", Start: at(2190), End: at(2200), Outcome: timeline.OutcomeOK},
		},
		Receipts: []timeline.Receipt{
			{Kind: timeline.InputMove, Tab: "scout", X: 160, Y: 90, Sent: at(1200), Acked: at(1201)},
			{Kind: timeline.InputDown, Tab: "scout", X: 160, Y: 90, Sent: at(1300), Acked: at(1301), Button: "left", Clicks: 1},
			{Kind: timeline.InputUp, Tab: "scout", X: 160, Y: 90, Sent: at(1350), Acked: at(1351), Button: "left", Clicks: 1},
		},
		Holds: []timeline.Hold{{Tab: "stage", Receipt: "hold-1", Start: at(1000), End: at(2200)}},
	}
	tk := writeTake(t, t.TempDir(), 320, 180, frames, tl)
	if len(tk.Timeline.Holds) != 1 {
		t.Fatalf("the take lost its hold: %+v", tk.Timeline.Holds)
	}
	out := filepath.Join(t.TempDir(), "hold.mp4")
	s := DefaultSettings()
	s.FPS = 30
	if err := Render(context.Background(), tk, out, s, nil); err != nil {
		t.Fatal(err)
	}
	p := probe(t, out)
	if n, _ := strconv.Atoi(p.Streams[0].NbReadFrame); n != 90 {
		t.Fatalf("decoded %s frames, want 90 (3 s at 30 fps)", p.Streams[0].NbReadFrame)
	}
	// Tick k shows the last frame at or before k/30 s.
	want := func(k int) int {
		sec := int(float64(k) * 1000 / 30)
		w := 0
		for i, f := range frames {
			if int(f.at.Milliseconds()) <= sec {
				w = i
			}
		}
		return w
	}
	ks := make([]int, 90)
	for k := range ks {
		ks[k] = k
	}
	held := 0
	for k, f := range rgbFrames(t, out, 320, 180, ks) {
		w := want(k)
		for _, pt := range [][2]int{{300, 10}, {160, 90}, {20, 170}} {
			got, d := nearest(px(f, 320, pt[0], pt[1]))
			if got != w || d > 40 {
				t.Errorf("tick %d (%.3fs): (%d,%d) shows palette %d (distance %.0f), want frame %d", k, float64(k)/30, pt[0], pt[1], got, d, w)
			}
		}
		if sec := float64(k) / 30; sec >= 1.0 && sec < 2.2 {
			held++
			if w != 2 {
				t.Fatalf("tick %d in the hold expects frame %d: the test's own table is wrong", k, w)
			}
		}
	}
	if held != 36 {
		t.Errorf("%d ticks in the held stretch, want 36", held)
	}
}
