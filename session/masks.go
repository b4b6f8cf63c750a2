package session

import (
	"context"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// maskLimit bounds reading where a step's masks are, after the step.
const maskLimit = 2 * time.Second

// maskBoxes reads where the script's masks are on the filmed tab as a
// step ends (the visible elements each target matches, and the regions
// given), in the tab's viewport: what a comparison of takes leaves out of
// the picture the step left. A mask that cannot be read (a held tab, a
// page between documents) is left out.
func (r *run) maskBoxes(ctx context.Context) []timeline.Rect {
	if len(r.s.Masks) == 0 || r.filmed == nil || r.refusal(r.filmed, false) != nil {
		return nil
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), maskLimit)
	defer cancel()
	c, stop := onTab(c, r.filmed.ctx)
	defer stop()
	var out []timeline.Rect
	for _, m := range r.s.Masks {
		if m.Region != nil {
			out = append(out, timeline.Rect{X: m.Region.X, Y: m.Region.Y, W: m.Region.W, H: m.Region.H})
			continue
		}
		d, err := r.filmed.docOf(c, *m.Target)
		if err != nil {
			continue
		}
		boxes, err := docCall[[]timeline.Rect](c, d, "boxes", specOf(*m.Target))
		if err != nil {
			continue
		}
		for _, b := range boxes {
			out = append(out, d.toTab(b))
		}
	}
	return out
}
