package scripts

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// cssCases are selectors with what cssSyntax says of them: "" for none,
// else a part of its reason. TestCSSSyntaxAsChromium holds each verdict
// against the browser's.
var cssCases = []struct{ css, want string }{
	// Valid, however they look.
	{"button", ""},
	{"button.primary", ""},
	{"#save", ""},
	{"*", ""},
	{"div > p + span ~ em", ""},
	{"div>p+span~em", ""},
	{"  div  p  ", ""},
	{"a, b ,c", ""},
	{"[data-x]", ""},
	{"[ data-x ]", ""},
	{`[data-x="1"]`, ""},
	{`[data-x='a b']`, ""},
	{"[data-x=abc]", ""},
	{"[data-x=abc i]", ""},
	{"[data-x|=en]", ""},
	{"[data-x~=a][data-y^=b][data-z$=c][data-w*=d]", ""},
	{"[*|lang]", ""},
	{"[|lang]", ""},
	{"*|div", ""},
	{"|div", ""},
	{"a:hover", ""},
	{"a:HOVER", ""},
	{"a:visited:focus-visible", ""},
	{"li:nth-child(2n+1)", ""},
	{"li:nth-child( 2n + 1 )", ""},
	{"li:nth-child(2n- 1)", ""},
	{"li:nth-child(2n -1)", ""},
	{"li:nth-child(-n+3)", ""},
	{"li:nth-child(+n)", ""},
	{"li:nth-child(n)", ""},
	{"li:nth-child(odd)", ""},
	{"li:nth-child(EVEN)", ""},
	{"li:nth-child(-5)", ""},
	{"li:nth-child(2 of .x)", ""},
	{"li:nth-last-child(2n of .x, .y)", ""},
	{"li:nth-of-type(3)", ""},
	{"li:nth-last-of-type(2N+0)", ""},
	{"div:has(> p)", ""},
	{"div:has(+ p, ~ span, em)", ""},
	{"div:not(.a, .b > c)", ""},
	{"div:is(.a, .b)", ""},
	{"div:where(.a, .b)", ""},
	{":is()", ""},
	{":is(, .a)", ""},  // a forgiving list drops what it cannot read
	{":where(>>)", ""}, // so does :where()
	{":is(:hovr)", ""}, // and an unknown pseudo-class in it
	{"p::first-line", ""},
	{"p:first-line", ""},
	{"p::before", ""},
	{"input::placeholder", ""},
	{"::-webkit-scrollbar", ""},
	{"::-webkit-anything-at-all", ""},
	{"input:-webkit-autofill", ""},
	{"div::part(label)", ""},
	{":host", ""},
	{":host(.x)", ""},
	{":dir(rtl)", ""},
	{":lang(en)", ""},
	{":state(open)", ""},
	{"&", ""},
	{"& > p", ""},
	{".a&", ""},
	{":scope > li", ""},
	{`.a\:visible`, ""},
	{`#\31 23`, ""},
	{`#\@x`, ""},
	{"#-x", ""},
	{"#_x", ""},
	{"#é", ""},
	{".é", ""},
	{"div /* a comment */ p", ""},
	{"div/**/p", `unexpected "p" at character 8: a comment is not a space`}, // a comment is no white space
	{"/* only a comment */ p", ""},
	{"p /* not closed", ""},
	{"[data-x", ""},        // the end closes it
	{`[data-x="a`, ""},     // and the quote
	{"div:not(.a", ""},     // and the parenthesis
	{"li:nth-child(2", ""}, // here too
	{"a:unknownthing", ""}, // not near any known name: the browser says
	{"svg|rect", ""},       // an undeclared namespace: the browser says
	{"a:hovered", ""},      // two letters from :hover: left to the browser
	{"li:nth-child(2 of.x)", ""},
	{"li:nth-child(2n+1 of:not(a))", ""},
	{`div\`, ""}, // a backslash at the end stands for U+FFFD
	{`#a\`, ""},
	{`.a\`, ""},
	{`li:nth-child(\6e)`, ""}, // escapes in An+B: left to the browser
	{`li:nth-child(o\64 d)`, ""},
	{":is(\"a\nb\")", ""},
	{":where([a=\"x\ny\"])", ""},
	{"#\\31\r\n23", ""},
	{"div\x00", ""},
	{".a\x00b", ""},
	{"div\fp", ""},
	{"div\rp", ""},
	// Refused.
	{".w-1/2", `has an unexpected "/" at character 5; if "w-1/2" is one class name, write [class~='w-1/2']`},
	{":not(.w-1/2)", `if "w-1/2" is one class name, write [class~='w-1/2']`},
	{".w-0.5", `has an unexpected ".5" at character 5; if "w-0.5" is one class name, write [class~='w-0.5']`},
	{".2xl:flex", `has the class .2xl:flex at character 1: a class selector cannot start with a digit; write [class~='2xl:flex']`},
	{"a.btn[href=/login]", `must be quoted: write [href='/login']`},
	{")", `has an unexpected ")" at character 1: it closes nothing`},
	{" ) a", `it closes nothing`},
	{"div.w-50% > a", `if "w-50%" is one class name, write [class~='w-50%']`},
	{"div.bg-[#fff]", `if "bg-[#fff]" is one class name, write [class~='bg-[#fff]']`},
	{"[a=]", "write [a='...']"},
	{"[a=]b", "write [a='...']"},
	{"a:marker", "did you mean ::marker?"},
	{"a:selection", "did you mean ::selection?"},
	{"a::hover", "did you mean :hover?"},
	{"a::not(b)", "did you mean :not?"},
	{"a:hos", "did you mean :host?"},
	{"a:part(x)", "did you mean ::part?"},
	{"input::placehlder", "did you mean ::placeholder?"},
	{"div \"a\nb\"", "runs past the end of its line"},
	{"", "is empty"},
	{"   ", "is empty"},
	{"button[[x", "no attribute name"},
	{"[data-id=/login]", `write [data-id='/login']`},
	{"[data-id=123]", `write [data-id='123']`},
	{"[data-id=a b]", "a value with spaces or symbols must be quoted; write [data-id='a b']"},
	{"[data-id==a]", "must be quoted"},
	{"[data-id!=a]", `has "!" at character 9 where ], or one of = ~= |= ^= $= *= and a value, was expected`},
	{"[data-id=a x]", "write [data-id='a x']"},
	{`[data-id="a" x]`, "only i (ignore case) may follow"},
	{"[data-x='A' s]", "Chromium takes only i (ignore case)"}, // Chromium does not take s
	{"[]", "no attribute name"},
	{"#plain[", "no attribute name after it"},
	{"[5]", "no attribute name"},
	{"#1abc", `an id selector cannot start with a digit; write [id='1abc']`},
	{"#1", `write [id='1']`},
	{"#-1", `cannot start with "-1"; write [id='-1']`},
	{".5col", `a class selector cannot start with a digit; write [class~='5col']`},
	{".", "no class name"},
	{"div.", "no class name"},
	{"div..a", "no class name"},
	{"> p", "starts with the combinator"},
	{"+ p", "starts with the combinator"},
	{"div >", "ends with the combinator"},
	{"div > , p", "ends with the combinator"},
	{"div > > p", "two combinators in a row"},
	{"div + ~ p", "two combinators in a row"},
	{"a,", "ends with a comma (at character 2)"},
	{",a", "empty selector before the comma at character 1"},
	{"a,,b", "empty selector before the comma at character 3"},
	{"a)", "closes nothing"},
	{"a]", "closes nothing"},
	{"div:not()", "nothing inside :not()"},
	{"div:not(> p)", "starts with the combinator"},
	{"div:has()", "nothing inside :has()"},
	{"li:nth-child(2 of )", `has nothing after "of" in :nth-child()`},
	{"div:not(a,)", "ends with a comma"},
	{"div:has(> )", "ends with the combinator"},
	{"a:hovr", "did you mean :hover?"},
	{"a:hoverr", "did you mean :hover?"},
	{"a:ohver", "did you mean :hover?"},
	{"input:chekced", "did you mean :checked?"},
	{"input:disable", "did you mean :disabled?"},
	{"li:first-chlid", "did you mean :first-child?"},
	{"li:nth-chlid(2)", "did you mean :nth-child?"},
	{"p::befor", "did you mean ::before?"},
	{"a:hover()", "takes no argument"},
	{"a:not", "without its argument"},
	{"li:nth-child", "without its argument"},
	{"li:nth-child()", "not a position"},
	{"li:nth-child(2n+)", "not a position"},
	{"li:nth-child(2n+-1)", "not a position"},
	{"li:nth-child(+ 2n)", "not a position"},
	{"li:nth-child(2 n)", "not a position"},
	{"li:nth-child(1.5)", "not a position"},
	{"li:nth-child(first)", "not a position"},
	{"li:nth-of-type(2 of .x)", `only :nth-child() and :nth-last-child() take "of"`},
	{"a:", "no name after it"},
	{"a::", "no name after it (a pseudo-element such as ::before)"},
	{"a: hover", "no name after it"},
	{`"Save"`, "quoted text goes inside an attribute selector"},
	{`button "Save"`, "quoted text goes inside an attribute selector"},
	{"div!", `"!"`},
	{"div;", `";"`},
	{"div {", `"{"`},
	{"a || b", "namespace bar"},
	{"a @x", `"@x"`},
	{"div:is(.a]", ""}, // a forgiving list, read as CSS reads blocks
	{"[title=\"a\nb\"]", "runs past the end of its line"},
}

func TestCSSSyntax(t *testing.T) {
	for _, c := range cssCases {
		got := cssSyntax(c.css)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("cssSyntax(%q) = %q, want %q", c.css, got, c.want)
		}
	}
}

// A selector that holds a secret is not checked when the script is read:
// what is wrong with it could quote part of the secret. The browser judges
// it, and the run masks its words.
func TestSecretSelectorsLeftToTheBrowser(t *testing.T) {
	env := LoadOptions{LookupEnv: fakeEnv(map[string]string{"TOKEN": "s3cr/3t"})}
	s := loadSrc(t, "secrets: [TOKEN]\nsteps:\n  - click: \"#x-${TOKEN}\"\n  - click: {css: \"a[b=${TOKEN}]\"}\n", env, nil)
	if len(s.Steps) != 2 {
		t.Fatalf("steps %v", s.Steps)
	}
	dir := writeScript(t, map[string]string{"demo.yaml": "secrets: [TOKEN]\nsteps:\n  - click: \"#x-${TOKEN}, a >\"\n  - click: \"#1\"\n"})
	_, err := Load(filepath.Join(dir, "demo.yaml"), env)
	if err == nil || strings.Contains(err.Error(), "ends with the combinator") || !strings.Contains(err.Error(), "#1") {
		t.Errorf("only the selector without a secret is refused: %v", err)
	}
}

func TestRefusedSelector(t *testing.T) {
	for _, c := range []struct{ css, want string }{
		{".md:flex", `has the pseudo-class :flex at character 4, which Chromium does not know; if "md:flex" is one class name, write [class~='md:flex']`},
		{"a:unknownthing", "has the pseudo-class :unknownthing at character 2, which Chromium does not know"},
		{"p::nothing", "has the pseudo-element ::nothing at character 2, which Chromium does not know"},
		{"a:hovr", "did you mean :hover?"},
		{"a:hover", ""},
		{"svg|rect", ""},                                 // a namespace: nothing found here
		{"video:playing > a[href=/x]", "must be quoted"}, // a sure error first
		{"input:-webkit-autofill", ""},
	} {
		if got := RefusedSelector(c.css); c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("RefusedSelector(%q) = %q, want %q", c.css, got, c.want)
		}
	}
}

func TestAnPlusB(t *testing.T) {
	for s, want := range map[string]bool{
		"odd": true, "even": true, "0": true, "+5": true, "-5": true, "n": true, "-n": true, "+n": true,
		"2n": true, "2n+1": true, "2n-1": true, "2n + 1": true, "2n- 1": true, "2n +1": true, "-2n+3": true, "10n-0": true,
		"": false, "+": false, "-": false, "n+": false, "2n+": false, "2n+-1": false, "+-1": false, "+ n": false,
		"2 n": false, "n1": false, "2n1": false, "1.5": false, "2.0n": false, "nn": false, "odd1": false, "--n": false,
	} {
		if got := anPlusB(s); got != want {
			t.Errorf("anPlusB(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"hover", "hovr", true}, {"hover", "hoverr", true}, {"hover", "ohver", true}, {"hover", "hovar", true},
		{"hover", "hover", false}, {"hover", "hovered", false}, {"hover", "ohvre", false}, {"ab", "ba", true},
		{"abc", "acb", true}, {"abc", "cba", false}, {"", "a", true}, {"a", "", true}, {"abc", "xyz", false},
	} {
		if got := oneEdit(c.a, c.b); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v", c.a, c.b, got)
		}
		if got := oneEdit(c.b, c.a); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v", c.b, c.a, got)
		}
	}
}

// TestCSSSyntaxAsChromium holds cssSyntax against the installed
// Chromium's querySelectorAll: nothing it refuses may the browser take
// (nor anything RefusedSelector finds wrong, which knows no other names),
// every pseudo-class and pseudo-element listed must be one the browser
// takes, and every misspelling of one that cssSyntax refuses the browser
// must refuse too.
func TestCSSSyntaxAsChromium(t *testing.T) {
	testenv.Need(t, "chromium-headless-shell")
	corpus := []string{}
	for _, c := range cssCases {
		corpus = append(corpus, c.css)
	}
	listed := map[string]bool{}
	add := func(set map[string]bool, colons, arg string) {
		for name := range set {
			s := colons + name + arg
			listed[s] = true
			corpus = append(corpus, s)
			for _, typo := range typos(name) {
				corpus = append(corpus, colons+typo+arg)
			}
		}
	}
	// The argument each functional name takes, for listing it.
	args := map[string]string{"active-view-transition-type": "(a)", "dir": "(ltr)", "has": "(a)", "host": "(a)",
		"host-context": "(a)", "is": "(a)", "lang": "(en)", "not": "(a)", "nth-child": "(1)", "nth-last-child": "(1)",
		"nth-last-of-type": "(1)", "nth-of-type": "(1)", "state": "(a)", "where": "(a)", "cue": "(a)", "highlight": "(a)",
		"part": "(a)", "picker": "(select)", "scroll-button": "(left)", "slotted": "(a)", "view-transition-group": "(a)",
		"view-transition-group-children": "(a)", "view-transition-image-pair": "(a)", "view-transition-new": "(a)",
		"view-transition-old": "(a)"}
	add(pseudoClasses, ":", "")
	add(pseudoElements, "::", "")
	for _, fn := range []struct {
		set    map[string]bool
		colons string
	}{{pseudoFunctions, ":"}, {pseudoElementFunctions, "::"}} {
		for name := range fn.set {
			a, ok := args[name]
			if !ok {
				t.Fatalf("no argument to try %s%s with: add one to args", fn.colons, name)
			}
			s := fn.colons + name + a
			listed[s] = true
			corpus = append(corpus, s)
			for _, typo := range typos(name) {
				corpus = append(corpus, fn.colons+typo+a)
			}
		}
	}
	slices.Sort(corpus)
	corpus = slices.Compact(corpus)
	valid := chromiumTakes(t, corpus)
	refused, missed := 0, 0
	for i, s := range corpus {
		why := cssSyntax(s)
		switch {
		case why != "" && valid[i]:
			t.Errorf("cssSyntax refuses %q (%s), which Chromium takes", s, why)
		case valid[i] && RefusedSelector(s) != "":
			t.Errorf("RefusedSelector finds %q wrong (%s), but Chromium takes it", s, RefusedSelector(s))
		case listed[s] && !valid[i]:
			t.Errorf("%q is listed as known, but Chromium refuses it", s)
		case why != "":
			refused++
		case !valid[i]:
			missed++
			if os.Getenv("CSS_MISSED") != "" {
				t.Logf("missed %q", s)
			}
		}
	}
	for _, c := range cssCases {
		if i, _ := slices.BinarySearch(corpus, c.css); c.want != "" && valid[i] {
			t.Errorf("%q is a case to refuse, but Chromium takes it", c.css)
		}
	}
	t.Logf("%d selectors: %d refused by both, %d refused only by Chromium (left to it)", len(corpus), refused, missed)
}

// typos are the names one edit from name that cssSyntax would take for a
// misspelling of a known one: a letter added, changed or dropped, or two
// swapped.
func typos(name string) []string {
	var out []string
	for i := 0; i <= len(name); i++ {
		for _, c := range "abcdefghijklmnopqrstuvwxyz-" {
			out = append(out, name[:i]+string(c)+name[i:]) // added
			if i < len(name) {
				out = append(out, name[:i]+string(c)+name[i+1:]) // changed
			}
		}
		if i < len(name) {
			out = append(out, name[:i]+name[i+1:]) // dropped
		}
		if i+1 < len(name) {
			out = append(out, name[:i]+name[i+1:i+2]+name[i:i+1]+name[i+2:]) // swapped
		}
	}
	return slices.DeleteFunc(out, func(s string) bool {
		return s == name || pseudoClasses[s] || pseudoFunctions[s] || pseudoElements[s] || pseudoElementFunctions[s]
	})
}

// chromiumTakes says for each selector whether the headless shell's
// document.querySelectorAll takes it.
func chromiumTakes(t *testing.T, corpus []string) []bool {
	t.Helper()
	list, _ := json.Marshal(corpus)
	page := filepath.Join(t.TempDir(), "css.html")
	html := `<!doctype html><pre id=o></pre><script>
const out = ` + string(list) + `.map(s => { try { document.querySelectorAll(s); return 1 } catch (e) { return 0 } });
document.getElementById('o').textContent = out.join('');
</script>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--disable-gpu", "--no-first-run", "--user-data-dir=" + t.TempDir(), "--dump-dom", "file://" + page}
	if testenv.NoSandbox() {
		args = append([]string{"--no-sandbox"}, args...)
	}
	out, err := exec.Command("chromium-headless-shell", args...).Output()
	if err != nil {
		t.Fatalf("chromium-headless-shell: %v", err)
	}
	m := regexp.MustCompile(`<pre id="o">([01]*)</pre>`).FindSubmatch(out)
	if m == nil || len(m[1]) != len(corpus) {
		t.Fatalf("no verdicts for %d selectors in the page: %.300s", len(corpus), out)
	}
	valid := make([]bool, len(corpus))
	for i, c := range m[1] {
		valid[i] = c == '1'
	}
	return valid
}
