package scripts

import "testing"

func TestZZProbe(t *testing.T) {
	for _, s := range []string{
		// CSS that must pass
		"internal:hover", "internal", "INTERNAL:first-child", "text", "text:hover", "svg|text", "*|text.x",
		"a:is(:visible, .x)", "div /* a >> b */ p", "div /* it's */ p:visible", "p:nth-child(2 of :not(.x))",
		`.a\3A visible`, `[data-x=a\:visible]`, "text-field", "text-field:visible-x", "a:visited", "li:target-within",
		"::part(visible)", ":state(visible)", "x-near:hover", "above", "near", "p:lang(text)",
		`a[title='it"s >> x']`, "a:not(:visited)", `#a\>\>b`,
		// Playwright
		`text="Sign in"`, `"Log out"`, "text=/sign\\s+in/i", "text=Save >> nth=1", "li >> nth=2", "li >> visible=true",
		"css=.a >> text=b", "(//button)[2]", "( //a )[1]", "text:light=foo", "css:light=.a", "_react=BookItem", "_vue=book-item",
		"*css=article >> text=Hello", "id=1abc", `id="main"`, "data-test=foo", "data-test-id=foo",
		`role=heading[level=2]`, `role=button[name=/save/i]`, `role=button[name="Save" s]`, `role=checkbox[checked]`,
		`role=button[name="Save"][pressed]`,
		"text=true", "text=123", "data-testid=42", "text=null", "text=- item", "text=? x", "text=a # b",
		`.a :visible`, `li:visible > a`, `a:visible, b`, `:nth-match(li:nth-child(2n), 3)`, `:nth-match(li, 0)`,
		`div:has(:has-text("x"))`, `div[title="a >> b"] >> span`, `"Log out" >> nth=0`,
		"nth=2", "nth=-1", "visible=false", `internal:role=button[name="Save"i]`, `internal:text="Save"s`,
		`internal:control=enter-frame`, `li:has-text("a)b")`, `button:text("Save")`, `:text("it's")`,
		`text='it"s'`, `xpath=//a[@x="1"]`, "XPATH=//a", "Text=Foo", "text = Foo", `button:has-text(Save)`,
		`li:text-matches("x", "i")`, "li:VISIBLE", "id=main >> .x", "..", "./a", "xpath=..",
		"text=Save:", `text="a, b"`, "text=Sign in   ", `:has-text("Save") >> nth=0`,
	} {
		t.Logf("%-40q => %s", s, playwrightSyntax(s))
	}
}
