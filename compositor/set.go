package compositor

import (
	"fmt"
	"time"

	"github.com/clapper-dev/clapper/internal/outrules"
)

// Check refuses settings that no render can use (a size, a rate, a
// colour out of bounds), with the words of the output section.
func (s Settings) Check() error {
	if _, err := s.normalize(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// Set sets s from render options as a script or a take gives them
// (outrules.Values, checked when they were decoded): each option given
// replaces what s had. An option given as true or false turns its part on
// or off; cursor, frame and speedup given as a map turn it on, with the
// map's keys after that.
func (s *Settings) Set(v outrules.Values) {
	setTo(&s.Fit, v.Fit)
	setTo(&s.CRF, v.CRF)
	setTo(&s.X264Preset, v.X264Preset)
	setTo(&s.Background, v.Background)
	setTo(&s.Keys, v.Keys)
	if c := v.Captions; c != nil {
		s.Captions = c.Value
		if c.Bool != nil {
			s.Captions = map[bool]string{true: "burn", false: "none"}[*c.Bool]
		}
	}
	setTo(&s.StepLabels, v.StepLabels)
	setTo(&s.Chapters, v.Chapters)
	setTo(&s.Cuts, v.Cuts)
	if c := v.Cursor; c != nil {
		s.Cursor.Enabled = c.On()
		if m := c.Map; m != nil {
			setTo(&s.Cursor.Enabled, m.Enabled)
			setTo(&s.Cursor.Smoothing, m.Smoothing)
			setTo(&s.Cursor.Size, m.Size)
			setTo(&s.Cursor.Click, m.Click)
			setTo(&s.Cursor.Shapes, m.Shapes)
			setSpan(&s.Cursor.HideIdle, m.HideIdle)
		}
	}
	if z := v.Zoom; z != nil {
		setTo(&s.Zoom.Auto, z.Bool)
		if m := z.Map; m != nil {
			setTo(&s.Zoom.Auto, m.Auto)
			setTo(&s.Zoom.Scale, m.Scale)
			setTo(&s.Zoom.MaxScale, m.Max)
			setSpan(&s.Zoom.Ease, m.Ease)
		}
	}
	if f := v.Frame; f != nil {
		s.Frame.Enabled = f.On()
		if m := f.Map; m != nil {
			setTo(&s.Frame.Enabled, m.Enabled)
			setTo(&s.Frame.Padding, m.Padding)
			setTo(&s.Frame.Background, m.Background)
			setTo(&s.Frame.Radius, m.Radius)
			setTo(&s.Frame.Shadow, m.Shadow)
			setTo(&s.Frame.Bar, m.Bar)
			setTo(&s.Frame.Host, m.Host)
		}
	}
	if g := v.GIF; g != nil {
		setTo(&s.GIF.Width, g.Width)
		setTo(&s.GIF.FPS, g.FPS)
	}
	if u := v.SpeedUp; u != nil {
		s.SpeedUp.Waits = u.On()
		if m := u.Map; m != nil {
			setTo(&s.SpeedUp.Waits, m.Waits)
			setSpan(&s.SpeedUp.Over, m.Over)
			setSpan(&s.SpeedUp.Keep, m.Keep)
			setTo(&s.SpeedUp.Speed, m.Speed)
		}
	}
}

// setTo sets *dst to *v when v is given.
func setTo[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// setSpan sets *dst to v's duration when v is given.
func setSpan(dst *time.Duration, v *outrules.Span) {
	if v != nil {
		*dst = v.D
	}
}
