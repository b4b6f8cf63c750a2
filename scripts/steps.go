package scripts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// maxSteps bounds what repeat and run may expand to; maxIncludes bounds
// how many files run may load in all.
const (
	maxSteps    = 10000
	maxIncludes = 1000
)

// item is a decoded step with the positions the checks after decoding
// need.
type item struct {
	step  Step
	tabAt Pos // where step.Tab was given
	// timeoutAt is where step.Timeout was given: on the step, or on the
	// run or repeat it came from (then outerTimeout is set).
	timeoutAt    Pos
	outerTimeout bool
	nameAt       Pos // hold, resume, tab: where the tab's name was given
}

// stepList decodes a list of steps, expanding run and repeat in place.
func (d *decoder) stepList(n ast.Node, path string) (any, bool) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.errorf(d.pos(n), "%s must be a list of steps (items starting with \"- \"), not %s", path, typeName(n))
		return nil, false
	}
	if len(seq.Values) == 0 {
		d.errorf(d.pos(n), "%s is empty: add at least one step", path)
		return nil, false
	}
	was := d.inSteps
	d.inSteps = true
	defer func() { d.inSteps = was }()
	var out []item
	for _, x := range seq.Values {
		out = append(out, d.stepItem(x)...)
	}
	return out, true
}

// stepItem decodes one list item: a map with one step key and the common
// fields, or the bare name of a step that takes no value.
func (d *decoder) stepItem(n ast.Node) []item {
	n = d.unwrap(n)
	at := d.pos(n)
	if s, ok := n.(*ast.StringNode); ok {
		spec := stepByName[s.Value]
		switch {
		case spec == nil:
			d.errorf(at, "unknown step %q%s", s.Value, didYouMean(s.Value, stepNames()))
		case spec.noArg:
			return []item{{step: Step{Pos: at, Kind: spec.name, Traits: spec.traits, Action: spec.build(&bctx{d: d, v: vals{}, at: at})}}}
		default:
			d.errorf(at, "%s needs a value: write \"- %s: ...\"", spec.name, spec.name)
		}
		return nil
	}
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.errorf(at, "a step must be a map like {click: \"#go\"}, not %s", typeName(n))
		return nil
	}
	var common, known, unknown []entry
	for _, e := range d.entries(m) {
		switch {
		case stepByName[e.key] != nil && e.key != "tab":
			known = append(known, e)
		case findField(commonFields, e.key) != nil: // tab among them
			common = append(common, e)
		default:
			unknown = append(unknown, e)
		}
	}
	// `tab` is a step of its own when nothing else is.
	if len(known) == 0 && len(unknown) == 0 {
		for i, e := range common {
			if e.key == "tab" {
				known = []entry{e}
				common = append(common[:i:i], common[i+1:]...)
				break
			}
		}
	}
	switch {
	case len(known) == 0 && len(unknown) == 0:
		d.errorf(at, "a step needs an action, one of: %s", strings.Join(stepNames(), ", "))
		return nil
	case len(known) == 0:
		cands := append(stepNames(), fieldNames(commonFields)...)
		for _, e := range unknown {
			d.errorf(e.keyPos, "unknown step %q%s", e.key, didYouMean(e.key, cands))
		}
		return nil
	case len(known) > 1:
		d.errorf(known[1].keyPos, "one step per list item: %s and %s are both here; start a new item with \"- \"",
			known[0].key, known[1].key)
	}
	spec := stepByName[known[0].key]
	for _, e := range unknown {
		if findField(spec.fields, e.key) != nil {
			d.errorf(e.keyPos, "%s belongs inside %s: write %s: {%s: ...}", e.key, spec.name, spec.name, e.key)
			continue
		}
		d.unknownKey(e, fieldNames(commonFields), spec.name+" step")
	}
	cv := d.fields(common, commonFields, "", nil, nil)
	key := known[0]
	it := item{step: Step{Pos: key.keyPos, Kind: spec.name, Traits: spec.traits}}
	st := &it.step
	if v := cv["label"]; v != nil {
		st.Label = v.v.(string)
	}
	if v := cv["timeout"]; v != nil {
		st.Timeout, it.timeoutAt = v.v.(time.Duration), v.at
	}
	if v := cv["optional"]; v != nil {
		st.Optional = v.v.(bool)
	}
	if v := cv["hidden"]; v != nil {
		st.Hidden = v.v.(bool)
	}
	if v := cv["tab"]; v != nil {
		st.Tab, it.tabAt = v.v.(string), v.at
	}
	if v := cv["retries"]; v != nil {
		st.Retries = v.v.(int)
	}
	v, ok := d.action(spec, key)
	if !ok {
		return []item{it}
	}
	switch spec.name {
	case "run":
		return d.expandInto(it, d.include(v, key.keyPos))
	case "repeat":
		return d.expandInto(it, d.repeat(v, key.keyPos))
	}
	c := &bctx{d: d, v: v, at: key.keyPos, it: &it}
	st.Action = spec.build(c)
	return []item{it}
}

// action decodes a step's value: nothing, a scalar short form, or a map.
func (d *decoder) action(spec *stepSpec, e entry) (vals, bool) {
	n := d.unwrap(e.value)
	path := spec.name
	switch v := n.(type) {
	case nil, *ast.NullNode:
		if spec.noArg {
			return vals{}, true
		}
		d.errorf(e.keyPos, "%s needs a value%s", spec.name, spec.hint())
		return nil, false
	case *ast.SequenceNode:
		d.errorf(d.pos(n), "%s takes one value, not a list%s", spec.name, spec.hint())
		return nil, false
	case *ast.MappingNode:
		if spec.noArg {
			if len(v.Values) > 0 {
				d.errorf(d.pos(n), "%s takes no value", spec.name)
				return nil, false
			}
			return vals{}, true
		}
		return d.actionMap(spec, e, v)
	}
	if spec.noArg {
		d.errorf(d.pos(n), "%s takes no value: write \"- %s\"", spec.name, spec.name)
		return nil, false
	}
	if spec.short == "" {
		d.errorf(d.pos(n), "%s needs a map%s", spec.name, spec.hint())
		return nil, false
	}
	f := spec.shortField()
	x, ok := d.value(f, n, path)
	if !ok {
		return nil, false
	}
	return vals{f.name: &val{key: e.keyPos, at: d.pos(n), v: x}}, true
}

func (d *decoder) actionMap(spec *stepSpec, e entry, m *ast.MappingNode) (vals, bool) {
	path := spec.name
	es := d.entries(m)
	var inline []entry
	var extra func(entry)
	if spec.inline != "" {
		known := append(fieldNames(spec.fields), fieldNames(targetFields)...)
		extra = func(x entry) {
			if findField(targetFields, x.key) != nil {
				inline = append(inline, x)
				return
			}
			d.unknownKey(x, known, path)
		}
	}
	before := len(d.l.errs)
	v := d.fields(es, spec.fields, path, extra, nil)
	if spec.inline != "" {
		switch {
		case len(inline) > 0 && hasEntry(es, spec.inline):
			d.errorf(inline[0].keyPos, "%s: give the target as %s: or by its keys (%s), not both",
				path, spec.inline, inline[0].key)
		case len(inline) > 0:
			if t, ok := d.targetMap(inline, path, inline[0].keyPos); ok {
				v[spec.inline] = &val{key: inline[0].keyPos, at: inline[0].keyPos, v: t}
			}
		case spec.orPoint && (hasEntry(es, "x") || hasEntry(es, "y")):
		case !hasEntry(es, spec.inline):
			d.errorf(e.keyPos, "%s needs a target: write %s: \"#css\" or %s: {text: ...}", path, path, path)
		}
	}
	for _, g := range spec.groups {
		var set []entry
		for _, x := range es {
			if contains(g.fields, x.key) {
				set = append(set, x)
			}
		}
		names := quoteList(g.fields, "or")
		switch {
		case len(set) == 0 && g.mode != atMostOne:
			d.errorf(e.keyPos, "%s needs one of %s", path, names)
		case len(set) > 1 && g.mode != atLeastOne:
			d.errorf(set[1].keyPos, "%s takes only one of %s; got %s and %s", path, names, set[0].key, set[1].key)
		}
	}
	return v, len(d.l.errs) == before
}

// hint shows how a step is written, for messages.
func (s *stepSpec) hint() string {
	var req []string
	for _, f := range s.fields {
		if f.required && !f.shortOnly {
			req = append(req, f.name+": ...")
		}
	}
	switch {
	case s.short != "" && !s.shortField().shortOnly:
		return fmt.Sprintf(", like %s: %s or %s: {%s: ...}", s.name, strings.ToUpper(s.short), s.name, s.short)
	case len(req) > 0:
		return fmt.Sprintf(", like %s: {%s}", s.name, strings.Join(req, ", "))
	}
	return ""
}

func (s *stepSpec) shortField() *field {
	for i := range s.fields {
		if s.fields[i].name == s.short {
			return &s.fields[i]
		}
	}
	return nil
}

// expandInto applies the common fields of a run or repeat step to the
// steps it expands to: tab, timeout and retries as defaults, optional and
// hidden to all. Its label only documents the script.
func (d *decoder) expandInto(outer item, inner []item) []item {
	o := outer.step
	for i := range inner {
		st := &inner[i].step
		if st.Tab == "" && o.Tab != "" {
			st.Tab, inner[i].tabAt = o.Tab, outer.tabAt
		}
		if st.Timeout == 0 {
			st.Timeout, inner[i].timeoutAt = o.Timeout, outer.timeoutAt
			inner[i].outerTimeout = o.Timeout > 0
		}
		if st.Retries == 0 {
			st.Retries = o.Retries
		}
		st.Optional = st.Optional || o.Optional
		st.Hidden = st.Hidden || o.Hidden
	}
	return inner
}

func (d *decoder) repeat(v vals, at Pos) []item {
	if v["times"] == nil || v["steps"] == nil {
		return nil
	}
	times := v["times"].v.(int)
	body := v["steps"].v.([]item)
	if times*len(body) > maxSteps {
		d.errorf(v["times"].at, "repeat expands to %d steps, more than %d", times*len(body), maxSteps)
		return nil
	}
	out := make([]item, 0, times*len(body))
	for range times {
		for _, it := range body {
			c := it
			c.step.Action = rewrite(it.step.Action, func(s string) string { return s })
			out = append(out, c)
		}
	}
	return out
}

// include loads the steps of another script file in place of a run step.
func (d *decoder) include(v vals, at Pos) []item {
	fv := v["file"]
	if fv == nil {
		return nil
	}
	file := fv.v.(string)
	abs, shown := file, file
	if !filepath.IsAbs(file) {
		abs = filepath.Join(d.dir, file)
		shown = filepath.Join(filepath.Dir(d.file), file)
	}
	l := d.l
	if l.includes++; l.includes > maxIncludes {
		if l.includes == maxIncludes+1 {
			d.errorf(fv.at, "more than %d run steps expanded: the includes multiply too much", maxIncludes)
		}
		return nil
	}
	for i, p := range l.stack {
		if p == abs {
			chain := append(append([]string{}, l.shown[i:]...), shown)
			d.errorf(fv.at, "include cycle: %s", strings.Join(chain, " → "))
			return nil
		}
	}
	src, err := readScript(abs)
	if err != nil {
		d.errorf(fv.at, "cannot read %q: %s", file, reason(err))
		return nil
	}
	root := l.parse(shown, src)
	if root == nil {
		return nil
	}
	nd := &decoder{l: l, file: shown, dir: filepath.Dir(abs), anchors: map[string]ast.Node{}}
	nd.collectAnchors(root)
	if nd.tooLarge(root) {
		return nil
	}
	var call map[string]*envVar
	if ev := v["env"]; ev != nil {
		call = ev.v.(map[string]*envVar)
	}
	nd.sc = &scope{parent: d.sc, call: call}
	l.stack, l.shown = append(l.stack, abs), append(l.shown, shown)
	defer func() { l.stack, l.shown = l.stack[:len(l.stack)-1], l.shown[:len(l.shown)-1] }()

	// The header of an included script is ignored, except env: and
	// secrets: (which only ever hide more).
	byName := nd.header(root)
	nd.secrets(byName["secrets"])
	e, ok := byName["steps"]
	if !ok {
		nd.errorf(nd.pos(root), "%s has no steps: an included file needs a steps: list", shown)
		return nil
	}
	x, ok := nd.value(findField(scriptFields, "steps"), e.value, "steps")
	if !ok {
		return nil
	}
	return x.([]item)
}

// reason is the end of an I/O error, without the path the caller names.
func reason(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// bctx gives a step's build function its decoded fields.
type bctx struct {
	d  *decoder
	v  vals
	at Pos // the step's key
	it *item
}

func (c *bctx) has(n string) bool { return c.v[n] != nil }

func (c *bctx) str(n string) string {
	if x := c.v[n]; x != nil {
		return x.v.(string)
	}
	return ""
}

func (c *bctx) target(n string) *Target {
	if x := c.v[n]; x != nil {
		if t, ok := x.v.(*Target); ok {
			return t
		}
	}
	return nil
}

func (c *bctx) targetVal(n string) Target {
	if t := c.target(n); t != nil {
		return *t
	}
	return Target{}
}

func (c *bctx) place(n string) Place {
	if x := c.v[n]; x != nil {
		return *x.v.(*Place)
	}
	return Place{}
}

func (c *bctx) point(n string) *Point {
	if x := c.v[n]; x != nil {
		if p, ok := x.v.(*Point); ok {
			return p
		}
	}
	return nil
}

func (c *bctx) dur(n string) time.Duration {
	if x := c.v[n]; x != nil {
		return x.v.(time.Duration)
	}
	return 0
}

func (c *bctx) num(n string) float64 {
	if x := c.v[n]; x != nil {
		return x.v.(float64)
	}
	return 0
}

func (c *bctx) integer(n string) int {
	if x := c.v[n]; x != nil {
		return x.v.(int)
	}
	return 0
}

func (c *bctx) boolean(n string) bool {
	if x := c.v[n]; x != nil {
		return x.v.(bool)
	}
	return false
}

func (c *bctx) strs(n string) []string {
	if x := c.v[n]; x != nil {
		return x.v.(strList).s
	}
	return nil
}

// at returns where field n's value was written (the step when absent).
func (c *bctx) pos(n string) Pos {
	if x := c.v[n]; x != nil {
		return x.at
	}
	return c.at
}

func (c *bctx) keyPos(n string) Pos {
	if x := c.v[n]; x != nil {
		return x.key
	}
	return c.at
}

func (c *bctx) errorf(at Pos, format string, args ...any) { c.d.errorf(at, format, args...) }
