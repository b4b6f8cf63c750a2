package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/internal/testenv"
)

// As a new user would: film the quickstart twice, and once more with one
// word of the sample site's copy changed. The two films of the same site
// do not differ; the third differs in one finding, at the first step
// whose picture shows the word, with a region the size of a word.
func TestDiffTwoRunsAndAChangedWord(t *testing.T) {
	testenv.Need(t, "chromium-headless-shell")
	dir := t.TempDir()
	src, err := os.ReadFile("../../samples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// At scale 1: a quarter of the pixels to film, the same steps.
	script := []byte(strings.Replace(string(src), "scale: 2}", "scale: 1}", 1))
	if string(script) == string(src) {
		t.Fatal("the quickstart's viewport has no scale: 2 to replace")
	}
	film := func(name string, change func(string) string) string {
		t.Helper()
		d := filepath.Join(dir, name)
		copyTree(t, "../../samples/site", filepath.Join(d, "site"))
		if change != nil {
			p := filepath.Join(d, "site", "index.html")
			b, _ := os.ReadFile(p)
			if c := change(string(b)); c == string(b) {
				t.Fatal("the change changed nothing")
			} else if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, "quickstart.yaml"), script, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(d, "out")
		args := append([]string{"run", filepath.Join(d, "quickstart.yaml"), "-o", out, "--no-video", "-q", "--capture", "studio"}, sandboxArgs()...)
		if _, stderr, code := runCLI(t, args...); code != 0 {
			t.Fatalf("run %s: exit %d: %s", name, code, stderr)
		}
		return filepath.Join(out, "take")
	}
	a := film("a", nil)
	b := film("b", nil)
	c := film("c", func(s string) string { return strings.Replace(s, "in seconds", "in minutes", 1) })

	stdout, stderr, code := runCLI(t, "diff", a, b)
	if code != 0 {
		// Seen once in many runs on a loaded machine: the picture the
		// first goto left differed in its text (docs/internals.md, "A
		// goto's last picture"). A third film must then match.
		t.Logf("two films of the same site differed once (filmed again): exit %d\n%s%s", code, stdout, stderr)
		stdout, stderr, code = runCLI(t, "diff", a, film("b2", nil))
	}
	if code != 0 || !strings.HasPrefix(stdout, "no differences in ") {
		t.Errorf("two films of the same site: exit %d\n%s%s", code, stdout, stderr)
	}

	stdout, stderr, code = runCLI(t, "diff", a, c)
	if code != exitFailed {
		t.Fatalf("a changed word: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "quickstart.yaml:") || !strings.Contains(lines[0], "picture: the picture it left changed") {
		t.Errorf("a changed word: want one finding line naming the script's line, then totals:\n%s", stdout)
	}
	js, _, _ := runCLI(t, "diff", "--json", a, c)
	var res compare.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("diff --json: %v\n%s", err, js)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("%d findings, want 1: %+v", len(res.Findings), res.Findings)
	}
	f := res.Findings[0]
	// goto, wait, pause: the page with the word is on screen by then.
	if f.What != compare.FindingPicture || f.New > 2 || len(f.Regions) == 0 {
		t.Fatalf("finding %+v: want a picture finding at one of the first three steps", f)
	}
	for _, r := range f.Regions {
		if r.W > 640 || r.H > 60 {
			t.Errorf("region %+v is larger than a line of text", r)
		}
	}

	// --report writes the comparison as one HTML file and says where; the
	// rest of the command is as it was.
	report := filepath.Join(dir, "diff.html")
	stdout2, stderr, code := runCLI(t, "diff", "--report", report, a, c)
	if code != exitFailed || stdout2 != stdout || !strings.Contains(stderr, "report: "+report+"\n") {
		t.Errorf("diff --report: exit %d\n%s%s", code, stdout2, stderr)
	}
	if page, err := os.ReadFile(report); err != nil || !strings.Contains(string(page), `src="data:image/jpeg;base64,`) || !strings.Contains(string(page), `<rect x="`) {
		t.Errorf("the report has no pictures or no region box: %v", err)
	}

	// Usage errors say what to give.
	if _, stderr, code := runCLI(t, "diff", "--report", filepath.Join(dir, "no such folder", "diff.html"), a, b); code != exitUsage || !strings.Contains(stderr, "--report") {
		t.Errorf("--report in a missing folder: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "diff", a); code != exitUsage || !strings.Contains(stderr, "diff takes two takes") {
		t.Errorf("one take: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "diff", "--tolerance", "0", a, b); code != exitUsage || !strings.Contains(stderr, "give 1 to 255") {
		t.Errorf("--tolerance 0: exit %d: %s", code, stderr)
	}
}

// copyTree copies the plain files of folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
