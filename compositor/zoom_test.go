package compositor

import (
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

func TestAutoZoomEndsAtANewDocument(t *testing.T) {
	tl := &timeline.Timeline{Viewport: timeline.Viewport{Width: 1280, Height: 720, Scale: 1},
		Steps:      []timeline.Step{{Kind: "click", Traits: timeline.Traits{ChangesPage: true, Focus: true}, Start: msT(1000), End: msT(1500), Region: &timeline.Rect{X: 100, Y: 100, W: 50, H: 20}}},
		Boundaries: []timeline.Boundary{{Document: 0, At: 0}, {Document: 1, At: msT(1800)}}}
	shots := zoomShots(tl, ZoomSettings{Auto: true, Scale: 1.6, MaxScale: 3})
	if len(shots) != 1 || shots[0].End != msT(1800) {
		t.Errorf("shots %+v: want one ending at the navigation (1.8s)", shots)
	}
	tl.Boundaries = tl.Boundaries[:1]
	if shots := zoomShots(tl, ZoomSettings{Auto: true, Scale: 1.6, MaxScale: 3}); len(shots) != 1 || shots[0].End != msT(2500) {
		t.Errorf("shots %+v: want the usual hold to 2.5s", shots)
	}
}
