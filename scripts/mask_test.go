package scripts

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestMaskEveryForm(t *testing.T) {
	m := newMasker([]string{"p&ss w/rd<1>\"é", "tok3n"})
	v := "p&ss w/rd<1>\"é"
	for _, form := range []string{
		v,
		"p%26ss+w%2Frd%3C1%3E%22%C3%A9",  // a URL query
		"p&ss%20w%2Frd%3C1%3E%22%C3%A9",  // a URL path
		"p&amp;ss w/rd&lt;1&gt;&#34;é",   // HTML
		`p\u0026ss w/rd\u003c1\u003e\"é`, // JSON, HTML-safe
		`p&ss w/rd<1>\"é`,                // JSON
	} {
		in := "before " + form + " after"
		if got := m.mask(in); got != "before "+Masked+" after" {
			t.Errorf("mask(%q) = %q", in, got)
		}
	}
	if got := m.mask("a tok3ntok3n b"); got != "a "+Masked+Masked+" b" {
		t.Errorf("repeated: %q", got)
	}
	// A value holding another is masked whole, whichever is listed first.
	m = newMasker([]string{"abcd", "xxabcdyy"})
	if got := m.mask("[xxabcdyy] [abcd]"); got != "["+Masked+"] ["+Masked+"]" {
		t.Errorf("nested: %q", got)
	}
	if got := (masker{}).mask("nothing to hide"); got != "nothing to hide" {
		t.Errorf("zero masker: %q", got)
	}
}

func TestShortSecretRefused(t *testing.T) {
	dir := writeScript(t, map[string]string{"demo.yaml": "secrets: [PIN]\nsteps:\n  - goto: https://example.com/?pin=${PIN}\n"})
	_, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{Env: map[string]string{"PIN": "123"}})
	if err == nil || !strings.Contains(err.Error(), "demo.yaml:1:11: secret PIN is 3 characters long") {
		t.Fatalf("a 3-character secret: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{Env: map[string]string{"PIN": "1234"}}); err != nil {
		t.Fatalf("a 4-character secret: %v", err)
	}
}
