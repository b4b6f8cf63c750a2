package scripts

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// playwrightSyntax says what a CSS selector holds of Playwright's own
// selector syntax, which no browser parses, and how a clapper target says
// it: "" when nothing. A script written for Playwright is refused before
// anything launches, not when its step meets the browser's "not a valid
// selector". Only what can never be CSS is looked for, outside quoted
// values and comments. Pure.
func playwrightSyntax(css string) string {
	s := strings.TrimSpace(css)
	if parts := splitChain(s); len(parts) > 1 {
		return chainAdvice(s, parts)
	}
	if t, why := pwPart(s); why != "" {
		if t != "" {
			return fmt.Sprintf("%q %s; a clapper target says it: %s", s, why, t)
		}
		return fmt.Sprintf("%q %s", s, why)
	}
	return ""
}

// pwPart reads one selector (no >>) in Playwright's syntax: the clapper
// target that says the same ("" when there is none) and what the
// selector is ("" when it is CSS).
func pwPart(s string) (target, why string) {
	switch {
	case xpathStart.MatchString(s):
		if strings.HasPrefix(s, "..") {
			return "", "is XPath from a Playwright locator's element; a clapper target starts at the document: {xpath: //...}"
		}
		return target1("xpath", s, false), "is XPath (Playwright guesses so from its start)"
	case strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'"):
		return target1("text", unquote(s), true), "is a text selector in Playwright (quoted: the whole text, in its case)"
	}
	if m := internalEngine.FindStringSubmatch(s); m != nil {
		return internalTarget(strings.ToLower(m[1]), s[len(m[0]):])
	}
	if m := anyEngine.FindStringSubmatch(s); m != nil {
		return engineTarget(strings.ToLower(m[1]), strings.TrimSpace(s[len(m[0]):]))
	}
	out := unquoted(s)
	m := pwPseudo.FindStringSubmatchIndex(out)
	if m == nil {
		return "", ""
	}
	name := strings.ToLower(out[m[2]:m[3]])
	// The argument, from the original (quotes and all), and the
	// selector before the pseudo-class.
	arg, end := "", m[3]
	if end < len(out) && out[end] == '(' {
		c := closing(out, end)
		arg = strings.TrimSpace(s[end+1 : c])
		end = min(c+1, len(s))
	}
	before := strings.TrimSpace(s[:m[0]])
	// The pseudo-class ends the selector, on its last compound (not on a
	// descendant of it: ".a :visible"), in a list of one.
	fresh := m[0] > 0 && strings.ContainsAny(out[m[0]-1:m[0]], " >+~(")
	last := strings.TrimSpace(out[end:]) == "" && !strings.Contains(out[:m[0]], ",") && !(fresh && before != "")
	switch name {
	case "visible":
		if !last {
			return "", "uses :visible, Playwright's, not CSS; a clapper target map keeps the visible matches of its selector: {css: ..., visible: true}"
		}
		return fmt.Sprintf("{css: %s, visible: true}", yamlValue(orStar(before))), "uses :visible, Playwright's, not CSS"
	case "has-text", "text", "text-is":
		text := unquote(arg)
		what := fmt.Sprintf("uses :%s(), Playwright's, not CSS", name)
		if text == "" || !last || before != "" && tagRole(before) == "" {
			return "", what + "; a clapper target selects by text ({text: ...}: the innermost element holding it) or by role and name ({role: button, name: ...}), not by CSS and text together"
		}
		if name == "text-is" {
			return target1("text", text, true), what
		}
		t := target1("text", text, false)
		if role := tagRole(before); role != "" {
			t += fmt.Sprintf(" (the innermost element holding the text), or by role and name, {role: %s, name: %s}", role, yamlValue(text))
		}
		return t, what
	case "text-matches":
		return "", "uses :text-matches(), Playwright's, not CSS; a clapper target matches text as a substring ({text: ...}) or whole ({text: ..., exact: true}), not by a pattern"
	case "nth-match":
		if i := lastComma(arg); i > 0 {
			if k, err := strconv.Atoi(strings.TrimSpace(arg[i+1:])); err == nil && k > 0 && before == "" && last {
				return fmt.Sprintf("{css: %s, nth: %d} (nth counts from 0)", yamlValue(strings.TrimSpace(arg[:i])), k-1), "uses :nth-match(), Playwright's, not CSS"
			}
		}
		return "", "uses :nth-match(), Playwright's, not CSS; a clapper target map says it with css: and nth: (counting from 0)"
	default: // the layout pseudo-classes
		return "", fmt.Sprintf("uses :%s(), Playwright's layout selector, not CSS; clapper has none: name the element itself", name)
	}
}

// engineTarget is the clapper target for "engine=body".
func engineTarget(engine, body string) (target, why string) {
	what := fmt.Sprintf("is Playwright's %s engine", engine)
	switch engine {
	case "text", "text:light":
		if isPattern(body) {
			return "", what + "; a clapper target matches text as a substring ({text: ...}) or whole ({text: ..., exact: true}), not by a pattern"
		}
		quoted := strings.HasPrefix(body, `"`) || strings.HasPrefix(body, "'")
		return target1("text", unquote(body), quoted), what
	case "css", "css:light":
		return yamlValue(body), what + "; write the selector alone"
	case "xpath", "xpath:light":
		return target1("xpath", body, false), what
	case "id", "id:light":
		v := unquote(body)
		if cssIdent.MatchString(v) {
			return yamlValue("#" + v), what + "; in CSS"
		}
		return yamlValue("[id=" + strconv.Quote(v) + "]"), what + "; in CSS"
	case "data-testid", "data-testid:light":
		return target1("testid", unquote(body), false), what
	case "data-test-id", "data-test", "data-test-id:light", "data-test:light":
		attr := strings.TrimSuffix(engine, ":light")
		return yamlValue("[" + attr + "=" + strconv.Quote(unquote(body)) + "]"), what + "; in CSS (a clapper testid reads data-testid)"
	case "role":
		return roleTarget(body, what)
	case "nth":
		if n, err := strconv.Atoi(body); err == nil && n >= 0 {
			return fmt.Sprintf("nth: %d, in a target map beside its selector", n), what
		}
		return "", what + "; clapper's nth counts from 0 from the first (none from the last): name the last in the selector (li:last-child)"
	case "visible":
		if body == "true" {
			return "visible: true, in a target map beside its selector", what
		}
		return "", what + "; clapper keeps visible matches (visible: true) but has no filter for hidden ones: expect: {hidden: ...} checks one is hidden"
	default:
		return "", what + ", which clapper does not have: select with CSS, XPath or a target map ({text: ...}, {role: ..., name: ...}, {label: ...}, {testid: ...})"
	}
}

// roleTarget is the clapper target for Playwright's role engine's body,
// `button[name="Save"]`.
func roleTarget(body, what string) (target, why string) {
	role, attrs, _ := strings.Cut(body, "[")
	role = strings.TrimSpace(role)
	if attrs == "" {
		return fmt.Sprintf("{role: %s}", role), what
	}
	m := roleName.FindStringSubmatch("[" + attrs)
	if m == nil {
		return "", what + fmt.Sprintf("; clapper's role targets take a name only ({role: %s, name: ...}): its other options have no equivalent", role)
	}
	if isPattern(m[1]) {
		return "", what + "; clapper matches a name as a substring or whole (exact: true), not by a pattern"
	}
	t := fmt.Sprintf("{role: %s, name: %s", role, yamlValue(unquote(m[1])))
	if strings.EqualFold(m[2], "s") {
		t += ", exact: true"
	}
	t += "}"
	if strings.Count(unquoted("["+attrs), "]") > 1 {
		return t, what + " (its other options have no equivalent in clapper)"
	}
	return t, what
}

// internalTarget is the clapper target for one of Playwright's internal
// selectors, as its codegen writes locators: internal:label="Email"i.
func internalTarget(engine, body string) (target, why string) {
	what := "is Playwright's internal " + engine + " selector (as its codegen writes locators)"
	v, flag := quotedFlag(body)
	exact := strings.EqualFold(flag, "s")
	if isPattern(v) || strings.Contains(body, "=/") {
		return "", what + "; clapper matches text, names and labels as a substring or whole (exact: true), not by a pattern"
	}
	switch engine {
	case "text", "label":
		return target1(engine, v, exact), what
	case "role":
		return roleTarget(body, what)
	case "testid":
		if m := attrValue.FindStringSubmatch(body); m != nil {
			return target1("testid", m[2], false), what
		}
	case "attr":
		if m := attrValue.FindStringSubmatch(body); m != nil {
			switch a := strings.ToLower(m[1]); a {
			case "placeholder", "alt", "title":
				return target1(a, m[2], strings.EqualFold(m[3], "s")), what
			}
		}
	}
	return "", what + "; a clapper target says the same with {role: ..., name: ...}, {text: ...}, {label: ...}, {placeholder: ...}, {alt: ...}, {title: ...} or {testid: ...}"
}

// chainAdvice is what to write for selectors chained with >>: one target
// map when the chain only adds nth= or visible=true to its first
// selector, one CSS selector when every part is CSS.
func chainAdvice(s string, parts []string) string {
	parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
	if len(parts) < 2 {
		return fmt.Sprintf("%q has >>, Playwright's chaining, with nothing on one side; write the selector alone: %s", s, yamlValue(strings.Join(parts, "")))
	}
	base, tail := parts[0], parts[1:]
	var extra []string
	sawNth := false
	for _, p := range tail {
		m := anyEngine.FindStringSubmatch(p)
		if m == nil {
			extra = nil
			break
		}
		v := strings.TrimSpace(p[len(m[0]):])
		// A target map keeps the visible matches, then takes the nth:
		// a visible= after an nth= filters what the nth picked.
		if n, err := strconv.Atoi(v); strings.EqualFold(m[1], "nth") && err == nil && n >= 0 && !sawNth {
			extra, sawNth = append(extra, "nth: "+v), true
		} else if strings.EqualFold(m[1], "visible") && v == "true" && !sawNth {
			extra = append(extra, "visible: true")
		} else {
			extra = nil
			break
		}
	}
	if len(extra) == len(tail) {
		t, why := pwPart(base)
		switch {
		case why == "":
			return fmt.Sprintf("%q chains selectors with >>, as Playwright does; a clapper target says it: {css: %s, %s}", s, yamlValue(base), strings.Join(extra, ", "))
		case strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") && strings.Count(t, "{") == 1:
			return fmt.Sprintf("%q chains selectors with >>, as Playwright does; a clapper target says it: %s, %s}", s, strings.TrimSuffix(t, "}"), strings.Join(extra, ", "))
		}
	}
	allCSS := true
	for _, p := range parts {
		if _, why := pwPart(p); why != "" {
			allCSS = false
		}
	}
	if allCSS {
		return fmt.Sprintf("%q chains selectors with >>, as Playwright does; a clapper target is one selector: here one CSS selector, %s (frame: names an iframe)", s, yamlValue(strings.Join(parts, " ")))
	}
	return fmt.Sprintf("%q chains selectors with >>, as Playwright does; a clapper target is one selector: one CSS selector, or one target map ({text: ...}, {role: ..., name: ...}, with nth: and visible:), and frame: names an iframe", s)
}

// splitChain splits s at each >> outside quotes and comments. Pure.
func splitChain(s string) []string {
	out := unquoted(s)
	var parts []string
	from := 0
	for i := 0; i+1 < len(out); i++ {
		if out[i] == '>' && out[i+1] == '>' {
			parts = append(parts, strings.TrimSpace(s[from:i]))
			from = i + 2
			i++
		}
	}
	return append(parts, strings.TrimSpace(s[from:]))
}

var (
	// xpathStart is how Playwright tells XPath: //, .. or ( before //.
	xpathStart = regexp.MustCompile(`^(\(\s*)*//|^\.\.`)
	// anyEngine is "engine=" at a selector's start: CSS never has an =
	// before a bracket, a parenthesis or a quote.
	anyEngine = regexp.MustCompile(`^\*?([A-Za-z_][\w:-]*)\s*=`)
	// internalEngine is one of Playwright's internal: engines.
	internalEngine = regexp.MustCompile(`(?i)^internal:([\w-]+)=`)
	// pwPseudo finds Playwright's pseudo-classes, which CSS has not.
	pwPseudo = regexp.MustCompile(`(?i):(visible|has-text|text-is|text-matches|text|nth-match|right-of|left-of|above|below|near)\b(?:[^-]|$)`)
	// roleName is a role engine's [name=...] with its flag.
	roleName = regexp.MustCompile(`\[\s*name\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|/(?:[^/\\]|\\.)*/[a-z]*|[^\]\s]*)\s*([is]?)\s*\]`)
	// attrValue is [attr="value"flag], as internal:attr and testid write it.
	attrValue = regexp.MustCompile(`^\[\s*([\w-]+)\s*=\s*"((?:[^"\\]|\\.)*)"\s*([is]?)\s*\]`)
	// cssIdent is an id that CSS writes after # as it is.
	cssIdent = regexp.MustCompile(`^-?[A-Za-z_][\w-]*$`)
)

// target1 is a one-key clapper target map.
func target1(key, value string, exact bool) string {
	if exact {
		return fmt.Sprintf("{%s: %s, exact: true}", key, yamlValue(value))
	}
	return fmt.Sprintf("{%s: %s}", key, yamlValue(value))
}

// tagRole is the role a target map can name for a selector that is just
// a tag with one ("button", "a"): "" otherwise.
func tagRole(sel string) string {
	switch strings.ToLower(sel) {
	case "button":
		return "button"
	case "a":
		return "link"
	case "h1", "h2", "h3", "h4", "h5", "h6":
		return "heading"
	case "li":
		return "listitem"
	}
	return ""
}

// isPattern says whether a Playwright value is a regular expression
// (/…/flags).
func isPattern(v string) bool { return patternValue.MatchString(strings.TrimSpace(v)) }

var patternValue = regexp.MustCompile(`^/.*/[a-z]*$`)

// quotedFlag reads "value"flag (or a bare value) as Playwright's internal
// selectors write it.
func quotedFlag(body string) (value, flag string) {
	body = strings.TrimSpace(body)
	if len(body) >= 2 && (body[0] == '"' || body[0] == '\'') {
		if end := closingQuote(body, 1, body[0]); end < len(body) {
			return unquote(body[:end+1]), strings.TrimSpace(body[end+1:])
		}
	}
	return body, ""
}

// unquote is a quoted Playwright value without its quotes and escapes;
// anything else as it is.
func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) < 2 || (v[0] != '"' && v[0] != '\'') || v[len(v)-1] != v[0] {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		if v[i] == '\\' && i+1 < len(v)-1 {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// unquoted is s with its quoted values, comments and escaped characters
// blanked (the same length), so that what is inside them is not taken for
// syntax. Pure.
func unquoted(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			b[i] = ' '
			if i+1 < len(b) {
				b[i+1] = ' '
			}
			i++
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			stop := len(b)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				b[i] = ' '
			}
			i--
		case c == '"' || c == '\'':
			end := closingQuote(s, i+1, c)
			for j := i; j <= end && j < len(b); j++ {
				b[j] = ' '
			}
			i = end
		}
	}
	return string(b)
}

// closingQuote is the index of the quote that ends a string begun just
// before start (len(s) when none).
func closingQuote(s string, start int, q byte) int {
	for i := start; i < len(s); i++ {
		if s[i] == '\\' {
			i++
		} else if s[i] == q {
			return i
		}
	}
	return len(s)
}

// closing is the index of the parenthesis that closes the one at open, in
// an unquoted text (len(s) when none).
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// lastComma is the index of the last top-level comma of an argument.
func lastComma(arg string) int {
	out, depth, at := unquoted(arg), 0, -1
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				at = i
			}
		}
	}
	return at
}

func orStar(sel string) string {
	if sel == "" {
		return "*"
	}
	return sel
}

// yamlValue is s as a YAML flow value: as it is when it reads back as
// that string, else double-quoted.
func yamlValue(s string) string {
	if plainYAML.MatchString(s) && !yamlWords[strings.ToLower(s)] {
		return s
	}
	return strconv.Quote(s)
}

var (
	plainYAML = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_ ./-]*[A-Za-z0-9_./]$|^[A-Za-z_]$`)
	yamlWords = map[string]bool{"null": true, "true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "y": true, "n": true}
)
