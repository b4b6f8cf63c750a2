package starter

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/scripts"
)

// The starter script validates as written, with --url, in a sub-folder,
// and with every step it shows commented out put back in: a user can
// uncomment any of them.
func TestStarterScriptsValidate(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{{Name: filepath.Join(dir, "demo")}, {Name: filepath.Join(dir, "sub", "web.yaml"), URL: "https://example.com/a?b=c&d=\"e\""}} {
		var out bytes.Buffer
		if err := Write(o, &out); err != nil {
			t.Fatalf("new %+v: %v", o, err)
		}
		p, _ := planStarter(o)
		s, err := scripts.Load(p.script, scripts.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p.script, err)
		}
		if o.URL != "" && (s.Serve != "" || !strings.Contains(string(p.files[0].body), `goto: "https://example.com/a?b=c&d=\"e\""`)) {
			t.Errorf("--url: serve %q\n%s", s.Serve, p.files[0].body)
		}
		src, _ := os.ReadFile(p.script)
		var all []string
		n := 0
		for _, l := range strings.Split(string(src), "\n") {
			if rest, ok := strings.CutPrefix(l, "  # - "); ok {
				l = "  - " + rest
				n++
			}
			all = append(all, l)
		}
		uncommented := filepath.Join(filepath.Dir(p.script), "all-steps.yaml")
		os.WriteFile(uncommented, []byte(strings.Join(all, "\n")), 0o644)
		if s, err := scripts.Load(uncommented, scripts.LoadOptions{}); err != nil || n < 10 {
			t.Errorf("%s with its %d commented steps: %v", p.script, n, err)
		} else if len(s.Steps) < n {
			t.Errorf("%d steps, want at least the %d uncommented", len(s.Steps), n)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "web-site")); !os.IsNotExist(err) {
		t.Errorf("--url wrote a site folder: %v", err)
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{"demo": "Demo", "sign-up_flow": "Sign up flow", "v2.tour": "V2.tour", "9lives": "9lives"} {
		if got := title(in); got != want {
			t.Errorf("title(%q) = %q, want %q", in, got, want)
		}
	}
}
