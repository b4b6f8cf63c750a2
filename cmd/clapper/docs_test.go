package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
)

// A ```yaml block of the docs is one of four kinds, said by the HTML
// comment on the line before it:
//
//	(none)                       a whole script: it must validate as written
//	<!-- fragment -->            part of a script (steps, or some of its keys):
//	                             it must validate inside a minimal script
//	<!-- runnable -->            a whole script that also runs, on the
//	                             samples' site, and passes
//	<!-- not a script: REASON --> not clapper's language (a CI workflow...)
//
// Relative paths start from samples/, so serve: ./site is the sample site
// and parts/signup.yaml the sample part.
type docBlock struct {
	file, kind, reason, src string
	line                    int
}

var docMarker = regexp.MustCompile(`^<!--\s*(fragment|runnable|not a script)(?::\s*(.*?))?\s*-->$`)

// docBlocks returns every ```yaml block of README.md and docs/*.md.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	var out []docBlock
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		prev, n := "", 0
		var cur *docBlock
		for sc.Scan() {
			n++
			l := sc.Text()
			trim := strings.TrimSpace(l)
			switch {
			case cur != nil && strings.HasPrefix(trim, "```"):
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.src += l + "\n"
			case trim == "```yaml" || trim == "```yml":
				cur = &docBlock{file: strings.TrimPrefix(f, "../../"), line: n, kind: "script"}
				if m := docMarker.FindStringSubmatch(prev); m != nil {
					cur.kind, cur.reason = m[1], m[2]
				}
			}
			if trim != "" {
				prev = trim
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if cur != nil {
			t.Errorf("%s:%d: a ```yaml block that never ends", cur.file, cur.line)
		}
	}
	return out
}

// asScript makes a fragment a script: a list of steps becomes steps:, a
// map without steps gets one, and ${serve.url} gets the sample site.
func asScript(t *testing.T, b docBlock) string {
	t.Helper()
	src := dedent(b.src)
	if b.kind != "fragment" {
		return src
	}
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Errorf("%s:%d: the fragment is not YAML: %v", b.file, b.line, err)
		return src
	}
	switch m := v.(type) {
	case []any:
		src = "steps:\n" + indent(src, "  ")
	case map[string]any:
		if m["steps"] == nil {
			src += "steps:\n  - pause: 100ms\n"
		}
	default:
		t.Errorf("%s:%d: the fragment is neither steps nor a script's keys", b.file, b.line)
	}
	if strings.Contains(src, "${serve.url}") && !regexp.MustCompile(`(?m)^serve:`).MatchString(src) {
		src = "serve: ./site\n" + src
	}
	return src
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	least := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); least < 0 || n < least {
			least = n
		}
	}
	for i, l := range lines {
		if len(l) >= least && least > 0 {
			lines[i] = l[least:]
		}
	}
	return strings.Join(lines, "\n")
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// loadDocScript validates src as clapper validate does: scripts.Load, then
// the output settings.
func loadDocScript(t *testing.T, b docBlock, src string) error {
	t.Helper()
	samples, err := filepath.Abs("../../samples")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "doc.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := scripts.LoadOptions{Dir: samples}
	if b.kind == "fragment" {
		// A fragment stands in a script that gives its variables a value
		// (a secret's comes from -e): those its own env: leaves open are
		// given one, as the environment would.
		var head struct{ Env map[string]any }
		_ = yaml.Unmarshal([]byte(src), &head)
		opts.Headed = true // a handoff step alone
		opts.LookupEnv = func(name string) (string, bool) {
			if _, ok := head.Env[name]; ok {
				return "", false
			}
			return "placeholder-value", true
		}
	}
	s, err := scripts.Load(p, opts)
	if err != nil {
		return err
	}
	_, err = film.RenderSettings(film.ConfigOf(s.Output), film.RenderFlags{})
	return err
}

// Every ```yaml block of the README and docs/ validates with the real
// loader (a fragment inside a minimal script); an exemption says why.
func TestDocsExamplesValidate(t *testing.T) {
	blocks := docBlocks(t)
	kinds := map[string]int{}
	files := map[string]bool{}
	for _, b := range blocks {
		kinds[b.kind]++
		files[b.file] = true
		if b.kind == "not a script" {
			if b.reason == "" {
				t.Errorf("%s:%d: exempted without a reason: write <!-- not a script: why -->", b.file, b.line)
			}
			continue
		}
		if err := loadDocScript(t, b, asScript(t, b)); err != nil {
			t.Errorf("%s:%d: the %s does not validate:\n%s\n%v", b.file, b.line, b.kind, b.src, err)
		}
	}
	// The extractor sees the docs: the README's script, the reference's
	// example of each step, and the guides'.
	if !files["README.md"] || !files["docs/reference.md"] || kinds["fragment"] < 35 || kinds["script"]+kinds["runnable"] < 3 {
		t.Errorf("found %v in %v: the extractor misses blocks", kinds, files)
	}
	if kinds["runnable"] < 1 || kinds["runnable"] > 3 {
		t.Errorf("%d runnable blocks: keep 1 to 3, the suite must stay fast", kinds["runnable"])
	}
	// A block the loader refuses is refused here: the test can fail.
	bad := docBlock{file: "bad", kind: "fragment", src: "- clik: \"#save\"\n"}
	if err := loadDocScript(t, bad, asScript(t, bad)); err == nil || !strings.Contains(err.Error(), `did you mean "click"`) {
		t.Errorf("a misspelt step validates: %v", err)
	}
	badOut := docBlock{file: "bad", kind: "fragment", src: "output: {cursor: {smoothing: wobbly}}\n"}
	if err := loadDocScript(t, badOut, asScript(t, badOut)); err == nil {
		t.Error("an output setting the compositor refuses validates")
	}
}

// The blocks marked runnable run on the sample site and pass.
func TestDocsExamplesRun(t *testing.T) {
	testenv.Need(t, "chromium")
	for _, b := range docBlocks(t) {
		if b.kind != "runnable" {
			continue
		}
		dir := t.TempDir()
		for _, d := range []string{"site", "parts"} {
			if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join("../../samples", d))); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, "doc.yaml")
		if err := os.WriteFile(p, []byte(b.src), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"run", p, "--no-video", "-q", "-o", filepath.Join(dir, "out")}, sandboxArgs()...)
		if stdout, stderr, code := runCLI(t, args...); code != 0 {
			t.Errorf("%s:%d: exit %d\n%s%s", b.file, b.line, code, stdout, stderr)
		}
	}
}
