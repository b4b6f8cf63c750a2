package scripts

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// decoder decodes the nodes of one file. Every problem becomes an *Error
// at the node's position, and decoding goes on, so that one pass reports
// everything.
type decoder struct {
	l       *loader
	file    string // as the user gave it (relative when they did)
	dir     string // absolute folder of the file
	sc      *scope
	inSteps bool // ${serve.url} may stay in place
	anchors map[string]ast.Node
	depth   int // nesting of the value being decoded
}

// val is a decoded value with where it came from.
type val struct {
	key Pos // the key; for a short form, the step's key
	at  Pos // the value
	v   any
}

// vals are the decoded fields of one map, by name.
type vals map[string]*val

// entry is one key: value of a mapping.
type entry struct {
	key    string
	keyPos Pos
	value  ast.Node
}

func (d *decoder) pos(n ast.Node) Pos {
	if n == nil {
		return Pos{File: d.file}
	}
	switch v := n.(type) {
	case *ast.DocumentNode:
		return Pos{File: d.file}
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 && v.Values[0] != nil {
			return d.pos(v.Values[0].Key)
		}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{File: d.file}
	}
	return Pos{File: d.file, Line: tk.Position.Line, Col: tk.Position.Column}
}

func (d *decoder) errorf(at Pos, format string, args ...any) {
	d.l.errs = append(d.l.errs, &Error{Pos: at, Msg: fmt.Sprintf(format, args...)})
}

// unwrap resolves anchors, aliases and tags to the node they stand for.
func (d *decoder) unwrap(n ast.Node) ast.Node {
	for range 64 {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AliasNode:
			if v.Value == nil {
				return nil
			}
			target, ok := d.anchors[v.Value.GetToken().Value]
			if !ok {
				return v
			}
			n = target
		default:
			return n
		}
	}
	return n
}

// collectAnchors records every anchor of the file for aliases.
func (d *decoder) collectAnchors(n ast.Node) {
	ast.Walk(anchorVisitor(d.anchors), n)
}

type anchorVisitor map[string]ast.Node

func (a anchorVisitor) Visit(n ast.Node) ast.Visitor {
	if an, ok := n.(*ast.AnchorNode); ok && an.Name != nil {
		a[an.Name.GetToken().Value] = an.Value
	}
	return a
}

// typeName names a node's YAML type for messages.
func typeName(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode:
		return "a map"
	case *ast.SequenceNode:
		return "a list"
	case *ast.IntegerNode, *ast.FloatNode:
		return "a number"
	case *ast.InfinityNode:
		return "infinity"
	case *ast.NanNode:
		return "NaN (.nan)"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.NullNode, nil:
		return "empty"
	case *ast.AliasNode:
		return "an unknown alias"
	}
	return "a string"
}

// scalar returns a scalar node's text as written (strings unquoted).
func scalar(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, true
	}
	return "", false
}

// entries lists a map's keys; a key that is not a plain scalar is refused.
func (d *decoder) entries(m *ast.MappingNode) []entry {
	out := make([]entry, 0, len(m.Values))
	for _, mv := range m.Values {
		if mv == nil {
			continue
		}
		if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
			d.errorf(d.pos(mv.Key), "merge keys (<<) are not supported; write the keys out")
			continue
		}
		key, ok := scalar(d.unwrap(mv.Key))
		if !ok {
			d.errorf(d.pos(mv.Key), "a key must be a name, not %s", typeName(d.unwrap(mv.Key)))
			continue
		}
		out = append(out, entry{key: key, keyPos: d.pos(mv.Key), value: mv.Value})
	}
	return out
}

// asMap returns n as a mapping, or reports that it must be one.
func (d *decoder) asMap(n ast.Node, what string) (*ast.MappingNode, bool) {
	n = d.unwrap(n)
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.errorf(d.pos(n), "%s must be a map, not %s", what, typeName(n))
	}
	return m, ok
}

// join builds a dotted path for messages.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fields decodes the entries of a map against fs. Unknown keys go to
// extra when it is set, else they are refused with a suggestion; the
// entries of pass fields go to pass too once they are found valid.
func (d *decoder) fields(es []entry, fs []field, path string, extra, pass func(entry)) vals {
	out := vals{}
	for _, e := range es {
		f := findField(fs, e.key)
		if f == nil {
			if extra != nil {
				extra(e)
				continue
			}
			d.unknownKey(e, fieldNames(fs), path)
			continue
		}
		if f.refuse != "" {
			d.errorf(e.keyPos, "%s: %s", join(path, f.name), f.refuse)
			continue
		}
		if v, ok := d.value(f, e.value, join(path, f.name)); ok {
			out[f.name] = &val{key: e.keyPos, at: d.pos(e.value), v: v}
			if f.pass && pass != nil {
				pass(e)
			}
		}
	}
	for _, f := range fs {
		if f.required && !f.shortOnly && out[f.name] == nil && !hasEntry(es, f.name) {
			d.errorf(d.mapPos(es), "%s needs %s", orTop(path), f.name)
		}
	}
	return out
}

func orTop(path string) string {
	if path == "" {
		return "the script"
	}
	return path
}

func hasEntry(es []entry, name string) bool {
	for _, e := range es {
		if e.key == name {
			return true
		}
	}
	return false
}

// mapPos is where to report a problem with a whole map: its first key.
func (d *decoder) mapPos(es []entry) Pos {
	if len(es) > 0 {
		return es[0].keyPos
	}
	return Pos{File: d.file}
}

func (d *decoder) unknownKey(e entry, known []string, path string) {
	where := ""
	if path != "" {
		where = " in " + path
	}
	d.errorf(e.keyPos, "unknown key %q%s%s (known: %s)", e.key, where,
		didYouMean(e.key, known), strings.Join(known, ", "))
}

// maxDepth bounds nesting, which aliases could otherwise make endless.
const maxDepth = 50

// enter counts one level of nesting; it reports false (and an error) when
// the value is nested too deeply to be a script.
func (d *decoder) enter(n ast.Node) bool {
	d.depth++
	if d.depth > maxDepth {
		d.errorf(d.pos(n), "nested more than %d levels deep (a recursive alias?)", maxDepth)
		return false
	}
	return true
}

// value decodes one field's value.
func (d *decoder) value(f *field, n ast.Node, path string) (any, bool) {
	defer func() { d.depth-- }()
	if !d.enter(n) {
		return nil, false
	}
	n = d.unwrap(n)
	if b, ok := n.(*ast.BoolNode); ok && f.orBool {
		return b.Value, true
	}
	switch f.kind {
	case kString:
		return d.str(f, n, path)
	case kInt:
		return d.integer(f, n, path)
	case kNumber:
		return d.number(f, n, path)
	case kBool:
		b, ok := n.(*ast.BoolNode)
		if !ok {
			d.errorf(d.pos(n), "%s must be true or false, not %s", path, typeName(n))
			return nil, false
		}
		return b.Value, true
	case kDuration:
		return d.duration(f, n, path)
	case kTarget:
		return d.target(n, path)
	case kPlace:
		return d.place(n, path)
	case kFrames:
		return d.frames(n, path)
	case kMasks:
		return d.masks(n, path)
	case kPoint:
		return d.point(n, path)
	case kRegion:
		return d.region(n, path)
	case kStrings:
		return d.strs(f, n, path)
	case kEnv:
		return d.env(f, n, path)
	case kSteps:
		return d.stepList(n, path)
	case kScrollBy:
		return d.scrollBy(n, path)
	case kScrollTo:
		return d.scrollTo(n, path)
	case kObject:
		if _, isMap := n.(*ast.MappingNode); !isMap && f.orBool {
			d.errorf(d.pos(n), "%s must be true, false or a map, not %s", path, typeName(n))
			return nil, false
		}
		m, ok := d.asMap(n, path)
		if !ok {
			return nil, false
		}
		// Kept as written: the unknown keys of an extra map, and the
		// pass fields.
		kept, keptPos := map[string]any{}, map[string]Pos{}
		keep := func(e entry) {
			kept[e.key] = d.plain(e.value, join(path, e.key))
			keptPos[e.key] = e.keyPos
		}
		var extra func(entry)
		if f.extra {
			extra = keep
		}
		v := d.fields(d.entries(m), f.sub, path, extra, keep)
		v["*"] = &val{v: kept}
		v["*pos"] = &val{v: keptPos}
		return v, true
	case kAny:
		return d.plain(n, path), true
	}
	return nil, false
}

// text reads a scalar as text and resolves its variables.
func (d *decoder) text(n ast.Node, path string) (string, bool) {
	s, ok := scalar(n)
	if !ok {
		d.errorf(d.pos(n), "%s must be a string, not %s", path, typeName(n))
		return "", false
	}
	return d.expand(s, n), true
}

func (d *decoder) str(f *field, n ast.Node, path string) (any, bool) {
	s, ok := d.text(n, path)
	if !ok {
		return nil, false
	}
	return s, d.checkStr(f, s, d.pos(n), path)
}

// checkStr applies a field's enum, pattern and emptiness rules.
func (d *decoder) checkStr(f *field, s string, at Pos, path string) bool {
	switch {
	case s == "" && !f.allowEmpty:
		d.errorf(at, "%s must not be empty", path)
		return false
	case f.enum != nil && !contains(f.enum, s):
		d.errorf(at, "%s must be %s, not %q%s", path, quoteList(f.enum, "or"), s, didYouMean(s, f.enum))
		return false
	case f.pattern != nil && !f.pattern.MatchString(s):
		d.errorf(at, "%s must be %s, not %q", path, f.patternHint, s)
		return false
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tooLargeWhole reports whether st is a whole number written plainly (not
// quoted) that is too large for 64 bits: the parser gives it as a string.
func tooLargeWhole(st *ast.StringNode) bool {
	if tk := st.GetToken(); tk == nil || tk.Type != token.StringType {
		return false
	}
	_, err := strconv.ParseInt(st.Value, 10, 64)
	return errors.Is(err, strconv.ErrRange)
}

func (d *decoder) integer(f *field, n ast.Node, path string) (any, bool) {
	v, ok := n.(*ast.IntegerNode)
	if !ok {
		if fl, isFloat := n.(*ast.FloatNode); isFloat {
			d.errorf(d.pos(n), "%s must be a whole number, not %s", path, fl.GetToken().Value)
		} else if st, isStr := n.(*ast.StringNode); isStr && tooLargeWhole(st) {
			d.errorf(d.pos(n), "%s: %s is too large a number", path, st.Value)
		} else {
			d.errorf(d.pos(n), "%s must be a whole number, not %s", path, typeName(n))
		}
		return nil, false
	}
	var i int64
	switch x := v.Value.(type) {
	case int64:
		i = x
	case uint64:
		if x > math.MaxInt32 {
			i = math.MaxInt32
		} else {
			i = int64(x)
		}
	}
	if i > math.MaxInt32 {
		i = math.MaxInt32
	}
	if i < math.MinInt32 {
		i = math.MinInt32
	}
	at := d.pos(n)
	if f.ints != nil {
		for _, a := range f.ints {
			if int64(a) == i {
				return int(i), true
			}
		}
		d.errorf(at, "%s must be one of %s, got %d", path, joinInts(f.ints), i)
		return nil, false
	}
	if !d.inRange(f, float64(i), at, path) {
		return nil, false
	}
	return int(i), true
}

func joinInts(is []int) string {
	s := make([]string, len(is))
	for i, x := range is {
		s[i] = strconv.Itoa(x)
	}
	return quoteList(s, "or")
}

func (d *decoder) number(f *field, n ast.Node, path string) (any, bool) {
	var x float64
	switch v := n.(type) {
	case *ast.IntegerNode:
		switch i := v.Value.(type) {
		case int64:
			x = float64(i)
		case uint64:
			x = float64(i)
		}
	case *ast.FloatNode:
		x = v.Value
	default:
		d.errorf(d.pos(n), "%s must be a number, not %s", path, typeName(n))
		return nil, false
	}
	if !d.inRange(f, x, d.pos(n), path) {
		return nil, false
	}
	return x, true
}

func (d *decoder) inRange(f *field, x float64, at Pos, path string) bool {
	g := strconv.FormatFloat(x, 'g', -1, 64)
	switch {
	case f.hasMin && f.hasMax && (x < f.min || x > f.max):
		d.errorf(at, "%s must be between %s and %s, got %s", path, fmtNum(f.min), fmtNum(f.max), g)
	case f.hasMin && x < f.min:
		d.errorf(at, "%s must be at least %s, got %s", path, fmtNum(f.min), g)
	case f.hasMax && x > f.max:
		d.errorf(at, "%s must be at most %s, got %s", path, fmtNum(f.max), g)
	default:
		return true
	}
	return false
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func (d *decoder) duration(f *field, n ast.Node, path string) (any, bool) {
	at := d.pos(n)
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		s, _ := scalar(n)
		d.errorf(at, "%s needs a unit: write %ss or %sms", path, s, s)
		return nil, false
	}
	s, ok := d.text(n, path)
	if !ok {
		return nil, false
	}
	dur, msg := parseDuration(s)
	if msg != "" {
		d.errorf(at, "%s: %s", path, msg)
		return nil, false
	}
	switch {
	case f.dMinOpen && dur <= f.dMin:
		d.errorf(at, "%s must be longer than %s, got %s", path, f.dMin, s)
	case dur < f.dMin:
		d.errorf(at, "%s must be at least %s, got %s", path, f.dMin, s)
	case f.dMax > 0 && dur > f.dMax:
		d.errorf(at, "%s must be at most %s, got %s", path, f.dMax, s)
	default:
		return dur, true
	}
	return nil, false
}

// parseDuration accepts what the schema's pattern accepts: one or more
// number+unit pairs, no sign, no spaces.
func parseDuration(s string) (time.Duration, string) {
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Sprintf("duration must not be negative, got %q", s)
	}
	if !durationRE.MatchString(s) {
		return 0, fmt.Sprintf("bad duration %q: write a number and a unit, like 1.5s, 300ms or 2m", s)
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Sprintf("bad duration %q: too long", s)
	}
	return dur, ""
}

// strList is a decoded kStrings value with where each item was written.
type strList struct {
	s  []string
	at []Pos
}

func (d *decoder) strs(f *field, n ast.Node, path string) (any, bool) {
	var items []ast.Node
	if seq, ok := n.(*ast.SequenceNode); ok {
		items = seq.Values
	} else {
		items = []ast.Node{n}
	}
	var out strList
	good := true
	for _, it := range items {
		it = d.unwrap(it)
		s, ok := d.text(it, path)
		if !ok || !d.checkStr(f, s, d.pos(it), path) {
			good = false
			continue
		}
		out.s = append(out.s, s)
		out.at = append(out.at, d.pos(it))
	}
	return out, good
}

// plain converts any YAML to plain Go values, resolving ${VARS} in strings.
func (d *decoder) plain(n ast.Node, path string) any {
	defer func() { d.depth-- }()
	if !d.enter(n) {
		return nil
	}
	n = d.unwrap(n)
	switch v := n.(type) {
	case *ast.MappingNode:
		m := map[string]any{}
		for _, e := range d.entries(v) {
			m[e.key] = d.plain(e.value, join(path, e.key))
		}
		return m
	case *ast.SequenceNode:
		l := make([]any, 0, len(v.Values))
		for _, x := range v.Values {
			l = append(l, d.plain(x, path))
		}
		return l
	case *ast.IntegerNode:
		switch i := v.Value.(type) {
		case int64:
			return int(i)
		case uint64:
			if i <= math.MaxInt64 {
				return int(i)
			}
			return float64(i)
		}
	case *ast.FloatNode:
		return v.Value
	case *ast.InfinityNode:
		return v.Value
	case *ast.NanNode:
		return math.NaN()
	case *ast.BoolNode:
		return v.Value
	case *ast.NullNode, nil:
		return nil
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := scalar(v)
		return d.expand(s, v)
	}
	d.errorf(d.pos(n), "%s: unsupported YAML value", path)
	return nil
}
