package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileSchema(t *testing.T, ref string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaID + ref)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readJSON(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The published schema accepts the kept take's timeline, each line of its
// frame index and its manifest, and refuses a timeline missing a required
// field or of a later version.
func TestSchemaDescribesTheKeptTake(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(keptTake, TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	root := compileSchema(t, "")
	if err := root.Validate(readJSON(t, b)); err != nil {
		t.Fatalf("kept timeline.json: %v", err)
	}
	f, _ := os.Open(filepath.Join(keptTake, FramesFile))
	defer f.Close()
	frame := compileSchema(t, "#/$defs/Frame")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if err := frame.Validate(readJSON(t, sc.Bytes())); err != nil {
			t.Fatalf("frames.jsonl: %v", err)
		}
	}
	mb, _ := os.ReadFile(filepath.Join(keptTake, ManifestFile))
	if err := compileSchema(t, "#/$defs/Manifest").Validate(readJSON(t, mb)); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	m["version"] = Version + 1
	nb, _ := json.Marshal(m)
	if root.Validate(readJSON(t, nb)) == nil {
		t.Error("a later version passed")
	}
	delete(m, "capture")
	m["version"] = Version
	nb, _ = json.Marshal(m)
	if root.Validate(readJSON(t, nb)) == nil {
		t.Error("a timeline without capture passed")
	}
}
