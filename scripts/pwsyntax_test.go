package scripts

import (
	"strings"
	"testing"
)

// Playwright's own selector syntax is told apart from CSS, outside quoted
// values and comments only, and each finding says the clapper target that
// means the same, or that clapper has none.
func TestPlaywrightSyntax(t *testing.T) {
	for _, c := range []struct{ css, want string }{
		// CSS, however it looks: nothing to say.
		{"button.primary", ""},
		{`a[href="text=Save"]`, ""},
		{`[title="a >> b"]`, ""},
		{`[data-x=':visible']`, ""},
		{"a:visited", ""},
		{"li:nth-child(2 of .x)", ""},
		{"div:has(> p):is(.a, .b)", ""},
		{"input:not(:checked)", ""},
		{`.a\:visible`, ""}, // an escaped colon: the class "a:visible"
		{`#a\>\>b`, ""},
		{"#textarea", ""},
		{"section > .below", ""},
		{"p::first-line", ""},
		{"svg|text", ""},
		{"text-field:hover", ""},
		{"internal:hover", ""}, // a type selector "internal"
		{"div /* a >> b */ p", ""},
		{"div /* it's */ p", ""},
		// Playwright's.
		{`button:has-text("Save")`, `{text: Save} (the innermost element holding the text), or by role and name, {role: button, name: Save}`},
		{`li.x:has-text("Home")`, "not by CSS and text together"},
		{`li:has-text("Home")`, "{role: listitem, name: Home}"},
		{`li:text-is("Home")`, "{text: Home, exact: true}"},
		{"li:text-matches(/ho/i)", "not by a pattern"},
		{"li.item:visible", `{css: li.item, visible: true}`},
		{":visible", `{css: "*", visible: true}`},
		{".a :visible", "keeps the visible matches of its selector"},
		{"li:visible > a", "keeps the visible matches of its selector"},
		{"a:visible, b", "keeps the visible matches of its selector"},
		{":nth-match(li.x, 2)", "{css: li.x, nth: 1}"},
		{":nth-match(li:nth-child(2n), 3)", `{css: "li:nth-child(2n)", nth: 2}`},
		{"input:right-of(#name)", "layout selector"},
		{"a:near(.b, 20)", "layout selector"},
		{"#menu >> .item", `one CSS selector, "#menu .item"`},
		{"li >> nth=2", "{css: li, nth: 2}"},
		{"li >> visible=true", "{css: li, visible: true}"},
		{"text=Save >> nth=1", "{text: Save, nth: 1}"},
		{`"Log out" >> nth=0`, "{text: Log out, exact: true, nth: 0}"},
		{"css=.a >> text=b", "one target map"},
		{`div[title="a >> b"] >> span`, `"div[title=\"a >> b\"] span"`},
		{"text=Sign in", "{text: Sign in}"},
		{`text="Sign in"`, "{text: Sign in, exact: true}"},
		{`"Log out"`, "{text: Log out, exact: true}"},
		{`text=/sign\s+in/i`, "not by a pattern"},
		{"text=- item", `{text: "- item"}`},
		{"text=null", `{text: "null"}`},
		{"css=.a .b", `says it: ".a .b"`},
		{"*css=article", "says it: article"},
		{"xpath=//a", `{xpath: "//a"}`},
		{"//button[@id='go']", `{xpath: "//button[@id='go']"}`},
		{"(//button)[2]", `{xpath: "(//button)[2]"}`},
		{"../p", "starts at the document"},
		{"id=main", `"#main"`},
		{`id="main"`, `"#main"`},
		{"id=1abc", `"[id=\"1abc\"]"`},
		{"data-testid=avatar", "{testid: avatar}"},
		{"data-test=foo", `"[data-test=\"foo\"]"`},
		{`role=button[name="Save"]`, "{role: button, name: Save}"},
		{`role=button[name="Save" s]`, "{role: button, name: Save, exact: true}"},
		{"role=button[name=/save/i]", "not by a pattern"},
		{"role=heading[level=2]", "take a name only"},
		{"role=checkbox", "{role: checkbox}"},
		{`internal:label="Email"i`, "{label: Email}"},
		{`internal:text="Save"s`, "{text: Save, exact: true}"},
		{`internal:role=button[name="Save"i]`, "{role: button, name: Save}"},
		{`internal:testid=[data-testid="nav"s]`, "{testid: nav}"},
		{`internal:attr=[placeholder="Email"i]`, "{placeholder: Email}"},
		{"nth=2", "nth: 2"},
		{"nth=-1", "none from the last"},
		{"visible=false", "no filter for hidden ones"},
		{"_react=App", "which clapper does not have"},
		{"aria-ref=e12", "which clapper does not have"},
		{"text:light=Hi", "{text: Hi}"},
		// What a target map cannot say the same way gets no target.
		{`.card:has-text("Save") button`, "not by CSS and text together"},
		{`li:text-is("Home") > a`, "not by CSS and text together"},
		{`.card:has-text("Save")`, "not by CSS and text together"},
		{"p:text", "not by CSS and text together"},
		{"internal:text=/Save/i", "not by a pattern"},
		{"internal:label=/Email/", "not by a pattern"},
		{`button:has-text("Save") >> nth=1`, "one target map"},
		{`id=a"b`, `"[id=\"a\\\"b\"]"`},
		{`role=button[name="a[1]"]`, `{role: button, name: "a[1]"}`},
		{"a >> ", "write the selector alone: a"},
		{"li >> nth=1 >> visible=true", "one target map"},
		{"li >> visible=true >> nth=1", "{css: li, visible: true, nth: 1}"},
	} {
		got := playwrightSyntax(c.css)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("playwrightSyntax(%q) = %q, want %q in it", c.css, got, c.want)
		}
	}
}
