package scripts

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// A small JSON Schema checker for exactly the keywords Schema emits.
// TestSchemaKeywords keeps the schema inside this subset, so every rule in
// it is one the tests actually check.

var checkedKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"enum": true, "oneOf": true, "anyOf": true, "allOf": true, "not": true, "items": true,
	"pattern": true, "minimum": true, "maximum": true, "minLength": true, "minItems": true,
	"propertyNames": true, "dependentRequired": true, "$ref": true,
	// Annotations, not assertions.
	"$schema": true, "$id": true, "$defs": true, "title": true, "description": true,
}

type checker struct {
	root obj
	errs []string
}

func (c *checker) fail(path, format string, args ...any) {
	c.errs = append(c.errs, path+": "+fmt.Sprintf(format, args...))
}

// valid reports whether v satisfies s, without recording why.
func (c *checker) valid(s obj, v any) bool {
	sub := &checker{root: c.root}
	sub.check(s, v, "")
	return len(sub.errs) == 0
}

func (c *checker) check(s obj, v any, path string) {
	if r, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(r, "#/$defs/")
		def, ok := c.root["$defs"].(obj)[name].(obj)
		if !ok {
			c.fail(path, "unknown $ref %s", r)
			return
		}
		c.check(def, v, path)
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		c.fail(path, "type %v, got %T", t, v)
		return
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if equalJSON(x, v) {
				found = true
			}
		}
		if !found {
			c.fail(path, "%v not in enum %v", v, e)
		}
	}
	if str, ok := v.(string); ok {
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			c.fail(path, "%q does not match %s", str, p)
		}
		if m, ok := s["minLength"].(int); ok && len([]rune(str)) < m {
			c.fail(path, "shorter than %d", m)
		}
	}
	if n, ok := number(v); ok {
		if m, ok := s["minimum"].(float64); ok && n < m {
			c.fail(path, "%v < minimum %v", n, m)
		}
		if m, ok := s["maximum"].(float64); ok && n > m {
			c.fail(path, "%v > maximum %v", n, m)
		}
	}
	if arr, ok := v.([]any); ok {
		if m, ok := s["minItems"].(int); ok && len(arr) < m {
			c.fail(path, "fewer than %d items", m)
		}
		if it, ok := s["items"].(obj); ok {
			for i, x := range arr {
				c.check(it, x, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	if m, ok := v.(map[string]any); ok {
		props, _ := s["properties"].(obj)
		for _, k := range sortedKeys(m) {
			if ps, ok := props[k].(obj); ok {
				c.check(ps, m[k], path+"."+k)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					c.fail(path, "additional property %q", k)
				}
			case obj:
				c.check(ap, m[k], path+"."+k)
			}
		}
		if pn, ok := s["propertyNames"].(obj); ok {
			for k := range m {
				c.check(pn, k, path+" key "+k)
			}
		}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := m[r.(string)]; !ok {
					c.fail(path, "missing required %q", r)
				}
			}
		}
		if dr, ok := s["dependentRequired"].(obj); ok {
			for k, needs := range dr {
				if _, ok := m[k]; !ok {
					continue
				}
				for _, n := range needs.([]any) {
					if _, ok := m[n.(string)]; !ok {
						c.fail(path, "%q needs %q", k, n)
					}
				}
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, x := range all {
			c.check(x.(obj), v, path)
		}
	}
	if any_, ok := s["anyOf"].([]any); ok {
		n := 0
		for _, x := range any_ {
			if c.valid(x.(obj), v) {
				n++
			}
		}
		if n == 0 {
			c.fail(path, "matches none of anyOf")
		}
	}
	if one, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, x := range one {
			if c.valid(x.(obj), v) {
				n++
			}
		}
		if n != 1 {
			c.fail(path, "matches %d of oneOf, want exactly 1", n)
		}
	}
	if not, ok := s["not"].(obj); ok && c.valid(not, v) {
		c.fail(path, "matches a not")
	}
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
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

func typeMatches(t, v any) bool {
	if list, ok := t.([]any); ok {
		for _, x := range list {
			if typeMatches(x, v) {
				return true
			}
		}
		return false
	}
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		n, ok := number(v)
		return ok && n == math.Trunc(n)
	}
	return false
}

func equalJSON(a, b any) bool {
	na, aok := number(a)
	nb, bok := number(b)
	if aok && bok {
		return na == nb
	}
	return a == b
}

// schemaObj decodes Schema() the way a JSON consumer would, with numbers
// as float64 and integers where the keyword wants them.
func schemaObj(t *testing.T) obj {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(Schema(), &m); err != nil {
		t.Fatalf("Schema is not JSON: %v", err)
	}
	return normalize(m).(obj)
}

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := obj{}
		for k, y := range x {
			o[k] = normalize(y)
			if (k == "minLength" || k == "minItems") && o[k] != nil {
				o[k] = int(o[k].(float64))
			}
		}
		return o
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
		return x
	}
	return v
}

// schemaErrors checks YAML source against the schema.
func schemaErrors(t *testing.T, root obj, src []byte) []string {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		return []string{"yaml: " + err.Error()}
	}
	c := &checker{root: root}
	c.check(root, plainJSON(v), "$")
	return c.errs
}

// plainJSON turns go-yaml's decoded values into JSON-shaped ones.
func plainJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, y := range x {
			x[k] = plainJSON(y)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, y := range x {
			m[fmt.Sprint(k)] = plainJSON(y)
		}
		return m
	case []any:
		for i := range x {
			x[i] = plainJSON(x[i])
		}
		return x
	}
	return v
}

func TestSchemaKeywords(t *testing.T) {
	root := schemaObj(t)
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", root["$schema"])
	}
	var walk func(v any, path string, isSchema bool)
	walk = func(v any, path string, isSchema bool) {
		switch x := v.(type) {
		case obj:
			for k, y := range x {
				if !isSchema {
					walk(y, path+"/"+k, true) // a map of schemas: properties, $defs
					continue
				}
				if !checkedKeywords[k] {
					t.Errorf("%s: keyword %q is not checked by the test checker", path, k)
				}
				switch k {
				case "properties", "$defs":
					walk(y, path+"/"+k, false)
				case "enum", "required", "type", "pattern", "description", "title", "$schema", "$id", "$ref",
					"dependentRequired", "minimum", "maximum", "minLength", "minItems":
				case "additionalProperties":
					if sub, ok := y.(obj); ok {
						walk(sub, path+"/"+k, true)
					}
				default:
					walk(y, path+"/"+k, true)
				}
			}
		case []any:
			for i, y := range x {
				walk(y, fmt.Sprintf("%s/%d", path, i), true)
			}
		}
	}
	walk(root, "#", true)
	// Every step kind has a variant.
	variants := root["$defs"].(obj)["step"].(obj)["oneOf"].([]any)
	names := map[string]bool{}
	for _, v := range variants {
		if req, ok := v.(obj)["required"].([]any); ok {
			names[req[0].(string)] = true
		}
	}
	for _, n := range stepNames() {
		if !names[n] {
			t.Errorf("step %q has no schema variant", n)
		}
	}
}

// TestSamplesValid loads every sample script and every valid fixture
// through both the parser and the schema.
func TestSamplesValid(t *testing.T) {
	root := schemaObj(t)
	samples, _ := filepath.Glob("../samples/*.yaml")
	fixtures, _ := filepath.Glob("testdata/valid/*.yaml")
	paths := append(samples, fixtures...)
	if len(fixtures) == 0 {
		t.Fatal("no fixtures in testdata/valid")
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			s, err := Load(p, LoadOptions{})
			if err != nil {
				t.Fatalf("parser: %v", err)
			}
			if len(s.Steps) == 0 {
				t.Errorf("no steps")
			}
			src := mustRead(t, p)
			if errs := schemaErrors(t, root, src); len(errs) > 0 {
				t.Errorf("schema:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// TestSchemaAcceptsStepCases runs every valid step of TestStepKinds through
// the schema.
func TestSchemaAcceptsStepCases(t *testing.T) {
	root := schemaObj(t)
	for _, tt := range stepCases {
		src := "env: {EMAIL: demo@example.com}\nserve: site\nsteps:\n  - " + tt.src + "\n"
		if errs := schemaErrors(t, root, []byte(src)); len(errs) > 0 {
			t.Errorf("%s:\n%s", tt.src, strings.Join(errs, "\n"))
		}
	}
}

// TestInvalidRejectedByBoth: each script must fail in the parser and in
// the schema, so the two cannot drift apart on these rules.
func TestInvalidRejectedByBoth(t *testing.T) {
	root := schemaObj(t)
	cases := map[string]string{
		"unknown step":         "steps:\n  - clikc: '#a'\n",
		"unknown top key":      "stpes: []\nsteps: [reload]\n",
		"unknown step key":     "steps:\n  - click: {target: '#a', buton: left}\n",
		"unknown common key":   "steps:\n  - click: '#a'\n    lable: x\n",
		"two steps in one":     "steps:\n  - click: '#a'\n    hover: '#b'\n",
		"no steps":             "name: x\n",
		"empty steps":          "steps: []\n",
		"steps not a list":     "steps: {goto: x}\n",
		"bad duration":         "steps:\n  - pause: 1.5 sec\n",
		"negative duration":    "steps:\n  - pause: -1s\n",
		"duration no unit":     "steps:\n  - pause: 5\n",
		"bad timeout":          "steps:\n  - reload\n  - click: '#a'\n    timeout: soon\n",
		"count range":          "steps:\n  - click: {target: '#a', count: 4}\n",
		"count type":           "steps:\n  - click: {target: '#a', count: two}\n",
		"button enum":          "steps:\n  - click: {target: '#a', button: lfet}\n",
		"modifier enum":        "steps:\n  - click: {target: '#a', modifiers: [Cmd]}\n",
		"retries range":        "steps:\n  - click: '#a'\n    retries: 11\n",
		"optional type":        "steps:\n  - click: '#a'\n    optional: maybe\n",
		"fps range":            "output: {fps: 121}\nsteps: [reload]\n",
		"unknown preset":       "output: {preset: cinema}\nsteps: [reload]\n",
		"size pattern":         "output: {size: big}\nsteps: [reload]\n",
		"video extension":      "output: {video: a.mov}\nsteps: [reload]\n",
		"video hidden":         "output: {video: .a.mp4}\nsteps: [reload]\n",
		"output unknown key":   "output: {vidoe: a.mp4}\nsteps: [reload]\n",
		"output ffmpeg":        "output: {ffmpeg: /tmp/x}\nsteps: [reload]\n",
		"crf range":            "output: {crf: 0}\nsteps: [reload]\n",
		"cursor size range":    "output: {cursor: {size: 9}}\nsteps: [reload]\n",
		"cursor not a map":     "output: {cursor: yes}\nsteps: [reload]\n",
		"zoom unknown key":     "output: {zoom: {factor: 2}}\nsteps: [reload]\n",
		"captions enum":        "output: {captions: loud}\nsteps: [reload]\n",
		"background colour":    "output: {background: 'red; drop'}\nsteps: [reload]\n",
		"gif width range":      "output: {gif: {width: 8}}\nsteps: [reload]\n",
		"speedup over unit":    "output: {speedup: {over: 2}}\nsteps: [reload]\n",
		"viewport range":       "browser: {viewport: {width: 10}}\nsteps: [reload]\n",
		"headless type":        "browser: {headless: 'yes'}\nsteps: [reload]\n",
		"ambiguous target":     "steps:\n  - click: {text: A, css: '#b'}\n",
		"ambiguous nested":     "steps:\n  - hover: {target: {text: A, css: '#b'}}\n",
		"target no selector":   "steps:\n  - expect: {visible: {nth: 1}}\n",
		"target and inline":    "steps:\n  - click: {target: '#a', text: Go}\n",
		"click no target":      "steps:\n  - click: {button: left}\n",
		"name without role":    "steps:\n  - click: {text: A, name: B}\n",
		"nth negative":         "steps:\n  - click: {css: a, nth: -1}\n",
		"fill short form":      "steps:\n  - fill: '#a'\n",
		"fill missing value":   "steps:\n  - fill: {into: '#a'}\n",
		"type missing text":    "steps:\n  - type: {into: '#a'}\n",
		"wait two conditions":  "steps:\n  - wait: {text: A, url: B}\n",
		"wait no condition":    "steps:\n  - wait: {state: hidden}\n",
		"wait bad state":       "steps:\n  - wait: {selector: '#a', state: gone}\n",
		"select both":          "steps:\n  - select: {into: '#a', label: A, value: a}\n",
		"select neither":       "steps:\n  - select: {into: '#a'}\n",
		"select into target":   "steps:\n  - select: {into: '#a', target: '#b', label: A}\n",
		"scroll both":          "steps:\n  - scroll: {by: 1, to: top}\n",
		"scroll neither":       "steps:\n  - scroll: {duration: 1s}\n",
		"zoom both":            "steps:\n  - zoom: {target: '#a', region: {x: 0, y: 0, w: 1, h: 1}}\n",
		"zoom scale":           "steps:\n  - zoom: {target: '#a', scale: 5}\n",
		"zoom short":           "steps:\n  - zoom: big\n",
		"cursor short":         "steps:\n  - cursor: blink\n",
		"cursor empty":         "steps:\n  - cursor: {}\n",
		"cursor style":         "steps:\n  - cursor: {style: hand}\n",
		"tab two ops":          "steps:\n  - tab: {open: a, switch: b}\n",
		"tab bad name":         "steps:\n  - tab: {open: 'my tab'}\n",
		"expect two":           "steps:\n  - expect: {visible: '#a', text: B}\n",
		"expect none":          "steps:\n  - expect: {}\n",
		"screenshot not png":   "steps:\n  - screenshot: a.jpg\n",
		"repeat times":         "steps:\n  - repeat: {times: 0, steps: [reload]}\n",
		"repeat no steps":      "steps:\n  - repeat: {times: 2}\n",
		"back with value":      "steps:\n  - back: now\n",
		"bare step with value": "steps:\n  - click\n",
		"step is a number":     "steps:\n  - 42\n",
		"env bad name":         "env: {bad-name: x}\nsteps: [reload]\n",
		"env null":             "env: {X: }\nsteps: [reload]\n",
		"secret bad name":      "secrets: [bad-name]\nsteps: [reload]\n",
		"run no file":          "steps:\n  - run: {env: {A: b}}\n",
		"point missing y":      "steps:\n  - move: {to: {x: 1}}\n",
		"drag missing to":      "steps:\n  - drag: {from: '#a'}\n",
		"upload no files":      "steps:\n  - upload: {into: '#a'}\n",
		"label type":           "steps:\n  - click: '#a'\n    label: [a]\n",
		"goto list":            "steps:\n  - goto: [a]\n",
		"tab name common":      "steps:\n  - click: '#a'\n    tab: 'a b'\n",
		"defaults range":       "defaults: {pointer_speed: 1}\nsteps: [reload]\n",
	}
	for _, name := range sortedKeys(cases) {
		src := cases[name]
		t.Run(name, func(t *testing.T) {
			dir := writeScript(t, map[string]string{"s.yaml": src})
			if _, err := Load(filepath.Join(dir, "s.yaml"), LoadOptions{}); err == nil {
				t.Errorf("parser accepted:\n%s", src)
			}
			if errs := schemaErrors(t, root, []byte(src)); len(errs) == 0 {
				t.Errorf("schema accepted:\n%s", src)
			}
		})
	}
}

// TestCheckerRejects makes sure the checker itself can fail, keyword by
// keyword.
func TestCheckerRejects(t *testing.T) {
	root := obj{"$defs": obj{"n": obj{"type": "number"}}}
	cases := []struct {
		s obj
		v any
	}{
		{obj{"type": "string"}, 1.0},
		{obj{"type": "integer"}, 1.5},
		{obj{"enum": []any{"a"}}, "b"},
		{obj{"pattern": "^a$"}, "b"},
		{obj{"minLength": 2}, "a"},
		{obj{"minimum": 2.0}, 1.0},
		{obj{"maximum": 2.0}, 3.0},
		{obj{"minItems": 1}, []any{}},
		{obj{"items": obj{"type": "string"}}, []any{1.0}},
		{obj{"required": []any{"a"}}, map[string]any{}},
		{obj{"additionalProperties": false}, map[string]any{"a": 1.0}},
		{obj{"properties": obj{"a": obj{"type": "string"}}}, map[string]any{"a": 1.0}},
		{obj{"propertyNames": obj{"pattern": "^a$"}}, map[string]any{"b": 1.0}},
		{obj{"dependentRequired": obj{"a": []any{"b"}}}, map[string]any{"a": 1.0}},
		{obj{"oneOf": []any{obj{"type": "number"}, obj{"minimum": 0.0}}}, 1.0},
		{obj{"anyOf": []any{obj{"type": "string"}}}, 1.0},
		{obj{"allOf": []any{obj{"type": "string"}}}, 1.0},
		{obj{"not": obj{"type": "number"}}, 1.0},
		{obj{"$ref": "#/$defs/n"}, "x"},
	}
	for _, c := range cases {
		ck := &checker{root: root}
		if ck.valid(c.s, c.v) {
			t.Errorf("%v accepted %v", c.s, c.v)
		}
	}
}
