package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// The presentation steps shape the video only: they record what the
// compositor needs and send nothing to the page (zoom toward an element
// reads where it is).

func (r *run) chapter(a scripts.Chapter, rec *timeline.Step) error {
	rec.Text = a.Title
	return nil
}

func (r *run) caption(a scripts.Caption, rec *timeline.Step) error {
	rec.Text, rec.Duration = a.Text, a.Duration
	return nil
}

func (r *run) cursor(a scripts.Cursor, rec *timeline.Step) error {
	switch {
	case a.Visible != nil && !*a.Visible:
		rec.Text = "hide"
	case a.Visible != nil:
		rec.Text = "show"
	}
	if a.Style != "" {
		rec.Text = strings.TrimPrefix(rec.Text+" "+a.Style, " ")
	}
	return nil
}

func (r *run) zoom(ctx context.Context, tab *Tab, a scripts.Zoom, rec *timeline.Step) error {
	rec.Scale, rec.Duration = a.Scale, a.Duration
	switch {
	case a.Target != nil:
		rec.Target = a.Target.String()
		if err := r.refusal(tab, false); err != nil {
			// Finding the element runs script, which a held page does not.
			return undispatched(fmt.Errorf("%w: zoom toward the element before the hold, or toward a region {x, y, w, h}", err))
		}
		_, err := r.actionable(ctx, tab, *a.Target, forLook, rec)
		return err
	case a.Region != nil:
		rec.Region = &timeline.Rect{X: a.Region.X, Y: a.Region.Y, W: a.Region.W, H: a.Region.H}
	}
	return nil
}

// pause dwells, kept in the video.
func (r *run) pause(ctx context.Context, a scripts.Pause, rec *timeline.Step) error {
	rec.Duration = a.Duration
	return undispatched(sleep(ctx, a.Duration))
}
