package outrules

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Values are the render options of Options as a script or a take gives
// them, typed: a nil field was not given, so a preset's value or the
// default stands. They are decoded once (Decode), after the table's rules
// (Option.Check) passed, and written back as they were given (MarshalJSON:
// a take's render.json). Each field is named as its option (its json tag),
// and TestValuesFollowTheTable holds the fields to the table: every option
// has one field of its kind, and every field an option.
//
// The fields are in the order of their names, as a map's keys are written.
type Values struct {
	Background *string                `json:"background,omitempty"`
	Captions   *EnumOrBool            `json:"captions,omitempty"`
	Chapters   *bool                  `json:"chapters,omitempty"`
	CRF        *int                   `json:"crf,omitempty"`
	Cursor     *OrBool[CursorValues]  `json:"cursor,omitempty"`
	Cuts       *bool                  `json:"cuts,omitempty"`
	Fit        *string                `json:"fit,omitempty"`
	Frame      *OrBool[FrameValues]   `json:"frame,omitempty"`
	GIF        *GIFValues             `json:"gif,omitempty"`
	Keys       *bool                  `json:"keys,omitempty"`
	SpeedUp    *OrBool[SpeedUpValues] `json:"speedup,omitempty"`
	StepLabels *bool                  `json:"step_labels,omitempty"`
	X264Preset *string                `json:"x264_preset,omitempty"`
	Zoom       *OrBool[ZoomValues]    `json:"zoom,omitempty"`
}

// CursorValues are output.cursor's keys.
type CursorValues struct {
	Click     *bool    `json:"click,omitempty"`
	Enabled   *bool    `json:"enabled,omitempty"`
	HideIdle  *Span    `json:"hide_idle,omitempty"`
	Shapes    *bool    `json:"shapes,omitempty"`
	Size      *float64 `json:"size,omitempty"`
	Smoothing *string  `json:"smoothing,omitempty"`
}

// ZoomValues are output.zoom's keys.
type ZoomValues struct {
	Auto  *bool    `json:"auto,omitempty"`
	Ease  *Span    `json:"ease,omitempty"`
	Max   *float64 `json:"max,omitempty"`
	Scale *float64 `json:"scale,omitempty"`
}

// FrameValues are output.frame's keys.
type FrameValues struct {
	Background *string `json:"background,omitempty"`
	Bar        *bool   `json:"bar,omitempty"`
	Enabled    *bool   `json:"enabled,omitempty"`
	Host       *string `json:"host,omitempty"`
	Padding    *int    `json:"padding,omitempty"`
	Radius     *int    `json:"radius,omitempty"`
	Shadow     *bool   `json:"shadow,omitempty"`
}

// GIFValues are output.gif's keys.
type GIFValues struct {
	FPS   *int `json:"fps,omitempty"`
	Width *int `json:"width,omitempty"`
}

// SpeedUpValues are output.speedup's keys.
type SpeedUpValues struct {
	Keep  *Span    `json:"keep,omitempty"`
	Over  *Span    `json:"over,omitempty"`
	Speed *float64 `json:"speed,omitempty"`
	Waits *bool    `json:"waits,omitempty"`
}

// OrBool is an option given as true or false (Bool) or as a map of its
// own keys (Map); one of the two is set.
type OrBool[T any] struct {
	Bool *bool
	Map  *T
}

// On reports whether the option turns its part on: given as a map, or as
// true.
func (o OrBool[T]) On() bool { return o.Bool == nil || *o.Bool }

// MarshalJSON writes the option as it was given; one given as neither is
// an error (Decode never makes one).
func (o OrBool[T]) MarshalJSON() ([]byte, error) {
	switch {
	case o.Bool != nil:
		return json.Marshal(*o.Bool)
	case o.Map != nil:
		return json.Marshal(o.Map)
	}
	return nil, errors.New("an option given neither as true or false nor as a map")
}

// EnumOrBool is an Enum option that true or false stands for one of the
// values of (as captions: true is burn, false none): Bool or Value is set.
type EnumOrBool struct {
	Bool  *bool
	Value string
}

// MarshalJSON writes the option as it was given; one given as neither is
// an error (Decode never makes one).
func (e EnumOrBool) MarshalJSON() ([]byte, error) {
	switch {
	case e.Bool != nil:
		return json.Marshal(*e.Bool)
	case e.Value != "":
		return json.Marshal(e.Value)
	}
	return nil, errors.New("an option given neither as true or false nor as one of its values")
}

// Span is a Duration option: D, and how it was given, as text (Text,
// like "400ms") or as a number of seconds (as takes written before
// durations needed units have it), so that it is written back the same.
type Span struct {
	D    time.Duration
	Text string
}

// MarshalJSON writes the duration as it was given.
func (d Span) MarshalJSON() ([]byte, error) {
	if d.Text != "" {
		return json.Marshal(d.Text)
	}
	return json.Marshal(d.D.Seconds())
}

// UnmarshalJSON reads render options as a take's render.json holds them:
// checked by the table's rules, then decoded (Decode).
func (v *Values) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out, err := Decode(m)
	if err != nil {
		return err
	}
	*v = out
	return nil
}

// FFmpegRefused is why an output section or a take may not name ffmpeg.
const FFmpegRefused = "the ffmpeg program is chosen on the command line (--ffmpeg) or with CLAPPER_FFMPEG, never by a script or a take"

// KeyError is an error in one of the render options; Key is the option's
// top-level name ("cursor" for output.cursor.smoothing), so that a caller
// that knows where the option was written can point at it.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// Decode checks the render options m (as decoded from YAML or JSON: bools,
// numbers, strings, maps) against the table, every key and value through
// every level, and returns them typed. A key the table does not name is an
// error listing those it does. The error is a *KeyError naming the
// top-level key, its text the path ("output.cursor.size must be ...").
func Decode(m map[string]any) (Values, error) {
	var v Values
	rv := reflect.ValueOf(&v).Elem()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		path := "output." + k
		if k == "ffmpeg" {
			// Options are presentation only: a script or a take never
			// chooses a program to run.
			return Values{}, &KeyError{Key: k, Err: fmt.Errorf("%s: %s", path, FFmpegRefused)}
		}
		o := Lookup(k)
		if o == nil {
			return Values{}, &KeyError{Key: k, Err: fmt.Errorf("%s: unknown option (known: %s)", path, strings.Join(slices.Sorted(slices.Values(Names(Options))), ", "))}
		}
		x := stringKeys(m[k])
		if err := o.Check(path, x); err != nil {
			return Values{}, &KeyError{Key: k, Err: err}
		}
		if err := set(fieldNamed(rv, k), *o, x); err != nil {
			return Values{}, &KeyError{Key: k, Err: fmt.Errorf("%s: %w", path, err)}
		}
	}
	return v, nil
}

// set puts x, which o's rules passed, into the field f (a pointer to the
// option's type).
func set(f reflect.Value, o Option, x any) error {
	if !f.IsValid() {
		return fmt.Errorf("the option has no field in outrules.Values")
	}
	p := reflect.New(f.Type().Elem())
	f.Set(p)
	e := p.Elem()
	if b, ok := x.(bool); ok && o.OrBool {
		switch o.Kind {
		case Object:
			e.FieldByName("Bool").Set(reflect.ValueOf(&b))
		case Enum:
			e.Set(reflect.ValueOf(EnumOrBool{Bool: &b}))
		}
		return nil
	}
	switch o.Kind {
	case Bool:
		e.SetBool(x.(bool))
	case Int:
		n, _ := number(x)
		e.SetInt(int64(n))
	case Number:
		n, _ := number(x)
		e.SetFloat(n)
	case Duration:
		if s, ok := x.(string); ok {
			d, err := time.ParseDuration(s)
			if err != nil {
				return err
			}
			e.Set(reflect.ValueOf(Span{D: d, Text: s}))
		} else {
			n, _ := number(x)
			e.Set(reflect.ValueOf(Span{D: time.Duration(n * float64(time.Second))}))
		}
	case String:
		e.SetString(x.(string))
	case Enum:
		if o.OrBool {
			e.Set(reflect.ValueOf(EnumOrBool{Value: x.(string)}))
		} else {
			e.SetString(x.(string))
		}
	case Object:
		sub := e
		if o.OrBool {
			mp := reflect.New(e.FieldByName("Map").Type().Elem())
			e.FieldByName("Map").Set(mp)
			sub = mp.Elem()
		}
		m := x.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			so := Lookup1(o.Sub, k)
			if err := set(fieldNamed(sub, k), *so, m[k]); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	return nil
}

// fieldNamed returns the field of the struct s whose json name is name,
// or the zero Value.
func fieldNamed(s reflect.Value, name string) reflect.Value {
	t := s.Type()
	for i := range t.NumField() {
		if jsonName(t.Field(i)) == name {
			return s.Field(i)
		}
	}
	return reflect.Value{}
}

// jsonName is a field's name in JSON (its tag's, up to the comma).
func jsonName(f reflect.StructField) string {
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return n
}

// stringKeys returns v with every map in it keyed by strings (YAML
// decoders may give map[any]any); a key that is not a string is kept as
// its text, which the table then refuses as an unknown option.
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = stringKeys(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.(string)
			if !ok {
				ks = fmt.Sprint(k)
			}
			out[ks] = stringKeys(e)
		}
		return out
	}
	return v
}
