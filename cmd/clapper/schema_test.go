package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const metaSchema2020 = "https://json-schema.org/draft/2020-12/schema"

// compileSchema validates the output of `clapper schema` against the
// draft 2020-12 meta-schema (which it names) and compiles it.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	stdout, stderr, code := runCLI(t, "schema")
	if code != 0 {
		t.Fatalf("clapper schema: exit %d: %s", code, stderr)
	}
	file, err := os.ReadFile("../../clapper.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(file) {
		t.Error("clapper schema prints other than clapper.schema.json")
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatalf("clapper schema does not print JSON: %v", err)
	}
	obj, _ := doc.(map[string]any)
	if obj["$schema"] != metaSchema2020 {
		t.Fatalf("$schema is %v, want %s", obj["$schema"], metaSchema2020)
	}
	c := jsonschema.NewCompiler()
	meta, err := c.Compile(metaSchema2020)
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.Validate(doc); err != nil {
		t.Fatalf("clapper schema is not a valid draft 2020-12 schema: %v", err)
	}
	id, _ := obj["$id"].(string)
	if id == "" {
		t.Fatal("the schema has no $id")
	}
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compile the schema: %v", err)
	}
	return sch
}

// yamlDoc decodes YAML as a JSON Schema validator sees it.
func yamlDoc(t *testing.T, src []byte) any {
	t.Helper()
	js, err := yaml.YAMLToJSON(src)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// `clapper schema` is a valid draft 2020-12 JSON Schema; every script in
// samples/ (parts included) validates against it, and wrong scripts do
// not, each for the reason planted.
func TestSchemaValidatesScripts(t *testing.T) {
	sch := compileSchema(t)
	var samples []string
	err := filepath.WalkDir("../../samples", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			samples = append(samples, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 4 {
		t.Fatalf("found only %v in samples/", samples)
	}
	for _, p := range samples {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(yamlDoc(t, src)); err != nil {
			t.Errorf("%s does not validate against the schema: %v", p, err)
		}
	}
	for _, c := range []struct{ name, src, want string }{
		{"unknown step", "name: x\nsteps:\n  - clik: \"#save\"\n", "additional properties 'clik' not allowed"},
		{"unknown key", "name: x\nstep: []\nsteps:\n  - goto: about:blank\n", "additional properties 'step' not allowed"},
		{"no steps", "name: x\n", "missing property 'steps'"},
		{"steps not a list", "steps: {goto: about:blank}\n", "at '/steps': got object, want array"},
		{"bad duration", "steps:\n  - pause: 1.5 sec\n", "'1.5 sec' does not match pattern"},
		{"bad viewport", "browser: {viewport: {width: wide}}\nsteps:\n  - goto: about:blank\n", "at '/browser/viewport/width': got string, want integer"},
	} {
		err := sch.Validate(yamlDoc(t, []byte(c.src)))
		if err == nil {
			t.Errorf("%s: the schema accepts\n%s", c.name, c.src)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: rejected for %v, want it to point at %s", c.name, err, c.want)
		}
	}
	// The wrong scripts are wrong for clapper too, not only for the schema.
	dir := t.TempDir()
	p := filepath.Join(dir, "wrong.yaml")
	os.WriteFile(p, []byte("name: x\nsteps:\n  - clik: \"#save\"\n"), 0o644)
	if _, _, code := runCLI(t, "validate", p); code != exitUsage {
		t.Errorf("clapper validate accepts the unknown step (exit %d)", code)
	}
}

// docs/reference.md is what clapper schema --markdown prints: the
// reference is generated from the step table, never edited by hand.
func TestReferenceIsGenerated(t *testing.T) {
	stdout, stderr, code := runCLI(t, "schema", "--markdown")
	if code != 0 {
		t.Fatalf("clapper schema --markdown: exit %d: %s", code, stderr)
	}
	file, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(file) {
		t.Error("docs/reference.md differs from clapper schema --markdown: run make reference")
	}
	if _, _, code := runCLI(t, "schema", "--markdown", "--take"); code != exitUsage {
		t.Errorf("schema --markdown --take: exit %d, want a usage error", code)
	}
}
