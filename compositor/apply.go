package compositor

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/internal/size"
)

// Apply sets s from a run script's output options (the `output:` map, as
// decoded from YAML). A "preset" key is applied first, then the others:
//
//	preset: docs | social | readme
//	fps: 60            size: 1920x1080        fit: contain | cover
//	crf: 20            x264_preset: veryfast (superfast at 50 fps and more)
//	background: "#000000"
//	cursor: false | {smoothing: raw|ease|spring, size: 1.5, click: true, shapes: true, hide_idle: 2s}
//	zoom: true | {auto: true, scale: 1.6, max: 3, ease: 400ms}
//	frame: true | {padding: 48, background: "#4f46e5..#06b6d4", radius: 12, shadow: true, bar: true}
//	keys: true         captions: burn | vtt | both | none    step_labels: true
//	chapters: true     cuts: true             gif: {width: 800, fps: 15}
//	speedup: true | {waits: true, over: 2s, keep: 500ms, speed: 4}
//
// "video" (the output files) belongs to the caller and is ignored here.
// The render options (all but preset, fps, size and video) are checked
// and decoded by outrules.Decode, then set (Set); "ffmpeg" is refused
// there: the program is chosen on the command line, never by a script or
// a take. Unknown keys and bad values are errors naming the key. Apply is
// for options given as a map (a script's, a test's); a take's render.json
// is decoded into outrules.Values as it is read.
func (s *Settings) Apply(opts map[string]any) error {
	if p, ok := opts["preset"]; ok {
		name, err := asString("preset", p)
		if err != nil {
			return &OptionError{Key: "preset", Err: err}
		}
		f, ok := presets[name]
		if !ok {
			return &OptionError{Key: "preset", Err: fmt.Errorf("output.preset: %w", outrules.CheckPreset(name))}
		}
		f(s)
	}
	rest := make(map[string]any, len(opts))
	for _, k := range sortedKeys(opts) {
		v := opts[k]
		key := "output." + k
		var err error
		switch k {
		case "preset", "video":
		case "fps":
			s.FPS, err = asInt(key, v)
		case "size":
			s.Width, s.Height, err = asSize(key, v)
		default:
			if k != "ffmpeg" && outrules.Lookup(k) == nil {
				err = fmt.Errorf("%s: unknown option (known: %s)", key, strings.Join(knownOutputKeys(), ", "))
			}
			rest[k] = v
		}
		if err != nil {
			return &OptionError{Key: k, Err: err}
		}
	}
	v, err := outrules.Decode(rest)
	if err != nil {
		return err
	}
	s.Set(v)
	return s.Check()
}

// Check refuses settings that no render can use (a size, a rate, a
// colour out of bounds), with the words of the output section.
func (s Settings) Check() error {
	if _, err := s.normalize(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// OptionError is an error in one of the output options; Key is the
// option's top-level name ("cursor" for output.cursor.smoothing), so a
// caller that knows where the option was written can point at it.
type OptionError = outrules.KeyError

// knownOutputKeys are the output section's keys: video, preset, fps and
// size, and the render options of outrules.Options.
func knownOutputKeys() []string {
	return slices.Sorted(slices.Values(append([]string{"fps", "preset", "size", "video"}, outrules.Names(outrules.Options)...)))
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

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func asString(key string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s: want a string, got %v (%T)", key, v, v)
}

func asFloat(key string, v any) (float64, error) {
	switch n := v.(type) {
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	case uint64:
		return float64(n), nil
	case float64:
		return n, nil
	case string:
		f, err := strconv.ParseFloat(n, 64)
		if err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%s: want a number, got %v (%T)", key, v, v)
}

func asInt(key string, v any) (int, error) {
	f, err := asFloat(key, v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, fmt.Errorf("%s: want a whole number, got %v", key, v)
	}
	return int(f), nil
}

func asSize(key string, v any) (int, int, error) {
	switch x := v.(type) {
	case string:
		if x == "capture" || x == "" {
			return 0, 0, nil
		}
		w, h, err := size.Parse(x)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", key, err)
		}
		return w, h, nil
	}
	return 0, 0, fmt.Errorf("%s: want WIDTHxHEIGHT (like 1920x1080), got %v", key, v)
}
