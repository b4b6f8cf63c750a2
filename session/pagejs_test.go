package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
)

// fixtureTab opens testdata/site/fixture.html (or another page of the
// site) in a tab of its own, in a window of the package's live browser,
// with the tab's listener, and returns
// the tab's context, the tab (its helpers, worlds and events, for the
// session's functions that take one) and the site's address.
func fixtureTab(t *testing.T, page string) (context.Context, *Tab, string) {
	t.Helper()
	testenv.Need(t, "chromium")
	srv, err := Serve("testdata/site")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	b, err := Attach(context.Background(), liveEndpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	tab, closeTab, err := b.NewTab(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeTab)
	w := newWorldIndex()
	h := w.add("")
	ev := &tabEvents{worlds: w, net: newNetActivity()}
	if err := chromedp.Listen(tab, ev.listen); err != nil {
		t.Fatal(err)
	}
	if err := SetViewport(tab, 800, 600, 1); err != nil {
		t.Fatal(err)
	}
	if err := Navigate(tab, srv.URL+"/"+page); err != nil {
		t.Fatal(err)
	}
	return tab, &Tab{Name: "main", ctx: tab, helpers: h, worlds: w, events: ev}, srv.URL
}

func call[T any](t *testing.T, ctx context.Context, h *helpers, name string, args ...any) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := callHelper[T](c, h, name, args...)
	if err != nil {
		t.Fatalf("%s%v: %v", name, args, err)
	}
	return v
}

func css(s string) spec { return spec{CSS: s} }

// asJSON is v as JSON, object keys sorted, nothing escaped for HTML.
func asJSON(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return strings.TrimSpace(b.String())
}

// Each page helper against the fixture page: hidden, opacity 0 (on the
// element and on an ancestor), visibility hidden, zero size, covered by
// another element, disabled, moving, in a shadow root and in an iframe.
// Accessible names as Playwright's getByRole computes them, on the
// patterns real pages use: a control inside its own label, white space
// in a span of its own, a hidden element named by reference with what is
// inside it, a pseudo-element's alternative text, an embedded combobox
// or menu, a presentational image's title, an element that names itself
// in its aria-labelledby; and the roles of table headers (a row's, a
// column's, a lone cell's none), file inputs and MathML.
func TestAccessibleNames(t *testing.T) {
	tab, tb, _ := fixtureTab(t, "names.html")
	for _, c := range []struct {
		role, name, id string
	}{
		{"checkbox", "I agree", "agree"},
		{"textbox", "Nickname", "nick"}, // not "Nickname Ada": its own value is not its name
		{"button", "Save changes", "spaced"},
		{"button", "Send the report", "by-hidden"},
		{"button", "Starred item", "starred"},
		{"button", "Next", "decorated"}, // a pseudo-element not displayed adds nothing
		{"link", "Step one", "stepped"},
		{"checkbox", "Repeat 3 times", "repeat"},
		{"checkbox", "Flash times", "flash"},
		{"link", "Read more", "more"},
		{"textbox", "Site Search", "search"},
		{"rowheader", "Plan", "a header beside a data cell"},
		{"columnheader", "Total", "a header among headers"},
		{"button", "Choose File", "file"},
		{"button", "Avatar", "avatar"},
		{"math", "Euler's number", "math"},
		{"button", "Favourite item two", "imaged"}, // an image's alternative text
		{"group", "Shipping", "shipping"},          // a hidden legend still names its fieldset
		{"button", "Deletethe draft", "owner"},     // what it owns follows its content, as in Playwright (no space: both inline)
		{"button", "Save draft", "grouped"},        // a group's content does not name a button (allowsNameFromContent)
		{"textbox", "All of it", "whole"},          // in a label, any role's content counts
		{"link", "Listed", "listed"},               // a list's and an item's do
	} {
		// Each name is the page's only one: one element found is #id.
		if got := call[[]map[string]any](t, tab, tb.helpers, "find", spec{Role: c.role, Name: c.name, Exact: true}); len(got) != 1 {
			t.Errorf("role %s named exactly %q: %d elements, want #%s", c.role, c.name, len(got), c.id)
		}
	}
	for _, c := range []struct{ role, name string }{
		{"textbox", "Nickname Ada"}, {"button", "Savechanges"}, {"button", "x"}, {"link", "Read ignored more"}, {"textbox", "Search"},
		{"columnheader", "Plan"}, {"columnheader", "Alone"}, {"rowheader", "Alone"}, {"button", "ignored"},
	} {
		if got := call[[]map[string]any](t, tab, tb.helpers, "find", spec{Role: c.role, Name: c.name, Exact: true}); len(got) != 0 {
			t.Errorf("role %s named exactly %q: %d elements, want none", c.role, c.name, len(got))
		}
	}
}

// A target that matches nothing is told what the page has near it: a
// name or text a few letters away, or in another case where exact asks
// for the case, or the name on an element of another role; nothing when
// nothing is close.
func TestNearMisses(t *testing.T) {
	tab, tb, _ := fixtureTab(t, "names.html")
	for _, c := range []struct {
		s    spec
		want string
	}{
		{spec{Role: "button", Name: "Save chnges"}, `the page has a button named "Save changes"`},
		{spec{Role: "switch", Name: "I agree"}, "a checkbox has that name, not a switch"},
		{spec{Text: "Read mroe"}, `the page has the text "Read more"`},
		{spec{Text: "NICKNAME", Exact: true}, `the page has the text "Nickname"`},
		{spec{Label: "Nicknam"}, `the page has a label "Nickname"`},
		{spec{Title: "ignore"}, `the page has the title "ignored"`},
		{spec{Text: "Nothing like it on the page"}, ""},
		{spec{Role: "button", Name: "Launch the rocket"}, ""},
		{css("#nothing"), ""},
	} {
		if got := call[string](t, tab, tb.helpers, "nearMisses", c.s); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

func TestPageHelpers(t *testing.T) {
	tab, tb, _ := fixtureTab(t, "fixture.html")
	h := tb.helpers

	t.Run("visible", func(t *testing.T) {
		// Playwright's rule: opacity 0 is visible; see-through is told
		// apart by showsSomething only.
		for id, want := range map[string]bool{
			"plain": true, "hidden": false, "transparent": true, "in-transparent": true, "invisible": false,
			"zero": false, "covered": true, "disabled": true, "nothing": false,
		} {
			if got := call[bool](t, tab, h, "state", css("#"+id), nil, "visible"); got != want {
				t.Errorf("#%s visible = %v, want %v", id, got, want)
			}
			if got := call[bool](t, tab, h, "state", css("#"+id), nil, "hidden"); got == want {
				t.Errorf("#%s hidden = %v, want %v", id, got, !want)
			}
		}
		if !call[bool](t, tab, h, "state", css("#hidden"), nil, "attached") || !call[bool](t, tab, h, "state", css("#nothing"), nil, "detached") {
			t.Error("attached/detached")
		}
	})

	// The pure parts of CSS matching: how a selector list splits into
	// complex selectors (a relative one of :has() keeps its leading
	// combinator), and which functional pseudo-classes of a compound
	// clapper matches itself.
	t.Run("css parts", func(t *testing.T) {
		for _, c := range []struct{ css, want string }{
			{"nav a.x, ul > li", `[[["","nav"],[" ","a.x"]],[["","ul"],[">","li"]]]`},
			{"> p", `[[[">","p"]]]`},
			{"+ a b", `[[["+","a"],[" ","b"]]]`},
			{`a[title="x, y > z"] ~ b`, `[[["","a[title=\"x, y > z\"]"],["~","b"]]]`},
			{":is(a b) c", `[[["",":is(a b)"],[" ","c"]]]`},
			{"a:has(:is(.x, :has(b)) c)", `[[["","a:has(:is(.x, :has(b)) c)"]]]`},
			{"a > > b, c", `[null,[["","c"]]]`}, // a combinator doubled
			{"a, b ~", `[[["","a"]],null]`},     // or at the end
		} {
			if got := asJSON(call[any](t, tab, h, "splitSelector", c.css)); got != c.want {
				t.Errorf("splitSelector(%q) = %s, want %s", c.css, got, c.want)
			}
		}
		for _, c := range []struct{ compound, want string }{
			{"button.x:is(my-card *):hover", `{"css":"button.x:hover","fns":[{"list":[[["","my-card"],[" ","*"]]],"name":"is"}]}`},
			{"a:is(.b, .c):not(.d)", `{"css":"a:is(.b, .c):not(.d)","fns":[]}`},
			{":has(.x)", `{"css":"","fns":[{"list":[[["",".x"]]],"name":"has"}]}`},
			{":not(:has(> b))", `{"css":"","fns":[{"list":[[["",":has(> b)"]]],"name":"not"}]}`},
			{":WHERE(a > b)", `{"css":"","fns":[{"list":[[["","a"],[">","b"]]],"name":"where"}]}`},
			{`[data-x=":is(a b)"]:is(a)`, `{"css":"[data-x=\":is(a b)\"]:is(a)","fns":[]}`},
			{`a:not([title="a) b"])`, `{"css":"a:not([title=\"a) b\"])","fns":[]}`},
			{`:has(:is(.x, :has(b), [t=":has("]) + :where(:has(c)))`, `{"css":"","fns":[{"list":[[["",":is(.x, [t=\":has(\"])"],["+",":not(*)"]]],"name":"has"}]}`},
			{`:has(:not(:is(:has(a))))`, `{"css":"","fns":[{"list":[[["",":not(:not(*))"]]],"name":"has"}]}`},
		} {
			if got := asJSON(call[any](t, tab, h, "splitCompound", c.compound)); got != c.want {
				t.Errorf("splitCompound(%q) = %s, want %s", c.compound, got, c.want)
			}
		}
	})

	// The last look of a wait for a target that matched nothing: what
	// the page has near it, or that the target came just as the time ran
	// out.
	t.Run("fresh near", func(t *testing.T) {
		for _, c := range []struct {
			target scripts.Target
			want   string
		}{
			{scripts.Target{CSS: "#plain"}, "no element matches" + cameLate},
			{scripts.Target{CSS: "#nowhere"}, "no element matches"},
			{scripts.Target{Role: "button", Name: "Plane", Exact: true}, `no element matches; the page has a button named "Plain"`},
		} {
			err := error(&WaitTimeout{What: "click", Seen: "no element matches", Cause: context.DeadlineExceeded})
			freshNear(tab, tb, c.target, err, "no element matches")
			if got := err.(*WaitTimeout).Seen; got != c.want {
				t.Errorf("%v: %q, want %q", c.target, got, c.want)
			}
		}
	})

	// On the page's own elements (outside any shadow root), clapper's
	// CSS matching gives the browser's answer, in the browser's order:
	// the fixture has a shadow root, so clapper walks the combinators.
	t.Run("css as the browser", func(t *testing.T) {
		world, _, err := tb.helpers.ensure(tab)
		if err != nil {
			t.Fatal(err)
		}
		for _, sel := range []string{
			"button", "body > *", "div button", "#cover-host > *", "label + input", "#plain ~ button.box",
			":is(div, fieldset) button", ":is(div button, legend > button)", "button:not(div *)", ":not(:is(body *))",
			"div:has(button)", "div:has(> button)", "fieldset:has(legend button)", "button:has(+ button)", "#plain:has(~ #disabled)",
			":has(+ my-card)", "div:where(:has(> p), #cover-host)", "#plain:has(+ button ~ #disabled)", "#plain:has(~ button + div)",
			"#plain:has(+ button ~ div > #covered)", "body:has(> #plain + button)", "#hidden:has(~ div button)", "#plain:has(+ #hidden > b)",
			":has(~ #far) ~ script", ":has(~ #far) + *", "body :has(> button) ~ :has(+ iframe)",
			"body:has(:is(:has(> button)))", "body:has(:where(:has(> #covered), #nothing))", "#cover-host:has(:is(#nothing, :has(+ #cover)))",
			"body:has(:not(:is(:has(a))))", "div:has(:is(:has(b), button))", "body > :has(~ #far) ~ :not(script)", "p:is(div *, > p)", ":is(div q, span >)",
			"body > :nth-child(2 of :is(div button, button))", "input:is([type=checkbox], #name)",
		} {
			expr := fmt.Sprintf(`(() => { const id = (e) => e.id || e.tagName; const sel = %q;
				const mine = clapper.byCSS(sel).filter((e) => e.getRootNode() === document).map(id).join(',');
				const theirs = [...document.querySelectorAll(sel)].map(id).join(',');
				return mine === theirs ? '' : 'clapper ' + mine + '; browser ' + theirs; })()`, sel)
			got, err := chromedp.Run(tab, chromedp.Evaluate[string](expr, func(p *runtime.EvaluateParams) { p.UniqueContextID = world }))
			if err != nil {
				t.Fatalf("%s: %v", sel, err)
			}
			if got != "" {
				t.Errorf("%s: %s", sel, got)
			}
		}
	})

	t.Run("find", func(t *testing.T) {
		count := func(s spec) int { return len(call[[]map[string]any](t, tab, h, "find", s)) }
		for _, c := range []struct {
			s    spec
			want int
		}{
			{css("button.b"), 2}, // one in the light DOM, one in the shadow root
			{css("#shadow-btn"), 1},
			{css("my-card button"), 1}, // combinators cross into shadow roots, as Playwright's do
			{css("my-card > button.b"), 1},
			{css("body my-card #shadow-btn, #nothing"), 1},
			{css("my-card + fancy-field"), 1},
			{css("my-card /* the component */ button"), 1},
			{css(`#\70 lain`), 1}, // an escape ended by its space: #plain
			{css("#shadow-btn, #plain, my-card button"), 2},
			// Inside :is(), :where(), :not() and :has() too, as in Playwright.
			{css("button:is(my-card *)"), 1},
			{css(":is(my-card button)"), 1},
			{css(":where(body my-card) button"), 1},
			{css("button.b:not(my-card *)"), 1},
			{css("button.b:not(#nothing)"), 2},
			{css("my-card:has(button)"), 1},
			{css("my-card:has(> #shadow-btn)"), 1},
			{css("body > :has(#shadow-btn)"), 1},
			{css("#greeting ~ :has(#shadow-btn)"), 1},
			{css(":has(+ fancy-field):has(button)"), 1},
			{css("#plain:has(+ button)"), 1},
			{css("body:has(p button)"), 0}, // no p above the component's button
			{css(":is(#nothing x, my-card button), #plain"), 2},
			{css("button:is(my-card *, :nonsense)"), 1}, // a forgiving list
			{css(`button:is(my-card *):not([title="a) b"])`), 1},
			{css("button:is(my-card *, > button, button ~, p ~ ~ button)"), 1}, // items the browser leaves out
			{css(":scope > body"), 1},                                          // :scope is the root element, as in Playwright
			{css("body > &"), 0},
			{css(`my-card button:not([title*="&"])`), 1}, // an & in a quoted value is not the nesting selector
			{css("#inframe"), 0},                         // another document
			{spec{XPath: "//button[@id='plain']"}, 1},
			{spec{XPath: "//button[@id='shadow-btn']"}, 0}, // XPath stays in the light DOM
			{spec{Text: "In shadow"}, 1},
			{spec{Text: "Hello, there"}, 1},
			{spec{Text: "hello, THERE"}, 1},              // case-insensitive
			{spec{Text: "hello, THERE", Exact: true}, 0}, // exact is case-sensitive
			{spec{Text: "Hello, there", Exact: true}, 1},
			{spec{Text: "In frame"}, 0},
			{spec{Role: "button", Name: "Close dialog"}, 1},
			{spec{Role: "button", Name: "close"}, 1},
			{spec{Role: "button", Name: "In shadow"}, 1},
			{spec{Role: "button", Name: "Hidden"}, 0}, // hidden from assistive technology
			{spec{Role: "checkbox"}, 1},
			{spec{Label: "Your name"}, 1},
			{spec{Label: "your"}, 1},
			{spec{Label: "Close dialog"}, 1},
			{spec{Placeholder: "Type your name"}, 1},
			{spec{Placeholder: "type"}, 1},
			{spec{TestID: "tid"}, 1},
			{css("#nothing"), 0},
			{spec{CSS: "button", Visible: true}, 9},
		} {
			if got := count(c.s); got != c.want {
				t.Errorf("find %+v: %d elements, want %d", c.s, got, c.want)
			}
		}
	})

	t.Run("actionable", func(t *testing.T) {
		check := func(id string, n needs, fails bool) string {
			// An element that fails a check fails it each time: 300 ms
			// is five looks (retryWaits). One that passes has as long as
			// a loaded machine needs, and ends when it passes.
			wait := 10 * time.Second
			if fails {
				wait = 300 * time.Millisecond
			}
			c, cancel := context.WithTimeout(tab, wait)
			defer cancel()
			_, err := waitActionable(c, tb, scripts.Target{CSS: "#" + id}, n)
			if err == nil {
				return ""
			}
			return err.Error()
		}
		for _, c := range []struct {
			id, failed string
			n          needs
		}{
			{"plain", "", forPointer},
			{"transparent", "", forPointer}, // see-through, still there to click
			{"transparent", "failed check shows something", forLook},
			{"invisible", "failed check visible", forPointer},
			{"zero", "failed check visible", forPointer},
			{"hidden", "failed check visible", forPointer},
			{"disabled", "failed check enabled", forPointer},
			{"disabled", "", forHover},
			{"covered", `failed check receives pointer: <div id="cover"></div> intercepts pointer events at (60, `, forPointer},
			{"covered", "", forField},
			{"moving", "failed check stable", forLook},
			{"shadow-btn", "", forPointer},
			{"hidden", "", forUpload},
			{"nothing", "failed check attached", forUpload},
			{"far", "", forLook},                                // scrolled into view first
			{"in-legend", "", forPointer},                       // a disabled fieldset's first legend stays enabled
			{"in-fieldset", "failed check enabled", forPointer}, // the rest of it does not
			{"span-in-disabled", "failed check enabled", forPointer},
			{"aria-off", "", forPointer}, // a span has no role that aria-disabled disables
			{"half", "", forPointer},     // its centre was below the viewport: scrolled
		} {
			got := check(c.id, c.n, c.failed != "")
			if (c.failed == "") != (got == "") || !strings.Contains(got, c.failed) {
				t.Errorf("#%s with %+v: %q; want %q", c.id, c.n, got, c.failed)
			}
		}
		c, cancel := context.WithTimeout(tab, 2*time.Second)
		defer cancel()
		if _, err := waitActionable(c, tb, scripts.Target{CSS: "button.b"}, forPointer); err == nil || !strings.Contains(err.Error(), "matches 2 elements") {
			t.Errorf("two matches without nth: %v", err)
		}
		one := 1
		if _, err := waitActionable(c, tb, scripts.Target{CSS: "button.b", Nth: &one}, forPointer); err != nil {
			t.Errorf("nth 1 of button.b (in the shadow root): %v", err)
		}
	})

	t.Run("text and address", func(t *testing.T) {
		if !call[bool](t, tab, h, "hasText", "Hello, there") || call[bool](t, tab, h, "hasText", "Goodbye") {
			t.Error("hasText")
		}
		d := call[docState](t, tab, h, "doc")
		if !strings.HasSuffix(d.URL, "/fixture.html") || d.Ready != "complete" {
			t.Errorf("doc = %+v", d)
		}
		for _, c := range []struct {
			value, glob string
			want        bool
		}{
			{"http://a/b.html", "*/b.html", true}, {"http://a/b.html", "http://?/b.html", true},
			{"http://a/b.html", "*/c.html", false}, {"http://a/b.html", "http://a/b.htm", false},
			{"http://a/(x)+[y].html", "*(x)+[y].html", true}, {"http://a/bxhtml", "*/b.html", false},
		} {
			if got := call[bool](t, tab, h, "glob", c.value, c.glob); got != c.want {
				t.Errorf("glob(%q, %q) = %v", c.value, c.glob, got)
			}
		}
		if !call[bool](t, tab, h, "urlIs", "*/fixture.html") {
			t.Error("urlIs")
		}
	})

	t.Run("observe", func(t *testing.T) {
		for _, c := range []struct {
			x    expectation
			ok   bool
			seen string
		}{
			{expectation{What: "visible", Spec: &spec{CSS: "#plain"}}, true, ""},
			{expectation{What: "visible", Spec: &spec{CSS: "#invisible"}}, false, "not visible"},
			{expectation{What: "hidden", Spec: &spec{CSS: "#plain"}}, false, "visible"},
			{expectation{What: "text", Want: "Hello, there"}, true, ""},
			{expectation{What: "text", Spec: &spec{CSS: "#greeting"}, Want: "there"}, true, ""},
			{expectation{What: "text", Spec: &spec{CSS: "#greeting"}, Want: "there", Exact: true}, false, `"Hello, there"`},
			{expectation{What: "text", Spec: &spec{CSS: "#greeting"}, Want: "Hello,  there", Exact: true}, true, ""},
			{expectation{What: "text", Spec: &spec{CSS: "#greeting"}, Want: "Ada"}, false, `"Hello, there"`},
			{expectation{What: "title", Want: "Fixture"}, true, ""},
			{expectation{What: "url", Want: "*/fixture.html"}, true, ""},
			{expectation{What: "count", Spec: &spec{CSS: "button.b"}, Count: 2}, true, ""},
			{expectation{What: "count", Spec: &spec{CSS: "button.b"}, Count: 0}, false, "2 matching"},
			{expectation{What: "count", Spec: &spec{CSS: "#hidden, #plain", Visible: true}, Count: 1}, true, ""},
			{expectation{What: "enabled", Spec: &spec{CSS: "#plain"}}, true, ""},
			{expectation{What: "disabled", Spec: &spec{CSS: "#in-fieldset"}}, true, ""},
			{expectation{What: "editable", Spec: &spec{CSS: "#name"}}, true, ""},
			{expectation{What: "editable", Spec: &spec{CSS: "#plain"}}, false, `<button id="plain" class="box b">Plain</button>, not a form field or editable element`},
			{expectation{What: "focused", Spec: &spec{CSS: "#plain"}}, false, "the focus is on <body>…</body>"},
			{expectation{What: "attribute", Spec: &spec{CSS: "#name"}, Attr: "placeholder", Want: "Type your name", HasValue: true}, true, ""},
			{expectation{What: "attribute", Spec: &spec{CSS: "#name"}, Attr: "placeholder", Want: "Type", HasValue: true}, false, `placeholder="Type your name"`},
			{expectation{What: "attribute", Spec: &spec{CSS: "#disabled"}, Attr: "disabled"}, true, ""},
			{expectation{What: "attribute", Spec: &spec{CSS: "#plain"}, Attr: "disabled"}, false, "no attribute disabled"},
		} {
			o := call[observation](t, tab, h, "observe", c.x)
			if o.OK != c.ok || (!c.ok && o.Seen != c.seen) {
				t.Errorf("observe %+v = %+v, want ok %v seen %q", c.x, o, c.ok, c.seen)
			}
		}
		if o := call[observation](t, tab, h, "observe", expectation{What: "enabled", Spec: &spec{CSS: "button.b"}}); o.Ambiguous != 2 {
			t.Errorf("a condition on one element of two: %+v", o)
		}
		// A field's value and a control's state are read in the page's
		// own world.
		for _, c := range []struct {
			e scripts.Expect
			o observation
		}{
			{scripts.Expect{What: scripts.ExpectValue, Target: &scripts.Target{CSS: "#name"}, Want: "Ada"}, observation{OK: true, Seen: `"Ada"`}},
			{scripts.Expect{What: scripts.ExpectValue, Target: &scripts.Target{CSS: "#name"}}, observation{Seen: `"Ada"`}},
			{scripts.Expect{What: scripts.ExpectValue, Target: &scripts.Target{CSS: "#nothing"}}, observation{Seen: "no element"}},
			{scripts.Expect{What: scripts.ExpectChecked, Target: &scripts.Target{CSS: "#agree"}}, observation{OK: true, Seen: "checked"}},
			{scripts.Expect{What: scripts.ExpectUnchecked, Target: &scripts.Target{CSS: "#agree"}}, observation{Seen: "checked"}},
			{scripts.Expect{What: scripts.ExpectChecked, Target: &scripts.Target{CSS: "#plain"}}, observation{Seen: "an element that is not a checkbox or radio button"}},
		} {
			cc, cancel := context.WithTimeout(tab, 30*time.Second)
			o, err := observeControl(cc, tb, c.e)
			cancel()
			if err != nil || o != c.o {
				t.Errorf("%s of %s, want %q: %+v, %v", c.e.What, c.e.Target, c.e.Want, o, err)
			}
		}
	})

	t.Run("forms", func(t *testing.T) {
		d := tb.mainDoc()
		onEl := func(css, name string, args ...any) string {
			c, cancel := context.WithTimeout(tab, 30*time.Second)
			defer cancel()
			v, err := callOnElement[string](c, d, scripts.Target{CSS: css}, name, args...)
			if err != nil {
				t.Fatalf("%s on %s: %v", name, css, err)
			}
			return v
		}
		if msg := onEl("#name", "fill", ""); msg != "input" {
			t.Errorf("fill a text field: %s", msg)
		}
		if msg := onEl("#greeting", "fill", "x"); !strings.Contains(msg, "not an <input>, <textarea> or [contenteditable]") {
			t.Errorf("fill a paragraph: %q", msg)
		}
		if msg := onEl("#agree", "fill", "x"); msg != "error: an input of type checkbox cannot be filled; use check or uncheck" {
			t.Errorf("fill a checkbox: %q", msg)
		}
		// A custom element's own value property, defined by the page's
		// class, is what fill sets and value reads.
		if msg := onEl("#fancy", "fill", "Grace"); msg != "done" {
			t.Errorf("fill a custom field: %s", msg)
		}
		if v := onEl("#fancy", "value"); v != "Grace" {
			t.Errorf("the custom field's value is %q", v)
		}
		choose := func(args ...any) chosen {
			c, cancel := context.WithTimeout(tab, 30*time.Second)
			defer cancel()
			v, err := callOnElement[chosen](c, d, scripts.Target{CSS: "#colour"}, "choose", args...)
			if err != nil {
				t.Fatalf("choose %v: %v", args, err)
			}
			return v
		}
		if c := choose([]string{"Green"}, nil, nil); !c.Done {
			t.Errorf("choose Green: %+v", c)
		}
		if c := choose(nil, []string{"r"}, nil); !c.Done {
			t.Errorf("choose value r: %+v", c)
		}
		if c := choose(nil, nil, 1); !c.Done {
			t.Errorf("choose index 1: %+v", c)
		}
		if c := choose([]string{"Blue"}, nil, nil); !strings.Contains(c.Wait, `options: "Red", "Green"`) {
			t.Errorf("choose a missing option: %+v", c)
		}
		if c := choose([]string{"Red", "Green"}, nil, nil); !strings.Contains(c.Error, "takes one option") {
			t.Errorf("choose two in a single select: %+v", c)
		}
		for css, want := range map[string]string{"#agree": "true", "#plain": "error", "#fancy-check": "true"} {
			if got := onEl(css, "checked"); got != want {
				t.Errorf("checked %s = %v", css, got)
			}
		}
		c, cancel := context.WithTimeout(tab, 30*time.Second)
		defer cancel()
		if _, err := callOnElement[string](c, d, scripts.Target{CSS: "#nothing"}, "checked"); !errors.Is(err, errGone) {
			t.Errorf("checked of a missing element: %v", err)
		}
		obj := call[*runtime.RemoteObject](t, tab, h, "control", css("#hidden"), nil)
		if obj == nil || obj.ObjectID == "" || obj.ClassName != "HTMLButtonElement" {
			t.Errorf("control: %+v", obj)
		}
	})

	t.Run("scroll", func(t *testing.T) {
		st := call[*scrollState](t, tab, h, "scrollState", nil, nil, css("#far"), nil)
		if st == nil || st.MaxY <= 0 {
			t.Fatalf("scrollState: %+v", st)
		}
		if !call[bool](t, tab, h, "scrollSettled", nil, nil) {
			t.Error("scrollSettled")
		}
		pane := call[*scrollState](t, tab, h, "scrollState", css("#pane"), nil, css("#deep"), nil)
		if pane == nil || pane.Y != 0 || pane.DY < 500 || pane.DY > 700 {
			t.Errorf("scrollState of #deep in #pane: %+v, want dy about 600 (from the pane's middle)", pane)
		}
		if gone := call[*scrollState](t, tab, h, "scrollState", css("#nothing"), nil, nil, nil); gone != nil {
			t.Errorf("scrollState of a missing scroller: %+v", gone)
		}
	})
}

// The helpers are installed once per document: calls reuse the world
// until the tab navigates, and the next document gets a world of its own.
func TestHelpersInstalledOncePerDocument(t *testing.T) {
	tab, tb, site := fixtureTab(t, "fixture.html")
	h := tb.helpers
	call[bool](t, tab, h, "hasText", "Fixture")
	first := h.world
	for range 5 {
		call[bool](t, tab, h, "hasText", "Fixture")
	}
	if h.world != first || first == "" {
		t.Fatalf("world %q after five calls, first %q", h.world, first)
	}
	if err := Navigate(tab, site+"/second.html"); err != nil {
		t.Fatal(err)
	}
	if d := call[docState](t, tab, h, "doc"); !strings.HasSuffix(d.URL, "/second.html") {
		t.Errorf("after navigating, doc = %+v", d)
	}
	if h.world == first {
		t.Error("the new document reused the old document's world")
	}
	// A world gone without the listener noticing is made anew on failure.
	h.mu.Lock()
	h.world = first
	h.mu.Unlock()
	if d := call[docState](t, tab, h, "doc"); !strings.HasSuffix(d.URL, "/second.html") {
		t.Errorf("with a stale world, doc = %+v", d)
	}
	// The page's own globals are not the helpers' (an isolated world).
	if v, err := chromedp.Run(tab, chromedp.Evaluate[bool]("typeof clapper === 'undefined'")); err != nil || !v {
		t.Errorf("the page sees clapper's helpers: %v %v", v, err)
	}
}
