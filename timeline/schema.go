package timeline

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// SchemaID names the published schema of timeline.json.
const SchemaID = "https://clapper.dev/schema/timeline.json"

// Schema returns the JSON Schema (draft 2020-12) of timeline.json, derived
// from the Go types themselves so that it cannot drift from what is
// written: a field without omitempty is required, a pointer may be null,
// and unknown fields are allowed, because later versions add optional ones.
// Its $defs also describe a line of frames.jsonl (Frame) and manifest.json
// (Manifest).
func Schema() []byte {
	g := &schemaGen{defs: map[string]any{}}
	root := g.object(reflect.TypeFor[Timeline]())
	g.ref(reflect.TypeFor[Frame]())
	g.ref(reflect.TypeFor[Manifest]())
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "clapper take: timeline.json"
	root["description"] = "The record of one take. version is the schema version; readers refuse versions they do not know. Frames are listed in frames.jsonl, one $defs/Frame per line; the take's files are listed in manifest.json ($defs/Manifest)."
	root["properties"].(map[string]any)["version"] = map[string]any{"type": "integer", "minimum": 1, "maximum": Version}
	root["$defs"] = g.defs
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(err) // the schema is built of maps, strings and numbers
	}
	return append(b, '\n')
}

type schemaGen struct{ defs map[string]any }

var timeType = reflect.TypeFor[time.Time]()
var durationType = reflect.TypeFor[time.Duration]()

// of returns the schema of a value of type t.
func (g *schemaGen) of(t reflect.Type) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == durationType:
		return map[string]any{"type": "integer", "description": "nanoseconds"}
	case t == reflect.TypeFor[Time]():
		return map[string]any{"type": "integer", "description": "nanoseconds on the take clock"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, g.of(t.Elem())}}
	case reflect.Struct:
		return g.ref(t)
	case reflect.Slice:
		return map[string]any{"type": []any{"array", "null"}, "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{}
}

// ref defines a struct type once under $defs and refers to it.
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	if _, ok := g.defs[t.Name()]; !ok {
		g.defs[t.Name()] = true // a placeholder while fields are made
		g.defs[t.Name()] = g.object(t)
	}
	return map[string]any{"$ref": "#/$defs/" + t.Name()}
}

// object is a struct's schema: its JSON fields, embedded ones flattened.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []any{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			props[name] = g.of(f.Type)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
	}
	walk(t)
	return map[string]any{"type": "object", "properties": props, "required": required}
}
