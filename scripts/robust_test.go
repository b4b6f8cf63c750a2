package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoPanicOnMutations loads full.yaml with each line removed, and cut
// short after each line: every variant must load or fail with Errors,
// never panic.
func TestNoPanicOnMutations(t *testing.T) {
	src := string(mustRead(t, "testdata/valid/full.yaml"))
	lines := strings.Split(src, "\n")
	dir := t.TempDir()
	for _, name := range []string{"site/index.html", "parts/avatar.png", "parts/login.yaml"} {
		b := mustRead(t, filepath.Join("testdata/valid", name))
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "m.yaml")
	try := func(variant string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(variant), 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic %v on:\n%s", r, variant)
			}
		}()
		if _, err := Load(path, LoadOptions{}); err != nil {
			if _, ok := err.(Errors); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
		}
	}
	for i := range lines {
		try(strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n"))
		try(strings.Join(lines[:i], "\n"))
	}
	// Values where maps are expected, and the other way round.
	for _, v := range []string{"~", "1", "[]", "{}", "[1, 2]", "{a: b}", "true", `""`, "!!str 5", "*nope"} {
		for _, key := range []string{"name", "browser", "serve", "env", "secrets", "output", "defaults", "steps"} {
			try(key + ": " + v + "\nsteps: [reload]\n")
		}
		for _, kind := range stepNames() {
			try("steps:\n  - " + kind + ": " + v + "\n")
			try("steps:\n  - " + kind + ": {target: " + v + ", to: " + v + ", into: " + v + ", steps: " + v + "}\n")
		}
	}
}

func TestRecursiveAlias(t *testing.T) {
	src := "steps: &s\n  - repeat: {times: 1, steps: *s}\n"
	dir := writeScript(t, map[string]string{"s.yaml": src})
	_, err := Load(filepath.Join(dir, "s.yaml"), LoadOptions{})
	if err == nil {
		t.Fatal("recursive alias accepted")
	}
}
