package compositor

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/outrules"
)

func TestRenderConfigFile(t *testing.T) {
	dir := t.TempDir()
	if rc, err := ReadRenderConfig(dir); err != nil || !reflect.DeepEqual(rc, RenderConfig{}) {
		t.Fatalf("a take without render.json: %+v, %v", rc, err)
	}
	want := RenderConfig{Video: []string{"a.mp4"}, FPS: 30, Width: 1280, Height: 720, Preset: "docs", Options: outrules.Values{Keys: new(true)}}
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

// A take is data: render.json may not name a program, a path, or anything
// that is not a presentation setting.
func TestRenderConfigRefusesWhatIsNotPresentation(t *testing.T) {
	for body, want := range map[string]string{
		`{"video": ["a.mp4"], "options": {"ffmpeg": "/tmp/evil"}}`:    "output.ffmpeg: the ffmpeg program is chosen on the command line",
		`{"video": ["a.mp4"], "ffmpeg": "/tmp/evil"}`:                 `unknown field "ffmpeg"`,
		`{"video": ["../outside.mp4"]}`:                               `video "../outside.mp4" is not a plain file name`,
		`{"video": ["/etc/x.mp4"]}`:                                   `video "/etc/x.mp4" is not a plain file name`,
		`{"video": ["a.sh"]}`:                                         `video "a.sh" is not a plain file name`,
		`{"video": ["a.mp4"], "options": {"cursor": {"evil": true}}}`: "output.cursor.evil",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RenderFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadRenderConfig(dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", body, err, want)
		}
	}
}
