package film

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/scripts"
)

// optionSample is one value of one render option, at its path.
type optionSample struct {
	path  []string
	value any
	valid bool
}

// freeText are valid values of the options of free text, which the
// compositor reads further.
var freeText = map[string]string{"frame.background": "#112233..navy", "frame.host": "acme.app"}

// optionSamples are values at and just past the bounds of every option
// of outrules.Options, through every level, valid or not.
func optionSamples(opts []outrules.Option, parent []string) []optionSample {
	var out []optionSample
	for _, o := range opts {
		path := append(append([]string{}, parent...), o.Name)
		add := func(valid bool, vs ...any) {
			for _, v := range vs {
				out = append(out, optionSample{path, v, valid})
			}
		}
		if o.OrBool {
			add(true, true, false)
		}
		switch o.Kind {
		case outrules.Bool:
			add(true, true, false)
			add(false, "yes", 1)
		case outrules.Int:
			add(true, int(o.Min), int(o.Max))
			add(false, int(o.Min)-1, int(o.Max)+1, o.Min+0.5, "many")
		case outrules.Number:
			add(true, o.Min, o.Max, (o.Min+o.Max)/2)
			add(false, o.Min-0.01, o.Max+0.01, "many")
		case outrules.Duration:
			add(true, "0s", "1.5s", "400ms")
			add(false, "-1s", "soon")
		case outrules.String:
			if o.Pattern != "" {
				add(true, "#112233", "navy")
				add(false, "red; drop")
			} else {
				add(true, freeText[strings.Join(path, ".")])
			}
		case outrules.Enum:
			for _, v := range o.Values {
				add(true, v)
			}
			add(false, "nope")
		case outrules.Object:
			add(true, map[string]any{})
			add(false, map[string]any{"nope": 1}, "text")
			out = append(out, optionSamples(o.Sub, path)...)
		}
	}
	return out
}

// nest puts v at path in an output map.
func nest(path []string, v any) map[string]any {
	for i := len(path) - 1; i > 0; i-- {
		v = map[string]any{path[i]: v}
	}
	return map[string]any{path[0]: v}
}

// TestOutputOptionsOneSetOfRules: every render option, at and past its
// bounds, is accepted or refused alike by a script (checked at load, with
// its position) and by the compositor (a take's render.json), each error
// naming the option.
func TestOutputOptionsOneSetOfRules(t *testing.T) {
	dir := t.TempDir()
	samples := optionSamples(outrules.Options, nil)
	if len(samples) < 100 {
		t.Fatalf("only %d samples: the table is not walked", len(samples))
	}
	for i, c := range samples {
		name := "output." + strings.Join(c.path, ".")
		opts := nest(c.path, c.value)
		flow, err := json.Marshal(opts)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, fmt.Sprintf("s%d.yaml", i))
		if err := os.WriteFile(file, []byte("output: "+string(flow)+"\nsteps: [reload]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s, lerr := scripts.Load(file, scripts.LoadOptions{})
		// The compositor's side: a take whose render.json holds the
		// options as given, read as clapper render reads it.
		given := t.TempDir()
		raw, err := json.Marshal(map[string]any{"video": []string{"v.mp4"}, "options": opts})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(given, compositor.RenderFile), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		set := compositor.DefaultSettings()
		grc, aerr := compositor.ReadRenderConfig(given)
		if aerr == nil {
			set.Set(grc.Options)
			aerr = set.Check()
		}
		if c.valid {
			if lerr != nil {
				t.Errorf("%s: %v: the script refuses it: %v", name, c.value, lerr)
			} else {
				// The options a script passes on, as the compositor gets
				// them: through the take's render.json, typed, to the same
				// settings as the map gives.
				take := t.TempDir()
				rc, err := compositor.RenderConfig{}, compositor.WriteRenderConfig(take, ConfigOf(s.Output))
				if err == nil {
					rc, err = compositor.ReadRenderConfig(take)
				}
				fromTake := compositor.DefaultSettings()
				fromTake.Set(rc.Options)
				if err != nil {
					t.Errorf("%s: %v: the take refuses what the script passed: %v", name, c.value, err)
				} else if aerr == nil && fromTake != set {
					t.Errorf("%s: %v: the settings from the script's take\n%+v\nfrom the options as given\n%+v", name, c.value, fromTake, set)
				}
			}
			if aerr != nil {
				t.Errorf("%s: %v: the compositor refuses it: %v", name, c.value, aerr)
			}
			continue
		}
		if lerr == nil || !strings.Contains(lerr.Error(), name) || !strings.Contains(lerr.Error(), fmt.Sprintf("s%d.yaml:1:", i)) {
			t.Errorf("%s: %v: the script's error %v, want one naming the option at its position", name, c.value, lerr)
		}
		if aerr == nil || !strings.Contains(aerr.Error(), name) {
			t.Errorf("%s: %v: the compositor's error %v, want one naming the option", name, c.value, aerr)
		}
	}
}
