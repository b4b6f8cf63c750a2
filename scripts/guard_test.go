package scripts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestTooDeep(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	for _, c := range []struct {
		src       string
		line, col int
	}{
		{"steps:\n  - eval: " + nest(64) + "\n", 0, 0},
		{"steps:\n  - eval: " + nest(65) + "\n", 2, 75},
		{"a: {b: " + nest(64) + "}\n", 1, 71},
		// Not flow collections: in quotes, in a comment, inside a plain
		// scalar.
		{"a: '" + strings.Repeat("[", 100) + "'\n", 0, 0},
		{"a: \"\\\"" + strings.Repeat("{", 100) + "\"\n", 0, 0},
		{"# " + strings.Repeat("[", 100) + "\n", 0, 0},
		{"a: x" + strings.Repeat("[", 100) + "\n", 0, 0},
		{"a: 'it''s " + strings.Repeat("[", 100) + "'\n", 0, 0},
		// A quote inside a plain word in a flow collection is no quote.
		{"steps: [it's, " + nest(65) + "]\n", 1, 78},
		{"a: {k: don't, b: " + nest(65) + "}\n", 1, 81},
		// Inside a flow collection a bracket opens one, after a comma too.
		{"a: [1, " + nest(64) + "]\n", 1, 71},
		// A list's dash and a line's start open a value.
		{"- " + nest(65) + "\n", 1, 67},
		{nest(65) + "\n", 1, 65},
	} {
		if line, col := tooDeep([]byte(c.src), 64); line != c.line || col != c.col {
			t.Errorf("%.40q: %d:%d, want %d:%d", c.src, line, col, c.line, c.col)
		}
	}
}

// A script nested too deep is refused with its place, before the YAML
// parser sees it (100 000 levels once took it past 6 GB).
func TestLoadRefusesDeepNesting(t *testing.T) {
	n := 100000
	src := "steps:\n  - eval: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "deep.yaml")
	os.WriteFile(path, []byte(src), 0o644)
	_, err := Load(path, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), path+":2:61: flow collections") {
		t.Fatalf("deep nesting: %.300v", err)
	}
}

// A script is a regular file of bounded size; a device or a huge file is
// refused before it is read, an include too. A byte order mark is no key.
func TestReadScriptGuards(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := Load("/dev/zero", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
	inc := write("inc.yaml", "steps:\n  - run: /dev/zero\n")
	if _, err := Load(inc, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("run: /dev/zero: %v", err)
	}
	// A pipe, as the script or an include, is refused without waiting
	// for a writer.
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(fifo, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file (a pipe)") {
		t.Errorf("a pipe: %v", err)
	}
	incFifo := write("incfifo.yaml", "steps:\n  - run: fifo.yaml\n")
	if _, err := Load(incFifo, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("run: a pipe: %v", err)
	}
	big := write("big.yaml", "steps: [reload]\n#"+strings.Repeat("x", maxScriptBytes)+"\n")
	if _, err := Load(big, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "may hold at most 4 MiB") {
		t.Errorf("huge script: %v", err)
	}
	bom := write("bom.yaml", "\ufeffsteps:\n  - reload\n")
	if s, err := Load(bom, LoadOptions{}); err != nil || len(s.Steps) != 1 {
		t.Errorf("a script with a byte order mark: %v", err)
	}
}

// Aliases of lists of aliases are refused once they stand for too many
// nodes, quickly, in the script and in an include; ordinary aliases pass.
func TestAliasExpansionBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("output:\n  a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "  a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("steps: [reload]\n")
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.yaml")
	os.WriteFile(bomb, []byte(b.String()), 0o644)
	if _, err := Load(bomb, LoadOptions{}); err == nil || !strings.Contains(err.Error(), bomb+":1:1: this file stands for more than") {
		t.Errorf("alias bomb: %v", err)
	}
	inc := filepath.Join(dir, "inc.yaml")
	os.WriteFile(inc, []byte("steps:\n  - run: bomb.yaml\n"), 0o644)
	if _, err := Load(inc, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "stands for more than") {
		t.Errorf("alias bomb included: %v", err)
	}
	// repeat over aliases of repeats: each level ten of the one before.
	var r strings.Builder
	r.WriteString("steps:\n  - repeat: &r0 {times: 1, steps: [reload, reload, reload, reload, reload, reload, reload, reload, reload, reload]}\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&r, "  - repeat: &r%d {times: 1, steps: [", i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				r.WriteString(", ")
			}
			fmt.Fprintf(&r, "{repeat: *r%d}", i-1)
		}
		r.WriteString("]}\n")
	}
	rep := filepath.Join(dir, "repeat.yaml")
	os.WriteFile(rep, []byte(r.String()), 0o644)
	if _, err := Load(rep, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "stands for more than") {
		t.Errorf("repeat bomb: %.300v", err)
	}
	// 300 000 plain steps (under the 4 MiB bound, no alias at all): the
	// error says the file is too long, and does not blame aliases.
	plain := filepath.Join(dir, "plain.yaml")
	os.WriteFile(plain, []byte("steps:\n"+strings.Repeat("- reload\n", 300_000)), 0o644)
	if _, err := Load(plain, LoadOptions{}); err == nil || !strings.Contains(err.Error(), plain+":1:1: this file is too long") || strings.Contains(err.Error(), "alias") {
		t.Errorf("300 000 plain steps: %.300v", err)
	}
	ok := filepath.Join(dir, "ok.yaml")
	os.WriteFile(ok, []byte("steps:\n  - &next {click: \"#next\"}\n  - *next\n  - *next\n"), 0o644)
	if s, err := Load(ok, LoadOptions{}); err != nil || len(s.Steps) != 3 {
		t.Errorf("ordinary aliases: %v", err)
	}
}

// A secret split by a chord's + shows no part of itself in the press
// error, and a secret set by an include's env is held to the shortest
// length a secret may have, as one the script declares is.
func TestSecretsInChordsAndIncludes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "press.yaml")
	os.WriteFile(p, []byte("secrets: [PIN]\nsteps:\n  - press: \"${PIN}\"\n"), 0o644)
	_, err := Load(p, LoadOptions{LookupEnv: func(k string) (string, bool) { return "hunter2+secretpart", k == "PIN" }})
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "secretpart") || !strings.Contains(err.Error(), "is not shown") {
		t.Errorf("a chord from a secret: %v", err)
	}
	// The script makes TOKEN a secret; an include is given a short value
	// for it, and uses it twice: one error, where it is first used.
	os.WriteFile(filepath.Join(dir, "part.yaml"), []byte("steps:\n  - type: {text: \"${TOKEN}\"}\n  - type: {text: \"${TOKEN}\"}\n"), 0o644)
	main := filepath.Join(dir, "main.yaml")
	os.WriteFile(main, []byte("env: {TOKEN: longenough}\nsecrets: [TOKEN]\nsteps:\n  - run: {file: part.yaml, env: {TOKEN: \"ab\"}}\n"), 0o644)
	_, err = Load(main, LoadOptions{})
	if err == nil || strings.Count(err.Error(), "secret TOKEN is 2 characters long") != 1 {
		t.Errorf("a short secret from an include's env: %v", err)
	}
	// A short secret the script sets itself is reported once, where it is
	// declared, however often it is used.
	os.WriteFile(main, []byte("env: {PW: abc}\nsecrets: [PW]\nsteps:\n  - type: {text: \"${PW}\"}\n  - type: {text: \"${PW}\"}\n"), 0o644)
	if _, err := Load(main, LoadOptions{}); err == nil || strings.Count(err.Error(), "characters long") != 1 {
		t.Errorf("a short secret used twice: %v", err)
	}
}

// Numbers YAML cannot give as numbers are named as they are written.
func TestOddNumbersNamed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "n.yaml")
	os.WriteFile(p, []byte("steps:\n  - zoom: {target: \"#a\", scale: .nan}\n  - zoom: {target: \"#a\", scale: .inf}\n  - repeat: {times: 99999999999999999999, steps: [reload]}\n  - repeat: {times: \"3\", steps: [reload]}\n"), 0o644)
	_, err := Load(p, LoadOptions{})
	for _, want := range []string{p + ":2:33: zoom.scale must be a number, not NaN (.nan)", p + ":3:33: zoom.scale must be a number, not infinity", p + ":4:21: repeat.times: 99999999999999999999 is too large a number", p + ":5:21: repeat.times must be a whole number, not a string"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}

// One rule for every place a URL is given: a tab's open URL is checked as
// goto's is, at validation.
func TestTabURLCheckedAsGoto(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{`steps: [{goto: "javascript:alert(1)"}]`, `goto: scheme "javascript" is not one of`},
		{`steps: [{tab: {open: x, url: "javascript:alert(1)"}}]`, `tab: scheme "javascript" is not one of`},
		{`steps: [{tab: {open: x, url: "example.com"}}]`, `tab: "example.com" needs a scheme`},
		{`steps: [{tab: {open: x, url: "https://example.com"}}]`, ``},
	} {
		p := filepath.Join(dir, "s.yaml")
		os.WriteFile(p, []byte(c.src+"\n"), 0o644)
		_, err := Load(p, LoadOptions{})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}
