package scripts

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
)

// Variables
//
// ${NAME} in any string is replaced at load time. A name is looked up, in
// order: -e (LoadOptions.Env); the env: of the run steps that included the
// current file, nearest first; the process environment
// (LoadOptions.LookupEnv); the env: sections of the files, outermost (the
// main script) first. So -e beats the environment, which beats a script's
// env:, and what an including script says beats an included file's own
// defaults. The values of env: sections may themselves use ${VARS}; values
// from -e and the environment are taken literally. $${ writes a literal
// ${ (for JavaScript template strings). ${serve.url} stays in place until
// BindServe.

// refRE matches $${ (an escaped ${) or a ${name} reference.
var refRE = regexp.MustCompile(`\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}`)

const serveName = "serve.url"

// envVar is one entry of an env: section, resolved on first use.
type envVar struct {
	name  string
	raw   string
	node  ast.Node
	d     *decoder // whose scope and file the value's ${VARS} resolve in
	state int      // 0 unresolved, 1 resolving, 2 done
	val   string
}

// scope is the variables one file sees.
type scope struct {
	parent *scope
	call   map[string]*envVar // env: of the run step that included the file
	file   map[string]*envVar // the file's own env:
}

// env decodes an env: map without resolving its values.
func (d *decoder) env(f *field, n ast.Node, path string) (any, bool) {
	m, ok := d.asMap(n, path)
	if !ok {
		return nil, false
	}
	// A bad entry is reported and left out; the others still resolve.
	out := map[string]*envVar{}
	for _, e := range d.entries(m) {
		if !f.pattern.MatchString(e.key) {
			d.errorf(e.keyPos, "%s: %q must be %s", path, e.key, f.patternHint)
			continue
		}
		v := d.unwrap(e.value)
		raw, ok := scalar(v)
		if !ok {
			d.errorf(d.pos(v), "%s.%s must be a string or a number, not %s (write \"\" for empty)", path, e.key, typeName(v))
			continue
		}
		out[e.key] = &envVar{name: e.key, raw: raw, node: v, d: d}
	}
	return out, true
}

// lookup finds a variable's value as seen from sc.
func (l *loader) lookup(sc *scope, name string) (string, bool) {
	if v, ok := l.opts.Env[name]; ok {
		return v, true
	}
	for s := sc; s != nil; s = s.parent {
		if v := s.call[name]; v != nil {
			return l.resolve(v), true
		}
	}
	if l.opts.LookupEnv != nil {
		if v, ok := l.opts.LookupEnv(name); ok {
			return v, true
		}
	}
	var chain []*scope
	for s := sc; s != nil; s = s.parent {
		chain = append(chain, s)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if v := chain[i].file[name]; v != nil {
			return l.resolve(v), true
		}
	}
	return "", false
}

// names lists the variables a scope defines, for suggestions.
func (l *loader) names(sc *scope) []string {
	set := map[string]bool{}
	for k := range l.opts.Env {
		set[k] = true
	}
	for s := sc; s != nil; s = s.parent {
		for k := range s.call {
			set[k] = true
		}
		for k := range s.file {
			set[k] = true
		}
	}
	set[serveName] = true
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (l *loader) resolve(v *envVar) string {
	switch v.state {
	case 1:
		v.d.errorf(v.d.pos(v.node), "variable %s refers to itself", v.name)
		return ""
	case 2:
		return v.val
	}
	v.state = 1
	v.val = v.d.expandEnv(v.raw, v.node)
	v.state = 2
	return v.val
}

// expand resolves the ${VARS} of a string read from node n.
func (d *decoder) expand(s string, n ast.Node) string {
	out := d.interpolate(s, n)
	if !d.inSteps && strings.Contains(out, ServeVar) && !strings.Contains(s, "$${") {
		d.errorf(d.pos(n), "%s is only known once the run starts: use it in steps", ServeVar)
	}
	return out
}

// expandEnv resolves an env: value; ${serve.url} may stay.
func (d *decoder) expandEnv(s string, n ast.Node) string { return d.interpolate(s, n) }

func (d *decoder) interpolate(s string, n ast.Node) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	last := 0
	seen := map[string]int{}
	for _, m := range refRE.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		ref := s[m[0]:m[1]]
		if ref == "$${" {
			b.WriteString("${")
			continue
		}
		name := s[m[2]:m[3]]
		seen[ref]++
		if name == serveName {
			if !d.l.serve {
				d.errorf(d.refPos(n, ref, seen[ref]), "%s is used but the script has no serve: folder", ServeVar)
			}
			b.WriteString(ref)
			continue
		}
		v, ok := d.l.lookup(d.sc, name)
		if !ok {
			msg := fmt.Sprintf("unresolved variable ${%s}: set it in env:, in the environment, or with -e %s=VALUE", name, name)
			if sug := suggest(name, d.l.names(d.sc)); sug != "" {
				msg = fmt.Sprintf("unresolved variable ${%s}; did you mean ${%s}?", name, sug)
			}
			d.errorf(d.refPos(n, ref, seen[ref]), "%s", msg)
			b.WriteString(ref)
			continue
		}
		if d.l.secretNames[name] {
			if k := utf8.RuneCountInString(v); k < MinSecret && v != "" && d.l.judge(name, v) {
				// Set by an include's env: masking it would hide ordinary
				// text too, and it is no secret kept.
				d.errorf(d.refPos(n, ref, seen[ref]), "secret %s is %d characters long: masking a value shorter than %d would hide ordinary text too; use a longer value, or make it no secret", name, k, MinSecret)
			} else {
				d.l.addSecret(v)
			}
		}
		b.WriteString(v)
	}
	b.WriteString(s[last:])
	return b.String()
}

// refPos finds the k-th occurrence of ref in the source from node n on,
// so that an error points at the variable itself; else at the node.
func (d *decoder) refPos(n ast.Node, ref string, k int) Pos {
	at := d.pos(n)
	lines := d.l.files[d.file]
	if at.Line <= 0 || at.Line > len(lines) {
		return at
	}
	for ln := at.Line; ln <= len(lines) && ln < at.Line+200; ln++ {
		line := []rune(lines[ln-1])
		start := 0
		if ln == at.Line {
			start = at.Col - 1
		}
		r := []rune(ref)
		for i := max(start, 0); i+len(r) <= len(line); i++ {
			if string(line[i:i+len(r)]) == ref {
				k--
				if k == 0 {
					return Pos{File: d.file, Line: ln, Col: i + 1}
				}
			}
		}
	}
	return at
}

// judge reports whether the length of secret name's value v is yet to be
// judged, and notes it judged: a value too short is reported once, where
// it is first met.
func (l *loader) judge(name, v string) bool {
	k := name + "\x00" + v
	if l.judged[k] {
		return false
	}
	if l.judged == nil {
		l.judged = map[string]bool{}
	}
	l.judged[k] = true
	return true
}

func (l *loader) addSecret(v string) {
	if v == "" || contains(l.secrets, v) {
		return
	}
	l.secrets = append(l.secrets, v)
	// Longer values first, so that a secret containing another is masked
	// whole.
	sort.SliceStable(l.secrets, func(i, j int) bool { return len(l.secrets[i]) > len(l.secrets[j]) })
}

// mask replaces secret values, in all their forms, in s.
func mask(s string, secrets []string) string { return newMasker(secrets).mask(s) }

func hasSecret(s string, secrets []string) bool {
	for _, v := range secrets {
		if v != "" && strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// BindServe returns a copy of s with ${serve.url} in every step replaced
// by url, the address the served folder listens on (no trailing slash
// needed: "${serve.url}/" is written by scripts). s is left as it was, so
// it can be run again against another address.
func (s *Script) BindServe(url string) *Script {
	url = strings.TrimSuffix(url, "/")
	f := func(str string) string { return strings.ReplaceAll(str, ServeVar, url) }
	out := *s
	out.Steps = make([]Step, len(s.Steps))
	for i, st := range s.Steps {
		st.Label = f(st.Label)
		st.Action = rewrite(st.Action, f)
		out.Steps[i] = st
	}
	return &out
}

// rewrite deep-copies an action, passing every string through f.
func rewrite(a Action, f func(string) string) Action {
	if a == nil {
		return nil
	}
	src := reflect.ValueOf(a)
	dst := reflect.New(src.Type()).Elem()
	copyValue(dst, src, f)
	return dst.Interface().(Action)
}

func copyValue(dst, src reflect.Value, f func(string) string) {
	switch src.Kind() {
	case reflect.String:
		dst.SetString(f(src.String()))
	case reflect.Struct:
		for i := 0; i < src.NumField(); i++ {
			if dst.Field(i).CanSet() {
				copyValue(dst.Field(i), src.Field(i), f)
			}
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		copyValue(p.Elem(), src.Elem(), f)
		dst.Set(p)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			copyValue(s.Index(i), src.Index(i), f)
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			v := reflect.New(src.Type().Elem()).Elem()
			copyValue(v, it.Value(), f)
			m.SetMapIndex(it.Key(), v)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		inner := src.Elem()
		v := reflect.New(inner.Type()).Elem()
		copyValue(v, inner, f)
		dst.Set(v)
	default:
		dst.Set(src)
	}
}

// describeSecretUse is the text shown for a secret-bearing value.
func describeSecretUse(secret bool, s string) string {
	if secret {
		return "•••"
	}
	return fmt.Sprintf("%q", s)
}
