package compositor

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRenderConfigFile(t *testing.T) {
	dir := t.TempDir()
	if rc, err := ReadRenderConfig(dir); err != nil || !reflect.DeepEqual(rc, RenderConfig{}) {
		t.Fatalf("a take without render.json: %+v, %v", rc, err)
	}
	want := RenderConfig{Video: []string{"a.mp4"}, FPS: 30, Width: 1280, Height: 720, Preset: "docs", Options: map[string]any{"keys": true}}
	if err := WriteRenderConfig(dir, want); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRenderConfig(dir); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, RenderFile), []byte(`{"video": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRenderConfig(dir); err == nil || !strings.Contains(err.Error(), "render.json is corrupt") {
		t.Fatalf("a corrupt render.json: %v", err)
	}
}
