package compositor

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compositor/ -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", t.Name(), path, got, want)
	}
}

func TestArgsGolden(t *testing.T) {
	hidpi, _ := NewGeometry(2560, 1440, timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, 1920, 1080)
	square, _ := NewGeometry(1280, 720, timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 1080, 1080)
	cases := []struct {
		name string
		sp   encodeSpec
	}{
		{"args_mp4_overlay", encodeSpec{FPS: 60, Geometry: hidpi, Overlay: "/tmp/render/overlay.ass", Background: "black",
			CRF: 20, Preset: "veryfast", Output: "/out/.demo.partial-1.mp4"}},
		{"args_mp4_letterbox_plain", encodeSpec{FPS: 30, Geometry: square, Background: "#1e1e2e",
			CRF: 23, Preset: "medium", Output: "out/.social.partial-2.mp4"}},
		{"args_mp4_escaped_path", encodeSpec{FPS: 25, Geometry: square, Overlay: "/tmp/it's:a,[dir];/o.ass", Background: "black",
			CRF: 20, Preset: "veryfast", Output: "/out/x.mp4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args, err := buildArgs(c.sp)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, strings.Join(args, "\n")+"\n")
		})
	}
}
