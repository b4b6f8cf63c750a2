// Package starter is what clapper new writes: a starter script NAME.yaml
// with the common steps (more commented out), the small site it films
// (NAME-site/, unless it films a given address), and clapper.schema.json
// beside them.
package starter

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/scripts"
)

// files holds the script's template and the small site it films.
//
//go:embed script.yaml.tmpl site
var files embed.FS

// Options name the script and what it films.
type Options struct {
	Name string // as given: a path whose last part names the script
	URL  string // film this address instead of a starter site
}

// validName is what the script's own name may be: its file, its site
// folder, its video and its output folder are named after it.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// starterFile is one file clapper new writes.
type starterFile struct {
	path string // where, relative to the working folder
	body []byte
	// optional files are kept as they are when they exist already.
	optional bool
}

// starterPlan is what clapper new writes: the script, the site folder it
// films (none with --url) and every file.
type starterPlan struct {
	script, site string
	files        []starterFile
}

// planStarter lays out what clapper new writes for o, without writing
// anything: NAME.yaml, the site folder NAME-site/ (unless o.URL), and
// clapper.schema.json (optional: an existing one is kept). Pure but for
// reading the embedded templates.
func planStarter(o Options) (*starterPlan, error) {
	dir, base := filepath.Split(o.Name)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	if !validName.MatchString(base) {
		return nil, exit.Usagef("new %q: a script's name is letters, digits, '.', '-' and '_', e.g. clapper new demo", o.Name)
	}
	data := struct{ Name, Title, File, Site, URL string }{Name: base, Title: title(base), File: filepath.Join(dir, base+".yaml")}
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || u.Scheme == "" || strings.Contains(o.URL, "${") {
			return nil, exit.Usagef("new --url %q: give a whole address, e.g. https://example.com/", o.URL)
		}
		// A JSON string is a YAML double-quoted scalar.
		var q bytes.Buffer
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o.URL); err != nil {
			return nil, err
		}
		data.URL = strings.TrimSpace(q.String())
	} else {
		data.Site = base + "-site"
	}
	script, err := render(template.New("script"), "script.yaml.tmpl", data)
	if err != nil {
		return nil, err
	}
	p := &starterPlan{script: data.File, files: []starterFile{{path: data.File, body: script}}}
	if data.Site != "" {
		p.site = filepath.Join(dir, data.Site)
		ents, err := files.ReadDir("site")
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			b, err := files.ReadFile(path.Join("site", e.Name()))
			if err != nil {
				return nil, err
			}
			if strings.HasSuffix(e.Name(), ".html") {
				if b, err = render(htmltemplate.New(e.Name()), path.Join("site", e.Name()), data); err != nil {
					return nil, err
				}
			}
			p.files = append(p.files, starterFile{path: filepath.Join(p.site, e.Name()), body: b})
		}
	}
	p.files = append(p.files, starterFile{path: filepath.Join(dir, "clapper.schema.json"), body: scripts.Schema(), optional: true})
	return p, nil
}

// parser is what text/template and html/template have in common.
type parser[T any] interface {
	Parse(string) (T, error)
	Execute(io.Writer, any) error
}

// render executes the embedded template at name with data.
func render[T parser[T]](t T, name string, data any) ([]byte, error) {
	src, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	t, err = t.Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("starter template %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("starter template %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// title makes a script's display name of its file name: "sign-up_flow"
// becomes "Sign up flow".
func title(base string) string {
	t := strings.NewReplacer("-", " ", "_", " ").Replace(base)
	return strings.ToUpper(t[:1]) + t[1:]
}

// Write writes the starter files, refusing (exit 1, nothing written)
// when the script or its site folder exists already.
func Write(o Options, w io.Writer) error {
	p, err := planStarter(o)
	if err != nil {
		return err
	}
	var taken []string
	for _, q := range []string{p.script, p.site} {
		if _, err := os.Lstat(q); q != "" && err == nil {
			taken = append(taken, q)
		}
	}
	if len(taken) > 0 {
		verb := "exists"
		if len(taken) > 1 {
			verb = "exist"
		}
		return &exit.Error{Code: exit.Failed, Err: fmt.Errorf("new: %s already %s: nothing written (choose another name, or remove it)", strings.Join(taken, " and "), verb)}
	}
	var wrote, kept []string
	for _, f := range p.files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return fmt.Errorf("new: %w", err)
		}
		// O_EXCL: never overwrite, even a file made since the check.
		fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && f.optional {
			kept = append(kept, f.path)
			continue
		}
		if err != nil {
			return fmt.Errorf("new: %w", err)
		}
		_, err = fh.Write(f.body)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("new: write %s: %w", f.path, err)
		}
		wrote = append(wrote, f.path)
	}
	for _, q := range wrote {
		fmt.Fprintf(w, "wrote %s\n", q)
	}
	for _, q := range kept {
		fmt.Fprintf(w, "kept %s as it is\n", q)
	}
	fmt.Fprintf(w, "next: clapper validate %s, then clapper run %s\n", p.script, p.script)
	return nil
}
