package compositor

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/outrules"
)

// withOptions sets s from render options given as a map, as a script's
// output section or a take's render.json holds them: decoded by the
// table's rules (outrules.Decode), set (Set), checked (Check).
func withOptions(s *Settings, m map[string]any) error {
	v, err := outrules.Decode(m)
	if err != nil {
		return err
	}
	s.Set(v)
	return s.Check()
}

// docsWith is the docs preset with the render options m.
func docsWith(tb testing.TB, m map[string]any) Settings {
	tb.Helper()
	s, err := Preset("docs")
	if err == nil {
		err = withOptions(&s, m)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Set copies every render option given into the settings, and only
// those; an option given as true or false turns its part on or off.
func TestSet(t *testing.T) {
	s := DefaultSettings()
	err := withOptions(&s, map[string]any{
		"fit": "cover", "crf": uint64(18),
		"x264_preset": "fast", "background": "#101010", "keys": true, "captions": "both", "step_labels": true,
		"chapters": false, "cuts": false,
		"cursor": map[string]any{"smoothing": "spring", "size": 1.5, "click": false, "shapes": false, "hide_idle": "2s"},
		"zoom":   map[any]any{"auto": true, "scale": 2, "max": 4, "ease": "300ms"},
		"frame":  map[string]any{"padding": 32, "background": "#111..#222", "radius": 8, "shadow": false, "bar": true},
		"gif":    map[string]any{"width": 640, "fps": 12},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultSettings()
	want.Fit, want.CRF, want.X264Preset = "cover", 18, "fast"
	want.Background, want.Keys, want.Captions, want.StepLabels, want.Chapters, want.Cuts = "#101010", true, "both", true, false, false
	want.Cursor = CursorSettings{Enabled: true, Smoothing: "spring", Size: 1.5, Click: false, Shapes: false, HideIdle: 2 * time.Second}
	want.Zoom = ZoomSettings{Auto: true, Scale: 2, MaxScale: 4, Ease: 300 * time.Millisecond}
	want.Frame = FrameSettings{Enabled: true, Padding: 32, Background: "#111..#222", Radius: 8, Shadow: false, Bar: true}
	want.GIF = GIFSettings{Width: 640, FPS: 12}
	if s != want {
		t.Errorf("Set:\n got %+v\nwant %+v", s, want)
	}

	s = DefaultSettings()
	if err := withOptions(&s, map[string]any{"cursor": false, "frame": true, "zoom": true, "captions": false}); err != nil {
		t.Fatal(err)
	}
	if s.Cursor.Enabled || !s.Frame.Enabled || !s.Zoom.Auto || s.Captions != "none" || s.Frame.Padding != 48 {
		t.Errorf("booleans: %+v", s)
	}

	// An option not given leaves what the settings had: the docs
	// preset's size and rate stay under a frame given as a map.
	d := docsWith(t, map[string]any{"frame": map[string]any{"bar": true}})
	if d.Width != 1920 || d.Height != 1080 || d.FPS != 60 || !d.Frame.Enabled || !d.Frame.Bar {
		t.Errorf("docs with a bar: %+v", d)
	}

	for _, c := range []struct {
		opts map[string]any
		msg  string
	}{
		{map[string]any{"fsp": 30}, "output.fsp: unknown option"},
		{map[string]any{"ffmpeg": "/tmp/evil"}, "output.ffmpeg: the ffmpeg program is chosen on the command line"},
		{map[string]any{"captions": "loud"}, "output.captions must be one of burn, vtt, both, none, got \"loud\""},
		{map[string]any{"cursor": map[string]any{"smoothing": "wobbly"}}, "output.cursor.smoothing"},
		{map[string]any{"cursor": map[string]any{"colour": "red"}}, "output.cursor.colour: unknown option"},
		{map[string]any{"cursor": "yes"}, "output.cursor must be true, false or a map"},
		{map[string]any{"zoom": map[string]any{"ease": "soon"}}, "output.zoom.ease: \"soon\" is not a duration"},
		{map[string]any{"zoom": map[string]any{"scale": 0.5}}, "output.zoom.scale must be between 1 and 8, got 0.5"},
		{map[string]any{"frame": map[string]any{"background": "#12345"}}, "frame background"},
		{map[string]any{"frame": map[string]any{"radius": -1}}, "output.frame.radius must be between 0 and 200"},
		{map[string]any{"fit": "stretch"}, "output.fit"},
		{map[string]any{"background": "red; drop"}, "background"},
		{map[string]any{"gif": map[string]any{"width": 4}}, "output.gif.width must be between 16 and 4096"},
	} {
		s := DefaultSettings()
		err := withOptions(&s, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: %v, want an error containing %q", c.opts, err, c.msg)
		}
	}
}

func TestPresets(t *testing.T) {
	d, err := Preset("docs")
	if err != nil || d.Width != 1920 || d.Height != 1080 || d.FPS != 60 {
		t.Errorf("docs = %+v %v", d, err)
	}
	so, _ := Preset("social")
	if so.Width != 1080 || so.Height != 1080 || !so.Frame.Enabled {
		t.Errorf("social = %+v", so)
	}
	r, _ := Preset("readme")
	if r.GIF.Width != 800 || r.GIF.FPS != 15 {
		t.Errorf("readme = %+v", r)
	}
	if _, err := Preset("nope"); err == nil {
		t.Error("unknown preset: want an error")
	}
	var names []string
	for name := range presets {
		names = append(names, name)
	}
	if want := slices.Sorted(slices.Values(outrules.Presets)); !slices.Equal(slices.Sorted(slices.Values(names)), want) {
		t.Errorf("compositor's presets %v, outrules.Presets %v: one list of names", slices.Sorted(slices.Values(names)), want)
	}
	for _, name := range outrules.Presets {
		s, err := Preset(name)
		if err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
		if _, err := s.normalize(); err != nil {
			t.Errorf("preset %s does not validate: %v", name, err)
		}
	}
}

// Check refuses what no render can use, in the output section's words.
func TestCheck(t *testing.T) {
	s := DefaultSettings()
	s.FPS = 1000
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "fps 1000") || !strings.HasPrefix(err.Error(), "output: ") {
		t.Errorf("fps 1000: %v", err)
	}
	if err := DefaultSettings().Check(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

func TestOptionErrorsNameTheirOption(t *testing.T) {
	var s Settings
	err := withOptions(&s, map[string]any{"keys": true, "cursor": map[string]any{"smoothing": "wobbly"}})
	var oe *outrules.KeyError
	if !errors.As(err, &oe) || oe.Key != "cursor" || !strings.Contains(err.Error(), "output.cursor.smoothing") {
		t.Errorf("got %v (%#v), want a KeyError for cursor", err, oe)
	}
}

// A video's x264 preset, when none is given, follows its frame rate; one
// given is kept at any rate.
func TestDefaultX264Preset(t *testing.T) {
	for _, c := range []struct {
		fps   int
		given string
		want  string
	}{
		{0, "", "veryfast"}, // the default rate, 30
		{24, "", "veryfast"}, {25, "", "veryfast"}, {30, "", "veryfast"},
		{50, "", "superfast"}, {60, "", "superfast"}, {120, "", "superfast"},
		{60, "veryfast", "veryfast"}, {30, "superfast", "superfast"}, {60, "medium", "medium"},
	} {
		s := DefaultSettings()
		s.FPS, s.X264Preset = c.fps, c.given
		n, err := s.normalize()
		if err != nil {
			t.Fatal(err)
		}
		if n.X264Preset != c.want {
			t.Errorf("fps %d, preset %q: got %q, want %q", c.fps, c.given, n.X264Preset, c.want)
		}
	}
	docs, err := Preset("docs")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := docs.normalize(); err != nil || n.X264Preset != "superfast" {
		t.Errorf("docs preset: %q, %v; want superfast", n.X264Preset, err)
	}
}
