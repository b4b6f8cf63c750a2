package outrules

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every option of the table has one field in Values of its kind, named
// as the option, and every field has an option: adding an option to one
// and not the other fails here.
func TestValuesFollowTheTable(t *testing.T) {
	follow(t, "output", reflect.TypeFor[Values](), Options)
}

func follow(t *testing.T, path string, st reflect.Type, opts []Option) {
	t.Helper()
	names := map[string]bool{}
	prev := ""
	for i := range st.NumField() {
		f := st.Field(i)
		name := jsonName(f)
		names[name] = true
		if name < prev {
			t.Errorf("%s: field %s after %s: keep the fields in the order of their names, as a map's keys are written", path, name, prev)
		}
		prev = name
		if Lookup1(opts, name) == nil {
			t.Errorf("%s.%s: a field of %v the table does not name", path, name, st)
		}
	}
	for _, o := range opts {
		p := path + "." + o.Name
		if !names[o.Name] {
			t.Errorf("%s: no field of %v for it", p, st)
			continue
		}
		f, _ := st.FieldByNameFunc(func(n string) bool {
			sf, _ := st.FieldByName(n)
			return jsonName(sf) == o.Name
		})
		if f.Type.Kind() != reflect.Pointer {
			t.Errorf("%s: field %s is %v, want a pointer (nil: not given)", p, f.Name, f.Type)
			continue
		}
		e := f.Type.Elem()
		var want reflect.Type
		switch o.Kind {
		case Bool:
			want = reflect.TypeFor[bool]()
		case Int:
			want = reflect.TypeFor[int]()
		case Number:
			want = reflect.TypeFor[float64]()
		case Duration:
			want = reflect.TypeFor[Span]()
		case String:
			want = reflect.TypeFor[string]()
		case Enum:
			want = reflect.TypeFor[string]()
			if o.OrBool {
				want = reflect.TypeFor[EnumOrBool]()
			}
		case Object:
			if o.OrBool {
				m, ok := e.FieldByName("Map")
				if _, b := e.FieldByName("Bool"); !ok || !b || m.Type.Kind() != reflect.Pointer {
					t.Errorf("%s: field %s is %v, want an OrBool", p, f.Name, e)
					continue
				}
				follow(t, p, m.Type.Elem(), o.Sub)
			} else {
				follow(t, p, e, o.Sub)
			}
			continue
		}
		if e != want {
			t.Errorf("%s: field %s is *%v, want *%v", p, f.Name, e, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// js says values as their JSON, for messages.
func js(v Values) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Decode gives each option its typed value, as a script writes it (YAML:
// map[any]any, whole numbers as uint64, numbers as text from a variable)
// and as a take holds it, and MarshalJSON writes it back as given.
func TestDecode(t *testing.T) {
	in := map[string]any{
		"background":  "#112233",
		"captions":    false,
		"chapters":    true,
		"crf":         uint64(18),
		"cursor":      map[any]any{"size": 1.5, "smoothing": "spring", "hide_idle": "2s"},
		"cuts":        false,
		"fit":         "cover",
		"frame":       true,
		"gif":         map[string]any{"width": "640", "fps": 10},
		"keys":        true,
		"speedup":     map[string]any{"over": 3, "speed": 8},
		"step_labels": true,
		"x264_preset": "fast",
		"zoom":        map[string]any{"auto": true, "ease": "250ms"},
	}
	v, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	want := Values{
		Background: ptr("#112233"),
		Captions:   &EnumOrBool{Bool: ptr(false)},
		Chapters:   ptr(true),
		CRF:        ptr(18),
		Cursor:     &OrBool[CursorValues]{Map: &CursorValues{Size: ptr(1.5), Smoothing: ptr("spring"), HideIdle: &Span{D: 2 * time.Second, Text: "2s"}}},
		Cuts:       ptr(false),
		Fit:        ptr("cover"),
		Frame:      &OrBool[FrameValues]{Bool: ptr(true)},
		GIF:        &GIFValues{Width: ptr(640), FPS: ptr(10)},
		Keys:       ptr(true),
		SpeedUp:    &OrBool[SpeedUpValues]{Map: &SpeedUpValues{Over: &Span{D: 3 * time.Second}, Speed: ptr(8.0)}},
		StepLabels: ptr(true),
		X264Preset: ptr("fast"),
		Zoom:       &OrBool[ZoomValues]{Map: &ZoomValues{Auto: ptr(true), Ease: &Span{D: 250 * time.Millisecond, Text: "250ms"}}},
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("Decode:\n got %s\nwant %s", js(v), js(want))
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"background":"#112233","captions":false,"chapters":true,"crf":18,"cursor":{"hide_idle":"2s","size":1.5,"smoothing":"spring"},"cuts":false,"fit":"cover","frame":true,"gif":{"fps":10,"width":640},"keys":true,"speedup":{"over":3,"speed":8},"step_labels":true,"x264_preset":"fast","zoom":{"auto":true,"ease":"250ms"}}`
	if string(b) != wantJSON {
		t.Errorf("written as\n%s\nwant\n%s", b, wantJSON)
	}
	var back Values
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("read back:\n got %s\nwant %s", js(back), js(want))
	}
	if v, err := Decode(nil); err != nil || !reflect.DeepEqual(v, Values{}) {
		t.Errorf("Decode(nil) = %s, %v", js(v), err)
	}
	if b, _ := json.Marshal(Values{}); string(b) != "{}" {
		t.Errorf("no options written as %s", b)
	}
}

// What the table refuses, Decode refuses, naming the top-level key and
// the path.
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct {
		in       map[string]any
		key, in2 string
	}{
		{map[string]any{"crf": 0}, "crf", "output.crf must be between 1 and 51"},
		{map[string]any{"cursor": map[string]any{"size": 9}}, "cursor", "output.cursor.size must be between"},
		{map[string]any{"cursor": map[string]any{"wobble": true}}, "cursor", "output.cursor.wobble: unknown option (known: click, enabled, hide_idle, shapes, size, smoothing)"},
		{map[string]any{"zoom": "yes"}, "zoom", "output.zoom must be true, false or a map"},
		{map[string]any{"gif": true}, "gif", "output.gif must be a map"},
		{map[string]any{"captions": "loud"}, "captions", "output.captions must be one of burn, vtt, both, none"},
		{map[string]any{"speedup": map[string]any{"over": "soon"}}, "speedup", `output.speedup.over: "soon" is not a duration`},
		{map[string]any{"sparkles": true}, "sparkles", "output.sparkles: unknown option (known: background, captions,"},
		{map[string]any{"background": "#12"}, "background", "output.background must be a colour name or #rrggbb"},
	} {
		_, err := Decode(c.in)
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Key != c.key || !strings.Contains(err.Error(), c.in2) {
			t.Errorf("Decode(%v) = %v, want a KeyError on %s containing %q", c.in, err, c.key, c.in2)
		}
	}
	var v Values
	if err := json.Unmarshal([]byte(`{"crf": 99}`), &v); err == nil || !strings.Contains(err.Error(), "output.crf must be between") {
		t.Errorf("render.json with crf 99: %v", err)
	}
}

// A value made by hand that is neither form cannot be written into a
// take, and a number that is not one is out of every range.
func TestValuesRefuseWhatDecodeNeverMakes(t *testing.T) {
	for _, v := range []Values{{Cursor: &OrBool[CursorValues]{}}, {Captions: &EnumOrBool{}}} {
		if b, err := json.Marshal(v); err == nil {
			t.Errorf("%#v written as %s, want an error", v, b)
		}
	}
	if _, err := Decode(map[string]any{"cursor": map[string]any{"size": "NaN"}}); err == nil {
		t.Error("cursor size NaN accepted")
	}
}
