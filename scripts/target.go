package scripts

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"
)

// target decodes a CSS string or a target map.
func (d *decoder) target(n ast.Node, path string) (any, bool) {
	if m, ok := n.(*ast.MappingNode); ok {
		return d.targetMap(d.entries(m), path, d.pos(n))
	}
	var s string
	switch v := n.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		s, _ = scalar(v)
	default:
		d.errorf(d.pos(n), "%s must be a CSS selector (a string) or a map like {text: Save}, not %s", path, typeName(n))
		return nil, false
	}
	s = d.expand(s, n)
	if s == "" {
		d.errorf(d.pos(n), "%s must not be empty", path)
		return nil, false
	}
	if why := d.selectorSyntax(s); why != "" {
		d.errorf(d.pos(n), "%s: %s", path, why)
		return nil, false
	}
	return &Target{CSS: s}, true
}

// selectorSyntax says what is wrong with a CSS selector of a script:
// Playwright's own syntax, with the clapper target that says the same,
// or else CSS the browser would refuse; "" when nothing. A selector that
// holds a secret is left to the browser: what is wrong with it could show
// part of the secret, which masking (of whole values) would not hide.
func (d *decoder) selectorSyntax(css string) string {
	if mask(css, d.l.secrets) != css { // in any of the forms masking knows
		return ""
	}
	return selectorSyntax(css)
}

func selectorSyntax(css string) string {
	if durationRE.MatchString(css) {
		return fmt.Sprintf("%q looks like a duration, not a selector: to wait for a time, write pause: %s", css, css)
	}
	if why := playwrightSyntax(css); why != "" {
		return why
	}
	if why := cssSyntax(css); why != "" {
		return fmt.Sprintf("%q is not a selector the browser takes: it %s", css, why)
	}
	return ""
}

// targetMap decodes a target from map entries (a target map, or a step's
// inline target keys); at is where to report a missing selector.
func (d *decoder) targetMap(es []entry, path string, at Pos) (any, bool) {
	v := d.fields(es, targetFields, path, nil, nil)
	var set []string
	for _, e := range es {
		if contains(selectorKeys, e.key) {
			set = append(set, e.key)
		}
	}
	switch {
	case len(set) == 0:
		d.errorf(at, "%s needs one of %s", path, quoteList(selectorKeys, "or"))
		return nil, false
	case len(set) > 1:
		for _, e := range es {
			if e.key == set[1] {
				at = e.keyPos
				break
			}
		}
		d.errorf(at, "ambiguous target in %s: both %s and %s are set; a target selects by exactly one of %s",
			path, set[0], set[1], quoteList(selectorKeys, "or"))
		return nil, false
	}
	t := &Target{}
	get := func(name string) string {
		if x := v[name]; x != nil {
			return x.v.(string)
		}
		return ""
	}
	t.CSS, t.XPath, t.Text = get("css"), get("xpath"), get("text")
	if t.CSS != "" {
		if why := d.selectorSyntax(t.CSS); why != "" {
			d.errorf(v["css"].at, "%s.css: %s", path, why)
			return nil, false
		}
	}
	t.Role, t.Name, t.Label = get("role"), get("name"), get("label")
	t.Placeholder, t.TestID = get("placeholder"), get("testid")
	t.Alt, t.Title = get("alt"), get("title")
	if x := v["nth"]; x != nil {
		nth := x.v.(int)
		t.Nth = &nth
	}
	if x := v["exact"]; x != nil {
		t.Exact = x.v.(bool)
		if t.Exact && t.Text == "" && t.Name == "" && t.Label == "" && t.Placeholder == "" && t.Alt == "" && t.Title == "" {
			d.errorf(x.key, "%s: exact goes with text, name, label, placeholder, alt or title (CSS, XPath and test ids always match exactly)", path)
		}
	}
	if x := v["visible"]; x != nil {
		t.Visible = x.v.(bool)
	}
	if x := v["frame"]; x != nil {
		t.Frames = x.v.([]Target)
	}
	if x := v["name"]; x != nil && t.Role == "" {
		d.errorf(x.key, "%s: name goes with role, like {role: button, name: Save}", path)
		return nil, false
	}
	if v[set[0]] == nil {
		return nil, false // its value was already reported
	}
	return t, true
}

func (d *decoder) point(n ast.Node, path string) (any, bool) {
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.errorf(d.pos(n), "%s must be a point like {x: 100, y: 200}, not %s", path, typeName(n))
		return nil, false
	}
	v := d.fields(d.entries(m), pointFields, path, nil, nil)
	if v["x"] == nil || v["y"] == nil {
		return nil, false
	}
	return &Point{X: v["x"].v.(float64), Y: v["y"].v.(float64)}, true
}

func (d *decoder) region(n ast.Node, path string) (any, bool) {
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.errorf(d.pos(n), "%s must be a region like {x: 0, y: 0, w: 640, h: 360}, not %s", path, typeName(n))
		return nil, false
	}
	v := d.fields(d.entries(m), regionFields, path, nil, nil)
	for _, k := range []string{"x", "y", "w", "h"} {
		if v[k] == nil {
			return nil, false
		}
	}
	r := &Rect{X: v["x"].v.(float64), Y: v["y"].v.(float64), W: v["w"].v.(float64), H: v["h"].v.(float64)}
	if r.W <= 0 || r.H <= 0 {
		d.errorf(d.pos(n), "%s must have a positive width and height", path)
		return nil, false
	}
	return r, true
}

// isPointMap tells a {x, y} map from a target map.
func isPointMap(n ast.Node) bool {
	m, ok := n.(*ast.MappingNode)
	if !ok {
		return false
	}
	for _, mv := range m.Values {
		if k, _ := scalar(mv.Key); k == "x" || k == "y" {
			return true
		}
	}
	return false
}

func (d *decoder) place(n ast.Node, path string) (any, bool) {
	switch n.(type) {
	case *ast.StringNode, *ast.LiteralNode, *ast.MappingNode:
	default:
		d.errorf(d.pos(n), "%s must be a CSS selector, a target map like {text: Save} or a point {x, y}, not %s", path, typeName(n))
		return nil, false
	}
	if isPointMap(n) {
		p, ok := d.point(n, path)
		if !ok {
			return nil, false
		}
		return &Place{Point: p.(*Point)}, true
	}
	t, ok := d.target(n, path)
	if !ok {
		return nil, false
	}
	return &Place{Target: t.(*Target)}, true
}

func (d *decoder) scrollBy(n ast.Node, path string) (any, bool) {
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		x, ok := d.number(&field{}, n, path)
		if !ok {
			return nil, false
		}
		return &Point{Y: x.(float64)}, true
	case *ast.MappingNode:
		return d.point(n, path)
	}
	d.errorf(d.pos(n), "%s must be a number of pixels or {x, y}, not %s", path, typeName(n))
	return nil, false
}

// scrollTo decodes top, bottom, a point (a scroll offset) or a target.
func (d *decoder) scrollTo(n ast.Node, path string) (any, bool) {
	if s, ok := scalar(n); ok && (s == "top" || s == "bottom") {
		return s, true
	}
	if isPointMap(n) {
		return d.point(n, path)
	}
	return d.target(n, path)
}

// frames decodes the iframes a target lives in: one target, or a list of
// them from the outermost frame in. A frame's own frame: comes before it.
func (d *decoder) frames(n ast.Node, path string) (any, bool) {
	var items []ast.Node
	if l, ok := n.(*ast.SequenceNode); ok {
		items = l.Values
		if len(items) == 0 {
			d.errorf(d.pos(n), "%s must name at least one iframe", path)
			return nil, false
		}
	} else {
		items = []ast.Node{n}
	}
	var out []Target
	for i, it := range items {
		p := path
		if len(items) > 1 {
			p = fmt.Sprintf("%s[%d]", path, i)
		}
		x, ok := d.target(d.unwrap(it), p)
		if !ok {
			return nil, false
		}
		t := *x.(*Target)
		out = append(out, t.Frames...)
		t.Frames = nil
		out = append(out, t)
	}
	return out, true
}

// masks decodes a list of targets and regions {x, y, w, h}.
func (d *decoder) masks(n ast.Node, path string) (any, bool) {
	l, ok := n.(*ast.SequenceNode)
	if !ok {
		d.errorf(d.pos(n), "%s must be a list of targets and regions, like [\"#clock\", {x: 0, y: 0, w: 200, h: 40}], not %s", path, typeName(n))
		return nil, false
	}
	var out []Mask
	good := true
	for i, it := range l.Values {
		it = d.unwrap(it)
		p := fmt.Sprintf("%s[%d]", path, i)
		if m, ok := it.(*ast.MappingNode); ok && isRegionMap(m) {
			r, ok := d.region(it, p)
			if ok {
				out = append(out, Mask{Region: r.(*Rect)})
			}
			good = good && ok
			continue
		}
		t, ok := d.target(it, p)
		if ok {
			out = append(out, Mask{Target: t.(*Target)})
		}
		good = good && ok
	}
	return out, good
}

// isRegionMap tells a {x, y, w, h} map from a target map.
func isRegionMap(m *ast.MappingNode) bool {
	for _, mv := range m.Values {
		if k, _ := scalar(mv.Key); k == "w" || k == "h" || k == "x" || k == "y" {
			return true
		}
	}
	return false
}
