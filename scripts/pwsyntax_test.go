package scripts

import (
	"strings"
	"testing"
)

// Playwright's own selector syntax is told apart from CSS, outside quoted
// values only, and each finding says the clapper target that means the
// same.
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
		{"#textarea", ""},
		{"section > .below", ""},
		{"p::first-line", ""},
		// Playwright's.
		{`button:has-text("Save")`, "{text: Save}"},
		{`button:text('Save')`, "{role: button, name: Save}"},
		{`li:text-is("Home")`, "{text: Home, exact: true}"},
		{"li:text-matches(/ho/i)", "not by a pattern"},
		{"li.item:visible", "{css: li.item, visible: true}"},
		{":visible", "{css: '*', visible: true}"},
		{":nth-match(li.x, 2)", "{css: li.x, nth: 1}"},
		{"input:right-of(#name)", "layout selector"},
		{"a:near(.b, 20)", "layout selector"},
		{"#menu >> .item", "one CSS selector ('#menu .item'"},
		{"text=Sign in", "{text: Sign in}"},
		{`text="Sign in"`, "{text: Sign in}"},
		{"css=.a .b", "write the selector alone: .a .b"},
		{"xpath=//a", "{xpath: //a}"},
		{"//button[@id='go']", `{xpath: "//button[@id='go']"}`},
		{"../p", "{xpath: ../p}"},
		{"id=main", `"#main"`},
		{"data-testid=avatar", "{testid: avatar}"},
		{`role=button[name="Save"]`, "{role: button, name: Save}"},
		{"role=checkbox", "{role: checkbox, name: ...}"},
		{`internal:label="Email"i`, "{label: ...}"},
		{"nth=2", "nth: 0"},
		{`"Log out"`, "{text: Log out}"},
	} {
		got := playwrightSyntax(c.css)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("playwrightSyntax(%q) = %q, want %q in it", c.css, got, c.want)
		}
	}
}
