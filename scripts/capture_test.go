package scripts

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestBrowserCapture(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"steps: [pause: 1s]\n", ""},
		{"browser: {capture: live}\nsteps: [pause: 1s]\n", CaptureLive},
		{"browser: {capture: studio, viewport: {width: 1280, height: 720, scale: 2}}\nsteps: [pause: 1s]\n", CaptureStudio},
	} {
		if got := loadSrc(t, c.src, LoadOptions{}, nil).Browser.Capture; got != c.want {
			t.Errorf("%q: capture %q, want %q", c.src, got, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"browser: {capture: film}\nsteps: [pause: 1s]\n", "demo.yaml:1:"},
		{"browser: {capture: studio, attach: \"ws://127.0.0.1:9222/devtools/browser/x\"}\nsteps: [pause: 1s]\n", "cannot attach"},
	} {
		dir := writeScript(t, map[string]string{"demo.yaml": c.src})
		_, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.src, err, c.want)
		}
	}
}
