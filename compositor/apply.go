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
// "ffmpeg" is refused: the program is chosen on the command line, never by
// a script or a take.
// Unknown keys and bad values are errors naming the key.
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
	for _, k := range sortedKeys(opts) {
		v := opts[k]
		key := "output." + k
		// The table's rules first (types, bounds, values, keys), the
		// ones a script was checked by; then the value is read.
		if o := outrules.Lookup(k); o != nil {
			if m, err := asMap(key, v); err == nil {
				v = deepStringKeys(m)
			}
			if err := o.Check(key, v); err != nil {
				return &OptionError{Key: k, Err: err}
			}
		}
		var err error
		switch k {
		case "preset", "video":
		case "fps":
			s.FPS, err = asInt(key, v)
		case "size":
			s.Width, s.Height, err = asSize(key, v)
		case "fit":
			s.Fit, err = asEnum(key, v, outrules.Fits...)
		case "crf":
			s.CRF, err = asInt(key, v)
		case "x264_preset":
			s.X264Preset, err = asString(key, v)
		case "background":
			s.Background, err = asString(key, v)
		case "ffmpeg":
			// Settings are presentation only: a script or a take never
			// chooses a program to run.
			err = fmt.Errorf("%s: the ffmpeg program is chosen on the command line (--ffmpeg) or with CLAPPER_FFMPEG, never by a script or a take", key)
		case "keys":
			s.Keys, err = asBool(key, v)
		case "captions":
			if b, ok := v.(bool); ok {
				s.Captions = map[bool]string{true: "burn", false: "none"}[b]
			} else {
				s.Captions, err = asEnum(key, v, outrules.Captions...)
			}
		case "step_labels":
			s.StepLabels, err = asBool(key, v)
		case "chapters":
			s.Chapters, err = asBool(key, v)
		case "cuts":
			s.Cuts, err = asBool(key, v)
		case "cursor":
			err = s.applyCursor(key, v)
		case "zoom":
			err = s.applyZoom(key, v)
		case "frame":
			err = s.applyFrame(key, v)
		case "gif":
			err = s.applyGIF(key, v)
		case "speedup":
			err = s.applySpeedUp(key, v)
		default:
			err = fmt.Errorf("%s: unknown option (known: %s)", key, strings.Join(knownOutputKeys(), ", "))
		}
		if err != nil {
			return &OptionError{Key: k, Err: err}
		}
	}
	_, err := s.normalize()
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// OptionError is an error in one of the output options; Key is the
// option's top-level name ("cursor" for output.cursor.smoothing), so a
// caller that knows where the option was written can point at it.
type OptionError struct {
	Key string
	Err error
}

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// knownOutputKeys are the output section's keys: video, preset, fps and
// size, and the render options of outrules.Options.
func knownOutputKeys() []string {
	return slices.Sorted(slices.Values(append([]string{"fps", "preset", "size", "video"}, outrules.Names(outrules.Options)...)))
}

// unknownSub is the error of a key of the map at key that outrules does
// not name.
func unknownSub(key string, path ...string) error {
	return fmt.Errorf("%s: unknown option (known: %s)", key, strings.Join(slices.Sorted(slices.Values(outrules.Names(outrules.Lookup(path...).Sub))), ", "))
}

func (s *Settings) applyCursor(key string, v any) error {
	if b, ok := v.(bool); ok {
		s.Cursor.Enabled = b
		return nil
	}
	m, err := asMap(key, v)
	if err != nil {
		return err
	}
	s.Cursor.Enabled = true
	for _, k := range sortedKeys(m) {
		sub, kv := key+"."+k, m[k]
		switch k {
		case "enabled":
			s.Cursor.Enabled, err = asBool(sub, kv)
		case "smoothing":
			s.Cursor.Smoothing, err = asEnum(sub, kv, outrules.Smoothings...)
		case "size":
			s.Cursor.Size, err = asFloat(sub, kv)
		case "click":
			s.Cursor.Click, err = asBool(sub, kv)
		case "shapes":
			s.Cursor.Shapes, err = asBool(sub, kv)
		case "hide_idle":
			s.Cursor.HideIdle, err = asDuration(sub, kv)
		default:
			err = unknownSub(sub, "cursor")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Settings) applySpeedUp(key string, v any) error {
	if b, ok := v.(bool); ok {
		s.SpeedUp.Waits = b
		return nil
	}
	m, err := asMap(key, v)
	if err != nil {
		return err
	}
	s.SpeedUp.Waits = true
	for _, k := range sortedKeys(m) {
		sub, kv := key+"."+k, m[k]
		switch k {
		case "waits":
			s.SpeedUp.Waits, err = asBool(sub, kv)
		case "over":
			s.SpeedUp.Over, err = asDuration(sub, kv)
		case "keep":
			s.SpeedUp.Keep, err = asDuration(sub, kv)
		case "speed":
			s.SpeedUp.Speed, err = asFloat(sub, kv)
			if err == nil && (s.SpeedUp.Speed < outrules.MinSpeed || s.SpeedUp.Speed > outrules.MaxSpeed) {
				err = fmt.Errorf("%s: %g must be between %d and %d", sub, s.SpeedUp.Speed, outrules.MinSpeed, outrules.MaxSpeed)
			}
		default:
			err = unknownSub(sub, "speedup")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Settings) applyZoom(key string, v any) error {
	if b, ok := v.(bool); ok {
		s.Zoom.Auto = b
		return nil
	}
	m, err := asMap(key, v)
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(m) {
		sub, kv := key+"."+k, m[k]
		switch k {
		case "auto":
			s.Zoom.Auto, err = asBool(sub, kv)
		case "scale":
			s.Zoom.Scale, err = asFloat(sub, kv)
		case "max":
			s.Zoom.MaxScale, err = asFloat(sub, kv)
		case "ease":
			s.Zoom.Ease, err = asDuration(sub, kv)
		default:
			err = unknownSub(sub, "zoom")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Settings) applyFrame(key string, v any) error {
	if b, ok := v.(bool); ok {
		s.Frame.Enabled = b
		return nil
	}
	m, err := asMap(key, v)
	if err != nil {
		return err
	}
	s.Frame.Enabled = true
	for _, k := range sortedKeys(m) {
		sub, kv := key+"."+k, m[k]
		switch k {
		case "enabled":
			s.Frame.Enabled, err = asBool(sub, kv)
		case "padding":
			s.Frame.Padding, err = asInt(sub, kv)
		case "background":
			s.Frame.Background, err = asString(sub, kv)
		case "radius":
			s.Frame.Radius, err = asInt(sub, kv)
		case "shadow":
			s.Frame.Shadow, err = asBool(sub, kv)
		case "bar":
			s.Frame.Bar, err = asBool(sub, kv)
		case "host":
			s.Frame.Host, err = asString(sub, kv)
		default:
			err = unknownSub(sub, "frame")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Settings) applyGIF(key string, v any) error {
	m, err := asMap(key, v)
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(m) {
		sub, kv := key+"."+k, m[k]
		switch k {
		case "width":
			s.GIF.Width, err = asInt(sub, kv)
		case "fps":
			s.GIF.FPS, err = asInt(sub, kv)
		default:
			err = unknownSub(sub, "gif")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// deepStringKeys returns m with every map in it keyed by strings (YAML
// decoders may give map[any]any).
func deepStringKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, err := asMap(k, v); err == nil {
			v = deepStringKeys(sub)
		}
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func asMap(key string, v any) (map[string]any, error) {
	switch m := v.(type) {
	case map[string]any:
		return m, nil
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, x := range m {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%s: key %v is not a string", key, k)
			}
			out[ks] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: want a map or true/false, got %T", key, v)
}

func asString(key string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s: want a string, got %v (%T)", key, v, v)
}

func asEnum(key string, v any, allowed ...string) (string, error) {
	s, err := asString(key, v)
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s: %q is not one of %s", key, s, strings.Join(allowed, ", "))
}

func asBool(key string, v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, fmt.Errorf("%s: want true or false, got %v (%T)", key, v, v)
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

func asDuration(key string, v any) (time.Duration, error) {
	if s, ok := v.(string); ok {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not a duration (like 1.5s or 400ms)", key, s)
		}
		return d, nil
	}
	if d, ok := v.(time.Duration); ok {
		return d, nil
	}
	f, err := asFloat(key, v)
	if err != nil {
		return 0, fmt.Errorf("%s: want a duration (like 1.5s) or seconds, got %v (%T)", key, v, v)
	}
	return time.Duration(f * float64(time.Second)), nil
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
	default:
		m, err := asMap(key, v)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: want WIDTHxHEIGHT (like 1920x1080), got %v", key, v)
		}
		w, err := asInt(key+".width", m["width"])
		if err != nil {
			return 0, 0, err
		}
		h, err := asInt(key+".height", m["height"])
		return w, h, err
	}
}
