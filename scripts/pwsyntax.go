package scripts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// playwrightSyntax says what a CSS selector holds of Playwright's own
// selector syntax, which no browser parses, and how a clapper target says
// it: "" when nothing. A script written for Playwright is refused before
// anything launches, not when its step meets the browser's "not a valid
// selector". Only what can never be CSS is looked for, outside quoted
// values. Pure.
func playwrightSyntax(css string) string {
	s := strings.TrimSpace(css)
	switch {
	case strings.HasPrefix(s, "//") || strings.HasPrefix(s, ".."):
		return fmt.Sprintf("%s is XPath (Playwright guesses so from its start); a clapper target says it: {xpath: %s}", shown(s), quoteIfNeeded(s))
	case strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'"):
		return fmt.Sprintf("%s is a text selector in Playwright; a clapper target says it: {text: %s}", shown(s), quoteIfNeeded(strings.Trim(s, `"'`)))
	}
	if m := enginePrefix.FindStringSubmatch(s); m != nil {
		body := strings.TrimSpace(s[len(m[0]):])
		engine := strings.ToLower(m[1] + m[2])
		switch engine {
		case "text":
			return fmt.Sprintf("%s is Playwright's text engine; a clapper target says it: {text: %s}", shown(s), quoteIfNeeded(strings.Trim(body, `"'`)))
		case "css":
			return fmt.Sprintf("%s names Playwright's css engine; write the selector alone: %s", shown(s), quoteIfNeeded(body))
		case "xpath":
			return fmt.Sprintf("%s is Playwright's xpath engine; a clapper target says it: {xpath: %s}", shown(s), quoteIfNeeded(body))
		case "id":
			return fmt.Sprintf("%s is Playwright's id engine; in CSS: \"#%s\"", shown(s), body)
		case "data-testid", "data-test-id", "data-test":
			return fmt.Sprintf("%s is Playwright's test id engine; a clapper target says it: {testid: %s} (it reads data-testid)", shown(s), quoteIfNeeded(strings.Trim(body, `"'`)))
		case "role":
			role, name := roleOf(body)
			if name == "" {
				name = "..."
			} else {
				name = quoteIfNeeded(name)
			}
			return fmt.Sprintf("%s is Playwright's role engine; a clapper target says it: {role: %s, name: %s}", shown(s), role, name)
		case "internal":
			return fmt.Sprintf("%s is one of Playwright's internal selectors (as its codegen writes locators); a clapper target says the same with {role: button, name: Save}, {text: ...}, {label: ...}, {placeholder: ...}, {alt: ...}, {title: ...} or {testid: ...}", shown(s))
		case "nth", "visible":
			return fmt.Sprintf("%s is Playwright's %s engine; a clapper target map says it: nth: 0 (from 0) or visible: true, beside css", shown(s), engine)
		}
	}
	out := unquoted(s)
	if strings.Contains(out, ">>") {
		one := strings.Join(strings.Fields(strings.ReplaceAll(s, ">>", " ")), " ")
		return fmt.Sprintf("%s chains selectors with >>, as Playwright does; a clapper target is one selector: one CSS selector (%s, when each part is CSS), a target map, and frame: for an iframe", shown(s), shown(one))
	}
	if m := pwPseudo.FindStringSubmatchIndex(out); m != nil {
		name := strings.ToLower(out[m[2]:m[3]])
		// The argument, from the original (quotes and all), and the
		// selector without the pseudo-class.
		arg, end := "...", m[3]
		if end < len(out) && out[end] == '(' {
			if c := strings.IndexByte(out[end:], ')'); c > 0 {
				arg = strings.Trim(strings.TrimSpace(s[end+1:end+c]), `"'`)
				end += c + 1
			}
		}
		rest := strings.TrimSpace(s[:m[0]] + s[end:])
		if rest == "" {
			rest = "*"
		}
		switch name {
		case "visible":
			return fmt.Sprintf("%s uses :visible, Playwright's, not CSS; a clapper target map says it: {css: %s, visible: true}", shown(s), quoteIfNeeded(rest))
		case "has-text", "text":
			return fmt.Sprintf("%s uses :%s(), Playwright's, not CSS; a clapper target selects by text, {text: %s} (the innermost element holding it), or by role and name, {role: button, name: %s}", shown(s), name, quoteIfNeeded(arg), quoteIfNeeded(arg))
		case "text-is":
			return fmt.Sprintf("%s uses :text-is(), Playwright's, not CSS; a clapper target says it: {text: %s, exact: true}", shown(s), quoteIfNeeded(arg))
		case "text-matches":
			return fmt.Sprintf("%s uses :text-matches(), Playwright's, not CSS; a clapper target matches text as a substring ({text: ...}) or whole ({text: ..., exact: true}), not by a pattern", shown(s))
		case "nth-match":
			css, n := "...", "0"
			if i := strings.LastIndexByte(arg, ','); i > 0 {
				if k, err := strconv.Atoi(strings.TrimSpace(arg[i+1:])); err == nil && k > 0 {
					css, n = quoteIfNeeded(strings.TrimSpace(arg[:i])), strconv.Itoa(k-1)
				}
			}
			return fmt.Sprintf("%s uses :nth-match(), Playwright's, not CSS; a clapper target says it: {css: %s, nth: %s} (nth counts from 0)", shown(s), css, n)
		default: // the layout pseudo-classes
			return fmt.Sprintf("%s uses :%s(), Playwright's layout selector, not CSS; clapper has none: name the element itself", shown(s), name)
		}
	}
	return ""
}

// enginePrefix is Playwright's "engine=" at a selector's start.
var enginePrefix = regexp.MustCompile(`(?i)^(text|css|xpath|id|data-testid|data-test-id|data-test|role|nth|visible)\s*=|^(internal):`)

// pwPseudo finds Playwright's pseudo-classes, which CSS has not.
var pwPseudo = regexp.MustCompile(`(?i):(visible|has-text|text-is|text-matches|text|nth-match|right-of|left-of|above|below|near)\b(?:[^-]|$)`)

// unquoted is s with its quoted values (and escaped characters) blanked,
// so that what is inside them is not taken for syntax. Pure.
func unquoted(s string) string {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString("  ")
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte(' ')
		case c == '"' || c == '\'':
			quote = c
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// roleOf is the role and the name in the body of Playwright's role
// engine (`button[name="Save"]`: button, Save; no name: ""). Pure.
func roleOf(body string) (role, name string) {
	role = body
	if i := strings.IndexByte(body, '['); i >= 0 {
		role = body[:i]
	}
	if m := roleName.FindStringSubmatch(body); m != nil {
		name = m[1] + m[2] + m[3]
	}
	return strings.TrimSpace(role), name
}

// roleName is a role engine's [name=...] attribute, quoted or not.
var roleName = regexp.MustCompile(`\[\s*name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]*))\s*[is]?\s*\]`)

// shown is a selector as a message quotes it: in single quotes, as a
// YAML script would hold one with double quotes inside.
func shown(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return fmt.Sprintf("%q", s)
}

// quoteIfNeeded quotes s for YAML when it would not read as a plain
// string.
func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || strings.TrimSpace(s) != s {
		return shown(s)
	}
	return s
}
