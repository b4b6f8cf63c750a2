package scripts

import (
	"encoding/json"
	"strings"
)

// Schema returns the JSON Schema (draft 2020-12) of the run-script
// language, for editors and other tools. It is generated from the tables
// the parser decodes with, so the two agree on keys, types, enums, ranges,
// patterns, required fields and which fields exclude each other. A few
// rules only the parser checks: variables must resolve, files must exist,
// tabs must be open, durations must be in range, key names must be known.
func Schema() []byte {
	b, err := json.MarshalIndent(schemaDoc(), "", "  ")
	if err != nil {
		return nil // unreachable: the document is plain maps and slices
	}
	return append(b, '\n')
}

type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/$defs/" + name} }

func schemaDoc() obj {
	doc := objectSchema(scriptFields, false)
	doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	doc["$id"] = "https://github.com/clapper-dev/clapper/schema/script.json"
	doc["title"] = "clapper run script"
	var variants []any
	var bare []string
	for _, s := range steps {
		variants = append(variants, stepSchema(s))
		if s.noArg {
			bare = append(bare, s.name)
		}
	}
	variants = append(variants, obj{"enum": strAny(bare), "description": "a step that takes no value"})
	doc["$defs"] = obj{
		"duration": obj{"type": "string", "pattern": durationPattern(),
			"description": "a number and a unit (ns, us, ms, s, m, h), like 1.5s or 300ms"},
		"target": obj{"anyOf": []any{
			obj{"type": "string", "minLength": 1, "description": "a CSS selector"},
			targetObject(),
		}},
		"point":  objectSchema(pointFields, false),
		"region": objectSchema(regionFields, false),
		"place":  obj{"anyOf": []any{ref("target"), ref("point")}},
		"steps":  obj{"type": "array", "minItems": 1, "items": ref("step")},
		"step":   obj{"oneOf": variants},
	}
	return doc
}

// durationPattern is the parser's pattern, or a lone ${VAR}.
func durationPattern() string {
	p := strings.TrimSuffix(strings.TrimPrefix(durationRE.String(), "^"), "$")
	return `^(\$\{[A-Za-z_][A-Za-z0-9_.]*\}|` + p + `)$`
}

func strAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func requiredEach(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = obj{"required": []any{n}}
	}
	return out
}

func targetObject() obj {
	o := objectSchema(targetFields, false)
	o["oneOf"] = requiredEach(selectorKeys)
	o["dependentRequired"] = obj{"name": []any{"role"}}
	return o
}

// objectSchema is a map of fs; extra allows other keys.
func objectSchema(fs []field, extra bool) obj {
	props := obj{}
	var req []any
	for _, f := range fs {
		if f.shortOnly || f.refuse != "" {
			continue
		}
		props[f.name] = fieldSchema(f)
		if f.required {
			req = append(req, f.name)
		}
	}
	o := obj{"type": "object", "properties": props}
	if len(req) > 0 {
		o["required"] = req
	}
	if !extra {
		o["additionalProperties"] = false
	}
	return o
}

// stringSchema is a kString field: free text also takes a number or a
// boolean (read as written); an enum or a pattern wants a string.
func stringSchema(f field) obj {
	o := obj{}
	switch {
	case f.enum != nil:
		o["type"], o["enum"] = "string", strAny(f.enum)
	case f.pattern != nil:
		o["type"], o["pattern"] = "string", f.pattern.String()
	default:
		o["type"] = []any{"string", "number", "boolean"}
		if !f.allowEmpty {
			o["minLength"] = 1
		}
	}
	return o
}

func fieldSchema(f field) obj {
	var o obj
	switch f.kind {
	case kString:
		o = stringSchema(f)
	case kInt, kNumber:
		o = obj{"type": "number"}
		if f.kind == kInt {
			o["type"] = "integer"
		}
		if f.ints != nil {
			e := make([]any, len(f.ints))
			for i, x := range f.ints {
				e[i] = x
			}
			o["enum"] = e
		}
		if f.hasMin {
			o["minimum"] = f.min
		}
		if f.hasMax {
			o["maximum"] = f.max
		}
	case kBool:
		o = obj{"type": "boolean"}
	case kDuration:
		o = ref("duration")
	case kTarget:
		o = ref("target")
	case kPlace:
		o = ref("place")
	case kMasks:
		o = obj{"type": "array", "items": obj{"anyOf": []any{ref("target"), ref("region")}}}
	case kFrames:
		o = obj{"anyOf": []any{ref("target"), obj{"type": "array", "minItems": 1, "items": ref("target")}}}
	case kPoint:
		o = ref("point")
	case kRegion:
		o = ref("region")
	case kStrings:
		it := stringSchema(f)
		o = obj{"anyOf": []any{it, obj{"type": "array", "items": it}}}
	case kEnv:
		o = obj{"type": "object",
			"propertyNames":        obj{"pattern": f.pattern.String()},
			"additionalProperties": obj{"type": []any{"string", "number", "boolean"}}}
	case kSteps:
		o = ref("steps")
	case kScrollBy:
		o = obj{"anyOf": []any{obj{"type": "number"}, ref("point")}}
	case kScrollTo:
		o = obj{"anyOf": []any{obj{"enum": []any{"top", "bottom"}}, ref("target"), ref("point")}}
	case kObject:
		o = objectSchema(f.sub, f.extra)
	default:
		o = obj{}
	}
	if f.orBool {
		o = obj{"anyOf": []any{obj{"type": "boolean"}, o}}
	}
	if f.doc != "" {
		if _, isRef := o["$ref"]; !isRef {
			o["description"] = f.doc
		}
	}
	return o
}

// stepSchema is one list item holding step s and the common fields.
func stepSchema(s *stepSpec) obj {
	props := obj{}
	for _, f := range commonFields {
		if s.name == "tab" && f.name == "tab" {
			continue
		}
		props[f.name] = fieldSchema(f)
	}
	props[s.name] = stepValueSchema(s)
	return obj{"type": "object", "properties": props, "required": []any{s.name},
		"additionalProperties": false, "description": s.doc}
}

func stepValueSchema(s *stepSpec) obj {
	if s.noArg {
		return obj{"anyOf": []any{obj{"type": "null"}, obj{"type": "object", "additionalProperties": false}}}
	}
	m := objectSchema(s.fields, false)
	var all []any
	if s.inline != "" {
		props := m["properties"].(obj)
		for _, f := range targetFields {
			props[f.name] = fieldSchema(f)
		}
		ways := append([]string{s.inline}, selectorKeys...)
		deps := obj{"name": []any{"role"}}
		if s.orPoint {
			ways = append(ways, "x")
			deps["x"], deps["y"] = []any{"y"}, []any{"x"}
		}
		all = append(all, obj{"oneOf": requiredEach(ways)})
		m["dependentRequired"] = deps
	}
	for _, g := range s.groups {
		switch g.mode {
		case exactlyOne:
			all = append(all, obj{"oneOf": requiredEach(g.fields)})
		case atLeastOne:
			all = append(all, obj{"anyOf": requiredEach(g.fields)})
		case atMostOne:
			var pairs []any
			for i := range g.fields {
				for j := i + 1; j < len(g.fields); j++ {
					pairs = append(pairs, obj{"required": []any{g.fields[i], g.fields[j]}})
				}
			}
			all = append(all, obj{"not": obj{"anyOf": pairs}})
		}
	}
	if len(all) > 0 {
		m["allOf"] = all
	}
	if s.short == "" {
		return m
	}
	return obj{"anyOf": []any{shortSchema(*s.shortField()), m}}
}

// shortSchema is the scalar short form of a step: for a target, a CSS
// selector (a map is always the step's own map).
func shortSchema(f field) obj {
	switch f.kind {
	case kTarget, kPlace:
		return obj{"type": "string", "minLength": 1, "description": "a CSS selector"}
	}
	return fieldSchema(f)
}
