package outrules

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The render options a script's output section may set besides video,
// fps, size and preset (which have their own rules above), described once:
// the script loader checks them against this table (with each value's
// position), the JSON Schema and the language reference are generated
// from it, and their values are decoded once into Values (Decode, after
// the same checks), which the compositor copies into its settings and a
// take's render.json holds.

// Kind is the type of an option's value.
type Kind int

const (
	Bool     Kind = iota // true or false
	Int                  // a whole number from Min to Max
	Number               // a number from Min to Max
	Duration             // a duration like 1.5s or 400ms, from DMin up (no upper bound)
	String               // text, matching Pattern when set
	Enum                 // one of Values
	Object               // a map of Sub
)

// Option is one key of the output section, or of one of its maps.
type Option struct {
	Name string
	Kind Kind
	Doc  string
	// Min and Max bound an Int or a Number, inclusively.
	Min, Max float64
	// DMin is a Duration's least value.
	DMin time.Duration
	// Values are an Enum's.
	Values []string
	// Pattern is a String's form, and PatternHint says it in words.
	Pattern, PatternHint string
	// OrBool: true or false stands for the map (an Object) or for one of
	// the values (an Enum), as Doc says.
	OrBool bool
	// Sub are an Object's keys.
	Sub []Option
}

// Bounds of the options, named where the compositor checks them too.
const (
	MinCRF, MaxCRF               = 1, 51
	MinCursorSize, MaxCursorSize = 0.25, 8.0
	MinZoom, MaxZoom             = 1, 8
	MinSpeed, MaxSpeed           = 1, 64
	MaxPadding                   = 1000
	MaxRadius                    = 200
	MinGIFWidth, MaxGIFWidth     = 16, 4096
	MinGIFFPS, MaxGIFFPS         = 1, 50
)

// Enumerations of the options.
var (
	Fits       = []string{"contain", "cover"}
	Captions   = []string{"burn", "vtt", "both", "none"}
	Smoothings = []string{"raw", "ease", "spring"}
	// X264Presets are x264's own, fastest first.
	X264Presets = []string{"ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"}
)

// ColourPattern is a colour: a name or #rrggbb (or #rgb).
const ColourPattern = `^(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}|[a-zA-Z]{3,20})$`

// ColourHint says ColourPattern in words.
const ColourHint = "a colour name or #rrggbb"

// Options are the render options of the output section, in the order
// the reference lists them.
var Options = []Option{
	{Name: "fit", Kind: Enum, Values: Fits, Doc: "how the capture fits a video of another shape: contain (letterbox, the default) or cover (crop)"},
	{Name: "crf", Kind: Int, Min: MinCRF, Max: MaxCRF, Doc: "x264 quality: lower is better and larger (default 20)"},
	{Name: "x264_preset", Kind: Enum, Values: X264Presets, Doc: "x264 speed preset (default veryfast, or superfast at 50 fps and more)"},
	{Name: "background", Kind: String, Pattern: ColourPattern, PatternHint: ColourHint, Doc: "the letterbox colour (default black)"},
	{Name: "cursor", Kind: Object, OrBool: true, Doc: "the drawn cursor (on by default; false hides it)", Sub: []Option{
		{Name: "enabled", Kind: Bool, Doc: "draw it (true when the map is given)"},
		{Name: "smoothing", Kind: Enum, Values: Smoothings, Doc: "its path to each point: raw (a jump), ease (a glide, the default) or spring"},
		{Name: "size", Kind: Number, Min: MinCursorSize, Max: MaxCursorSize, Doc: "its scale (default 1)"},
		{Name: "click", Kind: Bool, Doc: "a ripple at each button press (default true)"},
		{Name: "shapes", Kind: Bool, Doc: "follow the page's cursor shape: arrow, pointer hand, text I-beam (default true)"},
		{Name: "hide_idle", Kind: Duration, Doc: "hide it after this long without pointer input (0, the default: never)"},
	}},
	{Name: "zoom", Kind: Object, OrBool: true, Doc: "the camera (true: auto)", Sub: []Option{
		{Name: "auto", Kind: Bool, Doc: "zoom toward what click, type and fill act on"},
		{Name: "scale", Kind: Number, Min: MinZoom, Max: MaxZoom, Doc: "the automatic zoom's factor (default 1.6)"},
		{Name: "max", Kind: Number, Min: MinZoom, Max: MaxZoom, Doc: "the most any zoom, a zoom step's too, reaches (default 3)"},
		{Name: "ease", Kind: Duration, Doc: "how long zooming in and out takes (default 400ms)"},
	}},
	{Name: "frame", Kind: Object, OrBool: true, Doc: "a window around the page (true: the default look)", Sub: []Option{
		{Name: "enabled", Kind: Bool, Doc: "draw it (true when the map is given)"},
		{Name: "padding", Kind: Int, Min: 0, Max: MaxPadding, Doc: "the space around the window, in output pixels (default 48)"},
		{Name: "background", Kind: String, Doc: "behind the window: a colour, or a gradient of two top-left to bottom-right like #4f46e5..#06b6d4 (the default)"},
		{Name: "radius", Kind: Int, Min: 0, Max: MaxRadius, Doc: "the window's corner radius, in output pixels (default 12)"},
		{Name: "shadow", Kind: Bool, Doc: "a soft shadow under the window (default true)"},
		{Name: "bar", Kind: Bool, Doc: "a browser bar with the document's address"},
		{Name: "host", Kind: String, Doc: "the address the bar shows for the run's own sample site instead of its loopback one, like acme.app"},
	}},
	{Name: "keys", Kind: Bool, Doc: "draw the keys typed and pressed at the bottom"},
	{Name: "captions", Kind: Enum, Values: Captions, OrBool: true, Doc: "caption steps: burn (the default), vtt (a WebVTT file beside the video), both or none; true is burn, false none"},
	{Name: "step_labels", Kind: Bool, Doc: "each labelled step's label as a caption while it runs"},
	{Name: "chapters", Kind: Bool, Doc: "chapter steps as the container's chapters and a NAME.chapters.vtt beside the video (default true)"},
	{Name: "cuts", Kind: Bool, Doc: "cut hidden steps from the video (default true)"},
	{Name: "gif", Kind: Object, Doc: "the size and rate of GIF outputs", Sub: []Option{
		{Name: "width", Kind: Int, Min: MinGIFWidth, Max: MaxGIFWidth, Doc: "pixels wide (default 800)"},
		{Name: "fps", Kind: Int, Min: MinGIFFPS, Max: MaxGIFFPS, Doc: "frames per second (default 15)"},
	}},
	{Name: "speedup", Kind: Object, OrBool: true, Doc: "long waits play faster, shown rather than cut (true: the defaults)", Sub: []Option{
		{Name: "waits", Kind: Bool, Doc: "speed up waits, expectations and navigations (true when the map is given)"},
		{Name: "over", Kind: Duration, Doc: "the part of a wait longer than this plays faster (default 2s)"},
		{Name: "keep", Kind: Duration, Doc: "less this much at each end (default 500ms)"},
		{Name: "speed", Kind: Number, Min: MinSpeed, Max: MaxSpeed, Doc: "times real time (default 4)"},
	}},
}

// Lookup returns the option at path (like "cursor.size"), or nil.
func Lookup(path ...string) *Option {
	opts := Options
	var o *Option
	for _, name := range path {
		if o = Lookup1(opts, name); o == nil {
			return nil
		}
		opts = o.Sub
	}
	return o
}

// CheckRange refuses a number outside an Int's or a Number's bounds, in
// the words every part uses.
func (o Option) CheckRange(path string, v float64) error {
	if math.IsNaN(v) || v < o.Min || v > o.Max {
		return fmt.Errorf("%s must be between %g and %g, got %g", path, o.Min, o.Max, v)
	}
	return nil
}

// Names returns the names of opts.
func Names(opts []Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Name
	}
	return out
}

// Check refuses a value of o, at path, that the table does not allow:
// its type, bounds, values, pattern and, for a map, its keys, through
// every level. The value is as decoded from YAML or JSON (bools, numbers,
// strings, maps); a duration may also be a number of seconds (as takes
// written before durations needed units have it).
func (o Option) Check(path string, v any) error {
	if _, ok := v.(bool); ok && o.OrBool {
		return nil
	}
	switch o.Kind {
	case Bool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s must be true or false, got %v", path, v)
		}
	case Int, Number:
		f, ok := number(v)
		if !ok || (o.Kind == Int && f != math.Trunc(f)) {
			return fmt.Errorf("%s must be a %s, got %v", path, map[Kind]string{Int: "whole number", Number: "number"}[o.Kind], v)
		}
		return o.CheckRange(path, f)
	case Duration:
		var d time.Duration
		if s, ok := v.(string); ok {
			var err error
			if d, err = time.ParseDuration(s); err != nil {
				return fmt.Errorf("%s: %q is not a duration (like 1.5s or 400ms)", path, s)
			}
		} else if f, ok := number(v); ok {
			d = time.Duration(f * float64(time.Second))
		} else {
			return fmt.Errorf("%s must be a duration (like 1.5s), got %v", path, v)
		}
		if d < o.DMin {
			return fmt.Errorf("%s must be at least %v, got %v", path, o.DMin, v)
		}
	case String, Enum:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s must be text, got %v", path, v)
		}
		if o.Kind == Enum && !slices.Contains(o.Values, s) {
			return fmt.Errorf("%s must be one of %s, got %q", path, strings.Join(o.Values, ", "), s)
		}
		if o.Pattern != "" && !regexp.MustCompile(o.Pattern).MatchString(s) {
			return fmt.Errorf("%s must be %s, got %q", path, o.PatternHint, s)
		}
	case Object:
		m, ok := v.(map[string]any)
		if !ok {
			what := "a map"
			if o.OrBool {
				what = "true, false or a map"
			}
			return fmt.Errorf("%s must be %s, got %v", path, what, v)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			sub := Lookup1(o.Sub, k)
			if sub == nil {
				return fmt.Errorf("%s.%s: unknown option (known: %s)", path, k, strings.Join(slices.Sorted(slices.Values(Names(o.Sub))), ", "))
			}
			if err := sub.Check(path+"."+k, m[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Lookup1 returns the option of opts called name, or nil.
func Lookup1(opts []Option, name string) *Option {
	for i := range opts {
		if opts[i].Name == name {
			return &opts[i]
		}
	}
	return nil
}

// number reads a YAML or JSON number, or one written as text (a
// ${VARIABLE} gives text).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
