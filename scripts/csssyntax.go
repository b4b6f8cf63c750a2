package scripts

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cssSyntax says why a CSS selector is not one Chromium's
// querySelectorAll takes ("" when nothing is found), so that a typo is
// refused with the script's line and column before anything launches,
// not when its step meets the page. It reads the selector as CSS does
// (tokens, then the selector grammar), and refuses only what Chromium
// refuses too: where it is not sure (an unknown pseudo-class that is not
// one letter away from a known one, the arguments of the rarer functional
// pseudo-classes) it says nothing and leaves the verdict to the browser.
// A test holds every verdict against the installed Chromium's. Pure.
func cssSyntax(sel string) string {
	if strings.Contains(sel, "${") {
		return "" // known only when the run starts
	}
	return readSelector(sel, false)
}

// RefusedSelector says what is most likely wrong with a selector the
// browser refused at run time ("" when nothing is found): what cssSyntax
// finds, and a pseudo-class or pseudo-element no name list here holds
// (Tailwind's md:flex after a class, with the attribute selector that
// says it). Pure.
func RefusedSelector(sel string) string { return readSelector(sel, true) }

// readSelector reads sel; strict: a pseudo-class or pseudo-element whose
// name is not listed is an error.
func readSelector(sel string, strict bool) string {
	p := &cssParser{toks: cssTokens(sel), src: sel, dot: -1, classEnd: -1, strict: strict}
	if p.skipWS(); p.atEnd() {
		return "is empty"
	}
	p.list(false, "")
	if t := p.peek(); p.why == "" && !p.atEnd() {
		p.fail("has an unexpected %s%s", t.describe(), hintFor(t))
	}
	if p.why == "" {
		return p.unknown
	}
	return p.why
}

// A cssToken is one token of CSS Syntax: its kind, its text as written
// (for messages), its value (an ident's or a function's name with escapes
// resolved, a delimiter's character, a hash's name) and where it starts
// (a 1-based character column).
type cssToken struct {
	kind  cssKind
	text  string
	value string
	col   int
	// idHash: a hash token whose name could start an identifier (an id
	// selector); afterComment: a comment came just before it.
	idHash, afterComment bool
}

type cssKind int

const (
	tokEOF cssKind = iota
	tokWS
	tokIdent
	tokFunction // name(
	tokAtKeyword
	tokHash
	tokString
	tokBadString // a quoted value a newline cut
	tokNumber
	tokPercentage
	tokDimension
	tokDelim
	tokColon
	tokComma
	tokOpen  // ( [ {
	tokClose // ) ] }
	tokSemicolon
)

func (t cssToken) describe() string {
	switch t.kind {
	case tokEOF:
		return "the end of the selector"
	case tokString:
		return fmt.Sprintf("quoted text %s at character %d", t.text, t.col)
	}
	return fmt.Sprintf("%q at character %d", t.text, t.col)
}

func isNameStart(r rune) bool {
	return r == '_' || r >= 0x80 || (r|0x20) >= 'a' && (r|0x20) <= 'z'
}
func isNameChar(r rune) bool { return isNameStart(r) || r == '-' || r >= '0' && r <= '9' }
func isDigit(r rune) bool    { return r >= '0' && r <= '9' }
func isHex(r rune) bool      { return isDigit(r) || (r|0x20) >= 'a' && (r|0x20) <= 'f' }
func isCSSSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

// cssInput is s as CSS reads it before its tokens: CR LF, CR and FF are a
// newline, NUL is U+FFFD.
var cssInput = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\f", "\n", "\x00", "\uFFFD")

// cssTokens splits s into CSS tokens, comments dropped.
func cssTokens(s string) []cssToken {
	rs := []rune(cssInput.Replace(s))
	at := func(i int) rune {
		if i < len(rs) {
			return rs[i]
		}
		return -1
	}
	escape := func(i int) bool { return at(i) == '\\' && at(i+1) != '\n' }
	startsIdent := func(i int) bool {
		switch c := at(i); {
		case c == '-':
			return isNameStart(at(i+1)) || at(i+1) == '-' || escape(i+1)
		case isNameStart(c):
			return true
		default:
			return escape(i)
		}
	}
	startsNumber := func(i int) bool {
		c := at(i)
		if c == '+' || c == '-' {
			i++
			c = at(i)
		}
		return isDigit(c) || c == '.' && isDigit(at(i+1))
	}
	// name reads a name from i: its value with escapes resolved and where
	// it ends.
	name := func(i int) (string, int) {
		var b strings.Builder
		for i < len(rs) {
			switch {
			case escape(i):
				i++
				switch {
				case i == len(rs): // a backslash at the end stands for U+FFFD
					b.WriteRune(utf8.RuneError)
				case isHex(rs[i]):
					j := i
					for j < len(rs) && j-i < 6 && isHex(rs[j]) {
						j++
					}
					v, _ := strconv.ParseUint(string(rs[i:j]), 16, 32)
					if v == 0 || v > utf8.MaxRune || v >= 0xD800 && v <= 0xDFFF {
						v = utf8.RuneError
					}
					b.WriteRune(rune(v))
					i = j
					if i < len(rs) && isCSSSpace(rs[i]) {
						i++
					}
				default:
					b.WriteRune(rs[i])
					i++
				}
			case isNameChar(rs[i]):
				b.WriteRune(rs[i])
				i++
			default:
				return b.String(), i
			}
		}
		return b.String(), i
	}
	var out []cssToken
	comment := false
	for i := 0; i < len(rs); {
		start := i
		t := cssToken{col: i + 1, afterComment: comment}
		comment = false
		c := rs[i]
		switch {
		case c == '/' && at(i+1) == '*':
			i += 2
			for i < len(rs) && !(rs[i] == '*' && at(i+1) == '/') {
				i++
			}
			i = min(i+2, len(rs))
			comment = true
			continue
		case isCSSSpace(c):
			for i < len(rs) && isCSSSpace(rs[i]) {
				i++
			}
			t.kind = tokWS
		case c == '"' || c == '\'':
			t.kind = tokString
			for i++; i < len(rs) && rs[i] != c; i++ {
				if rs[i] == '\n' {
					t.kind = tokBadString
					break
				}
				if rs[i] == '\\' {
					i++
				}
			}
			if t.kind == tokString {
				i = min(i+1, len(rs))
			}
		case c == '#' && (isNameChar(at(i+1)) || escape(i+1)):
			t.kind, t.idHash = tokHash, startsIdent(i+1)
			t.value, i = name(i + 1)
		case startsNumber(i):
			if c == '+' || c == '-' {
				i++
			}
			for i < len(rs) && isDigit(rs[i]) {
				i++
			}
			if at(i) == '.' && isDigit(at(i+1)) {
				for i++; i < len(rs) && isDigit(rs[i]); i++ {
				}
			}
			if (at(i) == 'e' || at(i) == 'E') && (isDigit(at(i+1)) || (at(i+1) == '+' || at(i+1) == '-') && isDigit(at(i+2))) {
				for i += 2; i < len(rs) && isDigit(rs[i]); i++ {
				}
			}
			switch {
			case startsIdent(i):
				t.kind = tokDimension
				t.value, i = name(i)
			case at(i) == '%':
				t.kind = tokPercentage
				i++
			default:
				t.kind = tokNumber
			}
		case startsIdent(i):
			t.value, i = name(i)
			t.kind = tokIdent
			if at(i) == '(' {
				t.kind = tokFunction
				i++
			}
		case c == '@' && startsIdent(i+1):
			t.kind = tokAtKeyword
			t.value, i = name(i + 1)
		case c == ':':
			t.kind, i = tokColon, i+1
		case c == ',':
			t.kind, i = tokComma, i+1
		case c == ';':
			t.kind, i = tokSemicolon, i+1
		case c == '(' || c == '[' || c == '{':
			t.kind, t.value, i = tokOpen, string(c), i+1
		case c == ')' || c == ']' || c == '}':
			t.kind, t.value, i = tokClose, string(c), i+1
		default:
			t.kind, t.value, i = tokDelim, string(c), i+1
		}
		t.text = string(rs[start:i])
		out = append(out, t)
	}
	return out
}

// cssParser reads tokens by the selector grammar; why is the first error.
type cssParser struct {
	toks []cssToken
	i    int
	src  string
	why  string
	// dot and classEnd: where the last class selector's "." is and the
	// token after its name (for classHint).
	dot, classEnd int
	// strict: a pseudo name no list holds is an error (RefusedSelector),
	// said only when nothing else is found (unknown).
	strict  bool
	unknown string
}

func (p *cssParser) peek() cssToken {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return cssToken{kind: tokEOF, col: utf8.RuneCountInString(p.src) + 1}
}
func (p *cssParser) next() cssToken { t := p.peek(); p.i = min(p.i+1, len(p.toks)); return t }
func (p *cssParser) atEnd() bool    { return p.i >= len(p.toks) }
func (p *cssParser) skipWS() bool {
	ws := false
	for p.peek().kind == tokWS {
		p.i++
		ws = true
	}
	return ws
}
func (p *cssParser) isDelim(d string) bool {
	t := p.peek()
	return t.kind == tokDelim && t.value == d
}

func (p *cssParser) fail(format string, args ...any) {
	if p.why == "" {
		p.why = fmt.Sprintf(format, args...)
	}
}

// stop reports whether the parser is at the end of the selector or at
// what closes the argument it reads.
func (p *cssParser) stop() bool {
	t := p.peek()
	return t.kind == tokEOF || t.kind == tokClose && t.value == ")"
}

// list reads a selector list up to the end or a ")"; in a relative one
// each item may start with a combinator (:has()). empty is what to say
// when an argument holds nothing ("" at the top level).
func (p *cssParser) list(relative bool, empty string) {
	var comma *cssToken
	for p.why == "" {
		p.skipWS()
		if t := p.peek(); p.stop() || t.kind == tokComma {
			switch {
			case t.kind == tokComma:
				p.fail("has an empty selector before the comma at character %d", t.col)
			case comma != nil:
				p.fail("ends with a comma (at character %d): a selector must follow it", comma.col)
			case empty == "": // the top level, at a ")"
				p.fail("has an unexpected %s%s", t.describe(), hintFor(t))
			default:
				p.fail("%s", empty)
			}
			return
		}
		p.complex(relative)
		if p.why != "" || p.stop() {
			return
		}
		t := p.next()
		if t.kind != tokComma {
			p.fail("has an unexpected %s", t.describe())
			return
		}
		comma = &t
	}
}

// combinator reads > + ~ after optional white space; "" when none.
func (p *cssParser) combinator() (string, cssToken) {
	t := p.peek()
	if t.kind == tokDelim && (t.value == ">" || t.value == "+" || t.value == "~") {
		p.next()
		return t.value, t
	}
	return "", t
}

// complex reads compounds joined by combinators.
func (p *cssParser) complex(relative bool) {
	c, t := p.combinator()
	if c != "" && !relative {
		p.fail("starts with the combinator %q at character %d: nothing comes before it (to look below an element, write it first, as in \"ul %s li\")", c, t.col, c)
		return
	}
	p.skipWS()
	if n := p.peek(); c != "" && (p.stop() || n.kind == tokComma) {
		p.fail("ends with the combinator %q at character %d: nothing follows it", c, t.col)
		return
	}
	for p.why == "" {
		if !p.compound() {
			return
		}
		ws := p.skipWS()
		if p.stop() || p.peek().kind == tokComma {
			return
		}
		c, t := p.combinator()
		if c == "" && !ws {
			hint := hintFor(t)
			if p.i == p.classEnd {
				hint += p.classHint()
			}
			p.fail("has an unexpected %s%s", t.describe(), hint)
			return
		}
		p.skipWS()
		if c != "" {
			if n := p.peek(); p.stop() || n.kind == tokComma {
				p.fail("ends with the combinator %q at character %d: nothing follows it", c, t.col)
				return
			}
			if c2, t2 := p.combinator(); c2 != "" {
				p.fail("has two combinators in a row (%q at character %d, then %q at character %d)", c, t.col, c2, t2.col)
				return
			}
		}
	}
}

// compound reads a compound selector; false after an error or when
// nothing was there to read.
func (p *cssParser) compound() bool {
	start := p.i
	p.typeSelector()
	for p.why == "" {
		t := p.peek()
		switch {
		case t.kind == tokHash:
			p.next()
			if !t.idHash {
				p.fail("has the id %s at character %d: an id selector cannot start with %s; write [id=%s]", t.text, t.col, badStart(t.value), cssQuote(t.value))
			}
		case t.kind == tokDelim && t.value == ".":
			p.dot = p.i
			p.next()
			if n := p.next(); n.kind == tokIdent {
				p.classEnd = p.i
			} else {
				if n.kind == tokNumber || n.kind == tokDimension || n.kind == tokPercentage {
					p.badClass(t.col, p.i-1)
				} else {
					p.fail("has a \".\" at character %d with no class name after it", t.col)
				}
			}
		case (t.kind == tokNumber || t.kind == tokDimension || t.kind == tokPercentage) && strings.HasPrefix(t.text, "."):
			p.next()
			p.badClass(t.col, p.i-1)
		case t.kind == tokDelim && t.value == "&":
			p.next()
		case t.kind == tokOpen && t.value == "[":
			afterClass := p.i == p.classEnd
			p.next()
			if named := p.attribute(t); p.why != "" && afterClass && !named {
				p.why += p.classHint()
			}
		case t.kind == tokColon:
			p.next()
			p.pseudo(t)
		default:
			if p.i == start {
				if t.kind == tokEOF {
					p.fail("is empty")
				} else {
					p.fail("has an unexpected %s%s", t.describe(), hintFor(t))
				}
				return false
			}
			return true
		}
	}
	return false
}

// classHint says how to select by a class name holding characters CSS
// reads as syntax (Tailwind's w-1/2, bg-[#fff]): the run of the selector
// from the last class's name to the next space or combinator.
func (p *cssParser) classHint() string {
	run := p.run(p.dot + 1)
	return fmt.Sprintf("; if %q is one class name, write [class~=%s]", run, cssQuote(run))
}

// run is the selector's text from token i to the next space, comma,
// combinator or unmatched ")".
func (p *cssParser) run(i int) string {
	var b strings.Builder
	depth := 0
	for _, t := range p.toks[i:] {
		if t.kind == tokWS || t.kind == tokComma || t.kind == tokDelim && strings.Contains(">+~", t.value) {
			break
		}
		if t.kind == tokFunction || t.kind == tokOpen && t.value == "(" {
			depth++
		} else if t.kind == tokClose && t.value == ")" {
			if depth--; depth < 0 {
				break
			}
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// badClass refuses the class name that starts at token i and that CSS
// reads as a number (.5col, .2xl:flex), or a number right after a class
// (Tailwind's .w-0.5).
func (p *cssParser) badClass(col, i int) {
	if i == p.classEnd {
		p.fail("has an unexpected %s%s", p.toks[i].describe(), p.classHint())
		return
	}
	name := strings.TrimPrefix(p.run(i), ".")
	p.fail("has the class .%s at character %d: a class selector cannot start with %s; write [class~=%s]", name, col, badStart(name), cssQuote(name))
}

// badStart says what a name that is no CSS identifier starts with.
func badStart(name string) string {
	if name != "" && isDigit(rune(name[0])) {
		return "a digit"
	}
	return "\"" + name[:min(len(name), 2)] + "\""
}

// cssQuote is v as a CSS string in single quotes, which a YAML string in
// double quotes holds as it is.
func cssQuote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, "\n", `\a `).Replace(v) + "'"
}

func hintFor(t cssToken) string {
	switch {
	case t.kind == tokString:
		return ": quoted text goes inside an attribute selector, as in [title='Save'] (or use {text: ...})"
	case t.kind == tokBadString:
		return ": the quoted text runs past the end of its line (close it before the newline)"
	case t.kind == tokClose:
		return ": it closes nothing"
	case t.afterComment:
		return ": a comment is not a space (put a space beside it)"
	}
	return ""
}

// typeSelector reads an optional [ns|](name|*).
func (p *cssParser) typeSelector() {
	t := p.peek()
	isName := func(t cssToken) bool { return t.kind == tokIdent || t.kind == tokDelim && t.value == "*" }
	if isName(t) {
		p.next()
		if p.isDelim("|") {
			p.next()
			if n := p.next(); !isName(n) {
				p.fail("has a namespace bar at character %d with no element name after it", n.col-1)
			}
		}
		return
	}
	if p.isDelim("|") {
		p.next()
		if n := p.next(); !isName(n) {
			p.fail("has a namespace bar at character %d with no element name after it", t.col)
		}
	}
}

var attrMatchers = []string{"=", "~=", "|=", "^=", "$=", "*="}

// attribute reads the rest of [name op value flag]; named: it had a name.
func (p *cssParser) attribute(open cssToken) (named bool) {
	p.skipWS()
	t := p.next()
	// [ns|name], [*|name], [|name]
	if t.kind == tokDelim && t.value == "*" || t.kind == tokIdent && p.isDelim("|") && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tokIdent {
		if p.isDelim("|") {
			p.next()
			t = p.next()
		}
	} else if t.kind == tokDelim && t.value == "|" {
		t = p.next()
	}
	if t.kind != tokIdent {
		if t.kind == tokEOF {
			p.fail("has a \"[\" at character %d with no attribute name after it (an attribute selector is [name] or [name=\"value\"])", open.col)
		} else {
			p.fail("has an attribute selector at character %d with no attribute name: %s cannot start one", open.col, t.describe())
		}
		return false
	}
	p.skipWS()
	n := p.next()
	if n.kind == tokClose && n.value == "]" || n.kind == tokEOF {
		return true // [name], or closed by the end of the selector, as CSS allows
	}
	op := ""
	if n.kind == tokDelim {
		op = n.value
		if n.value != "=" && p.isDelim("=") {
			p.next()
			op += "="
		}
	}
	if !slices.Contains(attrMatchers, op) {
		p.fail("has %s where ], or one of = ~= |= ^= $= *= and a value, was expected (in the attribute selector at character %d)", n.describe(), open.col)
		return true
	}
	p.skipWS()
	v := p.next()
	switch v.kind {
	case tokIdent, tokString:
	case tokBadString:
		p.fail("has an attribute value at character %d%s", v.col, hintFor(v))
		return true
	default:
		p.fail("has an attribute value at character %d that must be quoted: %s", v.col, attrAdvice(p, t.value, op, v))
		return true
	}
	valueEnd := p.i
	p.skipWS()
	f := p.next()
	if f.kind == tokIdent && strings.EqualFold(f.value, "i") {
		p.skipWS()
		f = p.next()
	}
	switch {
	case f.kind == tokEOF || f.kind == tokClose && f.value == "]":
	case f.kind == tokIdent && strings.EqualFold(f.value, "s"):
		p.fail("has the flag s at character %d: Chromium takes only i (ignore case) after an attribute value", f.col)
	case v.kind == tokIdent:
		p.i = valueEnd
		p.fail("has %s after the value %s of the attribute selector at character %d: a value with spaces or symbols must be quoted; %s", f.describe(), v.text, open.col, attrAdvice(p, t.value, op, v))
	default:
		p.fail("has %s after the quoted value of the attribute selector at character %d: only i (ignore case) may follow it", f.describe(), open.col)
	}
	return true
}

// attrAdvice says how to write [name op value] when the value is not a
// CSS name: the text from v up to the ] quoted.
func attrAdvice(p *cssParser, name, op string, v cssToken) string {
	raw := v.text
	if v.kind == tokEOF || v.kind == tokClose {
		raw = ""
	}
	for j := p.i; raw != "" && j < len(p.toks); j++ {
		if t := p.toks[j]; t.kind == tokClose && t.value == "]" {
			break
		}
		raw += p.toks[j].text
	}
	if raw = strings.TrimSpace(raw); raw == "" {
		return fmt.Sprintf("write [%s%s'...']", name, op)
	}
	return fmt.Sprintf("write [%s%s%s]", name, op, cssQuote(raw))
}

// pseudo reads the rest of :name, :name(...), ::name or ::name(...).
func (p *cssParser) pseudo(colon cssToken) {
	afterClass := p.i-1 == p.classEnd
	element := false
	if p.peek().kind == tokColon {
		p.next()
		element = true
	}
	colons, kind, known, fn := ":", "pseudo-class", pseudoClasses, pseudoFunctions
	if element {
		colons, kind, known, fn = "::", "pseudo-element", pseudoElements, pseudoElementFunctions
	}
	t := p.next()
	if t.kind != tokIdent && t.kind != tokFunction {
		example := "a pseudo-class such as :hover, or :has(...)"
		if element {
			example = "a pseudo-element such as ::before"
		}
		p.fail("has a %q at character %d with no name after it (%s)", colons, colon.col, example)
		return
	}
	name := strings.ToLower(t.value)
	isFn := t.kind == tokFunction
	if !strings.HasPrefix(name, "-") {
		switch {
		case isFn && !fn[name] && known[name]:
			p.fail("has %s%s at character %d written with parentheses: it takes no argument", colons, t.value, colon.col)
			return
		case !isFn && fn[name] && !known[name]:
			p.fail("has %s%s at character %d without its argument: write %s%s(...)", colons, t.value, colon.col, colons, t.value)
			return
		case !known[name] && !fn[name]:
			if near := nearestPseudo(name, element, isFn); near != "" {
				p.fail("has the unknown %s %s%s at character %d: did you mean %s?", kind, colons, t.value, colon.col, near)
				return
			}
			if p.strict && p.unknown == "" {
				hint := ""
				if afterClass {
					hint = p.classHint()
				}
				p.unknown = fmt.Sprintf("has the %s %s%s at character %d, which Chromium does not know%s", kind, colons, t.value, colon.col, hint)
			}
		}
	}
	if !isFn {
		return
	}
	switch name {
	case "not", "has":
		p.list(name == "has", fmt.Sprintf("has nothing inside %s%s(): it needs a selector", colons, t.value))
	case "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type":
		p.nth(t, name == "nth-child" || name == "nth-last-child")
	default: // forgiving lists (:is, :where) and the rarer arguments: left to the browser
		p.balanced()
		return
	}
	if p.why != "" {
		return
	}
	if c := p.next(); c.kind != tokClose || c.value != ")" {
		if c.kind != tokEOF { // the end of the selector closes it, as CSS allows
			p.fail("has an unexpected %s in %s%s(...)", c.describe(), colons, t.value)
		}
	}
}

// balanced skips to the ")" that closes the function just read, as CSS
// reads blocks: a closer that does not match the open block is ignored.
func (p *cssParser) balanced() {
	stack := []string{")"}
	for {
		switch n := p.next(); n.kind {
		case tokEOF:
			return
		case tokFunction:
			stack = append(stack, ")")
		case tokOpen:
			stack = append(stack, map[string]string{"(": ")", "[": "]", "{": "}"}[n.value])
		case tokClose:
			if stack[len(stack)-1] == n.value {
				if stack = stack[:len(stack)-1]; len(stack) == 0 {
					return
				}
			}
		}
	}
}

// nth reads An+B (and "of S" when allowed) up to the closing ")".
func (p *cssParser) nth(fn cssToken, of bool) {
	p.skipWS()
	var text strings.Builder
	for !p.stop() && !(p.peek().kind == tokIdent && strings.EqualFold(p.peek().value, "of")) {
		text.WriteString(p.next().text)
	}
	arg := strings.TrimSpace(text.String())
	if !anPlusB(arg) && !strings.Contains(arg, `\`) { // escapes: left to the browser
		p.fail("has :%s(%s) at character %d, which is not a position CSS knows: write a number (3), odd, even, or An+B (2n+1, -n+3)", fn.value, arg, fn.col-1)
		return
	}
	if p.peek().kind == tokIdent {
		o := p.next()
		if !of {
			p.fail("has \"of\" at character %d in :%s(...): only :nth-child() and :nth-last-child() take \"of\" and a selector", o.col, fn.value)
			return
		}
		p.list(false, fmt.Sprintf("has nothing after \"of\" in :%s(): it needs a selector", fn.value))
	}
}

// anPlusB says whether s (trimmed, no comments) is CSS's An+B: odd, even,
// an integer, or An with an optional signed integer B, white space
// allowed only around B's sign. Pure.
func anPlusB(s string) bool {
	s = strings.ToLower(s)
	if s == "odd" || s == "even" {
		return true
	}
	num := func(s string) bool {
		if s == "" {
			return false
		}
		for _, c := range s {
			if !isDigit(c) {
				return false
			}
		}
		return true
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if len(s) > 1 && num(s[1:2]) || len(s) > 1 && s[1] == 'n' {
			s = s[1:]
		} else {
			return false
		}
	}
	n := strings.IndexByte(s, 'n')
	if n < 0 {
		return num(s)
	}
	if a := s[:n]; a != "" && !num(a) {
		return false
	}
	b := strings.TrimLeft(s[n+1:], " \t\n\r\f")
	if b == "" {
		return s[n+1:] == ""
	}
	if b[0] != '+' && b[0] != '-' {
		return false
	}
	return num(strings.TrimLeft(b[1:], " \t\n\r\f"))
}

// nearestPseudo is the known name a misspelt one most likely meant, with
// its colons ("" when none): the same name with the other number of
// colons (:marker for ::marker), or a name one edit away (a letter added,
// dropped, changed, or two swapped), first of the same kind and form
// (with parentheses or without). Pure.
func nearestPseudo(name string, element, isFn bool) string {
	type set struct {
		colons  string
		names   map[string]bool
		element bool
		fn      bool
	}
	sets := []set{{":", pseudoClasses, false, false}, {":", pseudoFunctions, false, true},
		{"::", pseudoElements, true, false}, {"::", pseudoElementFunctions, true, true}}
	rank := func(s set) int { // 0 best
		r := 0
		if s.element != element {
			r += 2
		}
		if s.fn != isFn {
			r++
		}
		return r
	}
	best, bestRank := "", 4
	for _, s := range sets {
		if s.element != element && s.names[name] {
			return s.colons + name
		}
	}
	if len(name) < 3 {
		return ""
	}
	for _, s := range sets {
		for k := range s.names {
			if r := rank(s); oneEdit(name, k) && (r < bestRank || r == bestRank && s.colons+k < best) {
				best, bestRank = s.colons+k, r
			}
		}
	}
	return best
}

// oneEdit says whether a and b differ by exactly one edit (Damerau). Pure.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	la, lb := len(a), len(b)
	switch {
	case la == lb:
		diff := -1
		for i := 0; i < la; i++ {
			if a[i] != b[i] {
				if diff >= 0 {
					return i == diff+1 && a[diff] == b[i] && a[i] == b[diff] && a[i+1:] == b[i+1:]
				}
				diff = i
			}
		}
		return true
	case la == lb+1:
		a, b, la = b, a, lb
		fallthrough
	case lb == la+1:
		for i := 0; i < la; i++ {
			if a[i] != b[i] {
				return a[i:] == b[i+1:]
			}
		}
		return true
	}
	return false
}

// The pseudo-classes and pseudo-elements Chromium knows, each confirmed
// against the browser by a test; vendor-prefixed names are not checked.
var (
	pseudoClasses = setOf(`active active-view-transition after any-link autofill before checked corner-present current
		default defined disabled double-button empty enabled end first-child first-letter first-line first-of-type focus
		focus-visible focus-within fullscreen future horizontal host hover in-range indeterminate interest-source
		interest-target invalid last-child last-of-type link modal navigation-source no-button only-child only-of-type open
		optional out-of-range past picture-in-picture placeholder-shown popover-open read-only read-write required root
		scope single-button start target target-after target-before target-current user-invalid user-valid valid vertical
		visited window-inactive xr-overlay decrement increment`)
	pseudoFunctions = setOf(`active-view-transition-type dir has host host-context is lang not nth-child nth-last-child
		nth-last-of-type nth-of-type state where`)
	pseudoElements = setOf(`after backdrop before checkmark column cue details-content file-selector-button first-letter
		first-line grammar-error interest-button marker permission-icon picker-icon placeholder scroll-marker
		scroll-marker-group search-text select-listbox selection spelling-error target-text view-transition`)
	pseudoElementFunctions = setOf(`cue highlight part picker scroll-button slotted view-transition-group
		view-transition-group-children view-transition-image-pair view-transition-new view-transition-old`)
)

func setOf(names string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(names) {
		m[n] = true
	}
	return m
}
