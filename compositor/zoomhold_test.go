package compositor

import (
	"math"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// A zoom step's duration is its motion: the zoom holds until the next zoom
// step, a new document or the end of the take.
func TestZoomHeldUntil(t *testing.T) {
	zoomAt := func(at, d int) timeline.Step {
		return timeline.Step{Kind: kindZoom, Region: &timeline.Rect{X: 100, Y: 100, W: 200, H: 100}, Scale: 1.5, Start: msT(at), Duration: ms(d)}
	}
	reset := func(at, d int) timeline.Step {
		return timeline.Step{Kind: kindZoom, Scale: 1, Start: msT(at), Duration: ms(d)}
	}
	pause := func(at int) timeline.Step { return timeline.Step{Kind: "pause", Start: msT(at), End: msT(at + 1500)} }
	for _, c := range []struct {
		name    string
		tl      timeline.Timeline
		end     timeline.Time
		out     time.Duration
		comment string
	}{
		{"reset", timeline.Timeline{Steps: []timeline.Step{zoomAt(1000, 600), pause(1000), reset(2500, 0)}, End: msT(9000)}, msT(2500), 0, "held through the pause"},
		{"reset with a motion", timeline.Timeline{Steps: []timeline.Step{zoomAt(1000, 600), reset(4000, 800)}}, msT(4000), ms(800), "the reset's duration is the way out"},
		{"next zoom", timeline.Timeline{Steps: []timeline.Step{zoomAt(1000, 600), pause(1000), zoomAt(3000, 300), reset(5000, 0)}}, msT(3000), ms(300), "the next zoom takes over"},
		{"new document", timeline.Timeline{Steps: []timeline.Step{zoomAt(1000, 600), reset(5000, 0)}, Boundaries: []timeline.Boundary{{At: msT(500)}, {At: msT(2000)}}}, msT(2000), 0, "a boundary before the zoom does not count"},
		{"end of take", timeline.Timeline{Steps: []timeline.Step{zoomAt(1000, 600), pause(1000)}, End: msT(7000)}, msT(7000), 0, "held to the end"},
		{"end unknown", timeline.Timeline{Steps: []timeline.Step{zoomAt(1000, 600)}}, endOfTake, 0, "a timeline without an end"},
		{"reset after the end", timeline.Timeline{Steps: []timeline.Step{zoomAt(1000, 600), reset(8000, 500)}, End: msT(7000)}, msT(7000), 0, "the end comes first"},
	} {
		end, out := zoomHeldUntil(&c.tl, 0)
		if end != c.end || out != c.out {
			t.Errorf("%s (%s): held until %v, out %v; want %v, %v", c.name, c.comment, end, out, c.end, c.out)
		}
	}
}

// The product tour: zoom onto the plans with a 600 ms motion, a 1.5 s
// pause, zoom: reset. The camera arrives after 600 ms and stays until the
// reset, then eases out over the default ease.
func TestZoomHoldsUntilReset(t *testing.T) {
	vp := timeline.Viewport{Width: 1280, Height: 720, Scale: 1}
	tl := &timeline.Timeline{Viewport: vp, End: msT(6000), Steps: []timeline.Step{
		{Kind: kindZoom, Region: &timeline.Rect{X: 240, Y: 200, W: 800, H: 300}, Scale: 1.5, Duration: ms(600), Start: msT(1000), End: msT(1001)},
		{Kind: "pause", Start: msT(1001), End: msT(2501)},
		{Kind: kindZoom, Scale: 1, Start: msT(2501), End: msT(2502)},
	}}
	zs := ZoomSettings{Scale: 1.6, MaxScale: 3, Ease: 400 * time.Millisecond}
	shots := zoomShots(tl, zs)
	if len(shots) != 1 {
		t.Fatalf("shots = %+v, want one", shots)
	}
	s, _ := newSchedule(10, 0, msT(6000), nil)
	zt := newZoomTrack(shots, s, vp, zs.Ease)
	in := zoomState{1.5, 640, 350}
	base := zoomState{1, 640, 360}
	for _, c := range []struct {
		k    int
		want zoomState
	}{
		{9, base}, {10, base}, {13, zoomState{1.25, 640, 355}}, {16, in}, {20, in}, {25, in},
		{26, in}, {28, zoomState{1.25, 640, 355}}, {30, base}, {59, base},
	} {
		got := zt.At(c.k)
		if math.Abs(got.Z-c.want.Z) > 1e-9 || math.Abs(got.CX-c.want.CX) > 1e-9 || math.Abs(got.CY-c.want.CY) > 1e-9 {
			t.Errorf("At(%d) = %+v, want %+v", c.k, got, c.want)
		}
	}
}
