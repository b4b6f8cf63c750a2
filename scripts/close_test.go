package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// browser.close is kept as given, absent is nil (the default rule), and a
// value that is not a boolean is refused at load with its position.
func TestBrowserClose(t *testing.T) {
	for src, want := range map[string]string{
		"browser: {attach: shared}\nsteps: [reload]\n":                             "default",
		"browser: {attach: shared, close: false}\nsteps: [reload]\n":               "false",
		"browser: {attach: shared, claim: active, close: true}\nsteps: [reload]\n": "true",
	} {
		s := loadSrc(t, src, LoadOptions{}, nil)
		got := "default"
		if c := s.Browser.Close; c != nil {
			got = map[bool]string{true: "true", false: "false"}[*c]
		}
		if got != want {
			t.Errorf("%q: close %s, want %s", src, got, want)
		}
	}
	p := filepath.Join(t.TempDir(), "demo.yaml")
	os.WriteFile(p, []byte("browser:\n  attach: shared\n  close: later\nsteps: [reload]\n"), 0o644)
	_, err := Load(p, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "demo.yaml:3:10") || !strings.Contains(err.Error(), "close") {
		t.Errorf("close: later: %v", err)
	}
}
