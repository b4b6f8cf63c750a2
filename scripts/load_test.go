package scripts

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestIncludeAndRepeatExpand(t *testing.T) {
	s, err := Load("testdata/valid/full.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fromPart []Step
	for _, st := range s.Steps {
		if st.Pos.File == filepath.Join("testdata", "valid", "parts", "login.yaml") {
			fromPart = append(fromPart, st)
		}
	}
	if len(fromPart) != 3 {
		t.Fatalf("%d steps from parts/login.yaml, want 3", len(fromPart))
	}
	// The run step's env beats the included file's own default.
	if a := fromPart[0].Action.(Type); a.Text != "demo@example.com" || a.Secret || fromPart[0].Pos.Line != 5 || fromPart[0].Pos.Col != 5 {
		t.Errorf("first included step: %+v at %v", a, fromPart[0].Pos)
	}
	if a := fromPart[1].Action.(Type); !a.Secret || a.Text != "not-a-real-password" {
		t.Errorf("password step not secret: %+v", a)
	}
	// repeat: 3 × (press, pause), in order, at the body's lines.
	var kinds []string
	for _, st := range s.Steps {
		if st.Pos.Line >= 42 && st.Pos.Line <= 43 && st.Pos.File == "testdata/valid/full.yaml" {
			kinds = append(kinds, st.Kind)
		}
	}
	if want := []string{"press", "pause", "press", "pause", "press", "pause"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("repeat expanded to %v, want %v", kinds, want)
	}
	if s.Mask("pw is not-a-real-password!") != "pw is •••!" {
		t.Errorf("Mask = %q", s.Mask("pw is not-a-real-password!"))
	}
	if s.Env["PASSWORD"] != "•••" || s.Env["EMAIL"] != "demo@example.com" {
		t.Errorf("Env = %v", s.Env)
	}
	if !reflect.DeepEqual(s.Secrets, []string{"PASSWORD"}) {
		t.Errorf("Secrets = %v", s.Secrets)
	}
}

func TestRepeatCopiesAndDefaults(t *testing.T) {
	src := `steps:
  - tab: {open: side}
  - repeat:
      times: 2
      steps:
        - click: "#next"
        - press: {key: Tab, into: "#f"}
          timeout: 1s
    tab: side
    optional: true
    timeout: 4s
    retries: 2
`
	s := loadSrc(t, src, LoadOptions{}, nil)
	if len(s.Steps) != 5 {
		t.Fatalf("%d steps, want 5", len(s.Steps))
	}
	for _, st := range s.Steps[1:] {
		if st.Tab != "side" || !st.Optional || st.Retries != 2 {
			t.Errorf("outer fields not applied: %+v", st)
		}
	}
	if s.Steps[1].Timeout != 4*time.Second || s.Steps[2].Timeout != time.Second {
		t.Errorf("timeouts %v %v", s.Steps[1].Timeout, s.Steps[2].Timeout)
	}
	// Each copy is its own value: changing one leaves the other.
	p1, p2 := s.Steps[2].Action.(Press), s.Steps[4].Action.(Press)
	p1.Into.CSS = "#changed"
	if p2.Into.CSS != "#f" {
		t.Errorf("repeat copies share targets")
	}
}

func TestRepeatLimit(t *testing.T) {
	src := "steps:\n  - repeat: {times: 1000, steps: [{repeat: {times: 1000, steps: [reload]}}]}\n"
	dir := writeScript(t, map[string]string{"s.yaml": src})
	_, err := Load(filepath.Join(dir, "s.yaml"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "more than 10000") {
		t.Fatalf("err = %v", err)
	}
}

func TestEnvPrecedence(t *testing.T) {
	files := map[string]string{
		"part.yaml": "env: {WHO: part, ONLY_PART: p}\nsteps:\n  - caption: \"${WHO} ${ONLY_PART} ${X}\"\n",
	}
	src := `env: {X: script, WHO: script}
steps:
  - caption: "${X}"
  - run: part.yaml
  - run: {file: part.yaml, env: {WHO: call}}
`
	process := fakeEnv(map[string]string{"X": "process"})
	for _, tt := range []struct {
		name string
		opts LoadOptions
		want []string
	}{
		{"script env", LoadOptions{}, []string{"script", "script p script", "call p script"}},
		{"process beats script", LoadOptions{LookupEnv: process},
			[]string{"process", "script p process", "call p process"}},
		{"flag beats all", LoadOptions{LookupEnv: process, Env: map[string]string{"X": "flag", "WHO": "flag"}},
			[]string{"flag", "flag p flag", "flag p flag"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := loadSrc(t, src, tt.opts, files)
			var got []string
			for _, st := range s.Steps {
				got = append(got, st.Action.(Caption).Text)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEnvReferences(t *testing.T) {
	src := `env:
  HOST: example.com
  BASE: "https://${HOST}/app"
  JS: "$${notavar}"
steps:
  - goto: ${BASE}/login
  - eval: "${JS}"
`
	s := loadSrc(t, src, LoadOptions{Env: map[string]string{"HOST": "test.local"}}, nil)
	if got := s.Steps[0].Action.(Goto).URL; got != "https://test.local/app/login" {
		t.Errorf("goto %q", got)
	}
	if got := s.Steps[1].Action.(Eval).JS; got != "${notavar}" {
		t.Errorf("eval %q", got)
	}
	src = "env: {A: \"${B}\", B: \"${A}\"}\nsteps:\n  - caption: \"${A}\"\n"
	dir := writeScript(t, map[string]string{"s.yaml": src})
	if _, err := Load(filepath.Join(dir, "s.yaml"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "refers to itself") {
		t.Errorf("cycle: %v", err)
	}
}

func TestSecretsMarkedAndMasked(t *testing.T) {
	src := `secrets: [TOKEN]
env: {AUTH: "Bearer ${TOKEN}"}
steps:
  - fill: {into: "#t", value: "${AUTH}"}
  - type: {text: "${TOKEN}"}
    label: paste ${TOKEN}
  - type: {text: plain}
  - eval: "window.token = '${TOKEN}'"
  - caption: "token is ${TOKEN}"
  - chapter: {title: "${TOKEN}", description: "d ${TOKEN}"}
  - type: "${TOKEN}"
`
	s := loadSrc(t, src, LoadOptions{LookupEnv: fakeEnv(map[string]string{"TOKEN": "s3cr3t"})}, nil)
	if a := s.Steps[0].Action.(Fill); !a.Secret || a.Value != "Bearer s3cr3t" {
		t.Errorf("fill %+v", a)
	}
	if a := s.Steps[1].Action.(Type); !a.Secret || a.Text != "s3cr3t" {
		t.Errorf("type %+v", a)
	}
	if s.Steps[1].Label != "paste •••" {
		t.Errorf("label %q", s.Steps[1].Label)
	}
	if a := s.Steps[2].Action.(Type); a.Secret {
		t.Errorf("plain text marked secret")
	}
	if a := s.Steps[6].Action.(Type); !a.Secret || a.Text != "s3cr3t" {
		t.Errorf("type's short form %+v", a)
	}
	if a := s.Steps[3].Action.(Eval); !a.Secret {
		t.Errorf("eval not secret")
	}
	if a := s.Steps[4].Action.(Caption); a.Text != "token is •••" {
		t.Errorf("caption %q", a.Text)
	}
	if a := s.Steps[5].Action.(Chapter); a.Title != "•••" || a.Description != "d •••" {
		t.Errorf("chapter %+v", a)
	}
	if got := s.Steps[1].String(); strings.Contains(got, "s3cr3t") {
		t.Errorf("String leaks: %q", got)
	}
	// Render options are written into the take and named in errors: a
	// secret in them is masked, through maps.
	s = loadSrc(t, "secrets: [TOKEN]\noutput: {frame: {host: \"${TOKEN}.example\", background: \"#${TOKEN}\"}}\nsteps: [reload]\n",
		LoadOptions{LookupEnv: fakeEnv(map[string]string{"TOKEN": "s3cr3t"})}, nil)
	written, _ := json.Marshal(s.Output.Options) // as render.json holds them
	if got := string(written); strings.Contains(got, "s3cr3t") || !strings.Contains(got, "•••.example") || !strings.Contains(got, "#•••") {
		t.Errorf("output options %v", got)
	}
}

func TestBindServe(t *testing.T) {
	src := `serve: site
steps:
  - goto: ${serve.url}/index.html
  - tab: {open: b, url: "${serve.url}/b.html"}
  - expect: {url: "${serve.url}/*"}
    label: at ${serve.url}
`
	s := loadSrc(t, src, LoadOptions{}, map[string]string{"site/index.html": "x"})
	before := s.Steps[0].Action
	orig := s
	s = s.BindServe("http://127.0.0.1:4321/")
	if orig.Steps[0].Action.(Goto).URL != "${serve.url}/index.html" || orig.Steps[2].Label != "at ${serve.url}" {
		t.Errorf("BindServe changed the script it was called on")
	}
	if got := s.Steps[0].Action.(Goto).URL; got != "http://127.0.0.1:4321/index.html" {
		t.Errorf("goto %q", got)
	}
	if got := s.Steps[1].Action.(Tab).URL; got != "http://127.0.0.1:4321/b.html" {
		t.Errorf("tab %q", got)
	}
	if got := s.Steps[2].Action.(Expect).Want; got != "http://127.0.0.1:4321/*" {
		t.Errorf("expect %q", got)
	}
	if s.Steps[2].Label != "at http://127.0.0.1:4321" {
		t.Errorf("label %q", s.Steps[2].Label)
	}
	if before.(Goto).URL != "${serve.url}/index.html" {
		t.Errorf("BindServe changed a value it had handed out")
	}
}

func TestAnchorsAndAliases(t *testing.T) {
	src := `steps:
  - &next {click: "#next", label: Next}
  - *next
  - click: &sel {text: Save}
  - hover: *sel
`
	s := loadSrc(t, src, LoadOptions{}, nil)
	if len(s.Steps) != 4 || s.Steps[1].Label != "Next" || s.Steps[3].Action.(Hover).Target.Text != "Save" {
		t.Errorf("steps %v", s.Steps)
	}
}

func TestErrorFormat(t *testing.T) {
	e := &Error{Pos: Pos{File: "a.yaml", Line: 3, Col: 6}, Msg: "boom", Source: "\t- x: y"}
	want := "a.yaml:3:6: boom\n    \t- x: y\n    \t    ^"
	if e.Error() != want {
		t.Errorf("got\n%q\nwant\n%q", e.Error(), want)
	}
	if got := (&Error{Pos: Pos{File: "a.yaml"}, Msg: "gone"}).Error(); got != "a.yaml: gone" {
		t.Errorf("got %q", got)
	}
	es := sortErrors([]*Error{
		{Pos: Pos{File: "b.yaml", Line: 1, Col: 1}, Msg: "x"},
		{Pos: Pos{File: "a.yaml", Line: 9, Col: 1}, Msg: "y"},
		{Pos: Pos{File: "a.yaml", Line: 2, Col: 5}, Msg: "z"},
		{Pos: Pos{File: "a.yaml", Line: 2, Col: 5}, Msg: "z"},
	})
	if len(es) != 3 || es[0].Msg != "z" || es[1].Msg != "y" || es[2].Msg != "x" {
		t.Errorf("sorted: %v", es)
	}
	var one *Error
	if !errors.As(error(es), &one) || one.Msg != "z" {
		t.Errorf("errors.As: %v", one)
	}
}

func TestMissingScript(t *testing.T) {
	_, err := Load("testdata/nope.yaml", LoadOptions{})
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Pos.File != "testdata/nope.yaml" {
		t.Fatalf("err = %v", err)
	}
}

// TestAllErrorsAtOnce: one file with problems of many kinds reports each.
func TestAllErrorsAtOnce(t *testing.T) {
	_, err := Load("testdata/errors/groups.yaml", testOptions)
	var es Errors
	if !errors.As(err, &es) || len(es) < 20 {
		t.Fatalf("got %d errors, want them all: %v", len(es), err)
	}
	lines := map[int]bool{}
	for _, e := range es {
		lines[e.Pos.Line] = true
	}
	if len(lines) < 20 {
		t.Errorf("errors on %d distinct lines", len(lines))
	}
}

// A script read from elsewhere (a take's copy) resolves its relative
// paths from the folder LoadOptions.Dir names: its serve folder and its
// includes are found there.
func TestLoadFromAnotherFolder(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "site"), 0o755)
	os.WriteFile(filepath.Join(home, "site", "index.html"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(home, "parts"), 0o755)
	os.WriteFile(filepath.Join(home, "parts", "p.yaml"), []byte("steps:\n  - pause: 1ms\n"), 0o644)
	copyDir := t.TempDir()
	p := filepath.Join(copyDir, "script.yaml")
	os.WriteFile(p, []byte("serve: ./site\nsteps:\n  - goto: ${serve.url}/index.html\n  - run: parts/p.yaml\n"), 0o644)
	if _, err := Load(p, LoadOptions{}); err == nil {
		t.Fatal("the copy loaded from its own folder, which has no site")
	}
	s, err := Load(p, LoadOptions{Dir: home})
	if err != nil {
		t.Fatal(err)
	}
	if s.Serve != filepath.Join(home, "site") || len(s.Steps) != 2 {
		t.Errorf("serve %q, %d steps", s.Serve, len(s.Steps))
	}
}
