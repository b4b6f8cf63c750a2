package scripts

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testOptions are the -e flags and the process environment the error
// cases see.
var testOptions = LoadOptions{
	Env:       map[string]string{"FROM_FLAG": "flag"},
	LookupEnv: fakeEnv(map[string]string{"HOME": "/home/test"}),
}

func fakeEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestErrorsGolden loads every testdata/errors/*.yaml, which must fail,
// and compares the whole report (positions, messages, carets) with its
// .golden file. Run with -update to rewrite them.
func TestErrorsGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			s, err := Load(path, testOptions)
			if err == nil {
				t.Fatalf("Load succeeded (%d steps); want errors", len(s.Steps))
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is %T, want Errors: %v", err, err)
			}
			for _, e := range es {
				if e.Pos.File == "" {
					t.Errorf("error without a file: %v", e)
				}
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(path, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./scripts -run TestErrorsGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("errors differ from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}
