package scripts

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Every encoding a secret can take in a URL, in HTML and in JSON is
// masked, each tried with a value that needs it.
func TestMaskEveryEncoding(t *testing.T) {
	const v = `Zq/9!x~K*m(7) é<&>"'`
	m := newMasker([]string{v})
	cases := map[string]string{
		"encodeURIComponent":     `Zq%2F9!x~K*m(7)%20%C3%A9%3C%26%3E%22'`,
		"encodeURIComponent, lc": `Zq%2f9!x~K*m(7)%20%c3%a9%3c%26%3e%22'`,
		"encodeURI":              `Zq/9!x~K*m(7)%20%C3%A9%3C&%3E%22'`,
		"form with +":            `Zq%2F9%21x%7EK*m%287%29+%C3%A9%3C%26%3E%22%27`,
		"form with %20":          `Zq%2F9%21x%7EK*m%287%29%20%C3%A9%3C%26%3E%22%27`,
		"Go's query escape":      `Zq%2F9%21x~K%2Am%287%29+%C3%A9%3C%26%3E%22%27`,
		"HTML named":             `Zq/9!x~K*m(7) é&lt;&amp;&gt;&#34;&#39;`,
		"HTML decimal":           `Zq/9!x~K*m(7) é&#60;&#38;&#62;&#34;&#39;`,
		"HTML hex":               `Zq/9!x~K*m(7) é&#x3c;&#x26;&#x3e;&#x22;&#x27;`,
		"JSON":                   `Zq/9!x~K*m(7) é\u003c\u0026\u003e\"'`,
		"JSON, not HTML-safe":    `Zq/9!x~K*m(7) é<&>\"'`,
		"JSON, slash escaped":    `Zq\/9!x~K*m(7) é<&>\"'`,
		"JSON, ASCII only":       `Zq/9!x~K*m(7) \u00e9\u003c\u0026\u003e\"\u0027`,
		"base64":                 base64.StdEncoding.EncodeToString([]byte(v)),
		"base64url, unpadded":    base64.RawURLEncoding.EncodeToString([]byte(v)),
	}
	for name, form := range cases {
		in := "before " + form + " after"
		if got := m.mask(in); got != "before "+Masked+" after" {
			t.Errorf("%s: %q masked as %q", name, form, got)
		}
	}
	// Basic auth: the password's base64 inside user:password's.
	basic := base64.StdEncoding.EncodeToString([]byte("al:" + v))
	if got := m.mask("Authorization: Basic " + basic); strings.Contains(got, basic[8:len(basic)-8]) {
		t.Errorf("basic auth: %q", got)
	}
	// Ordinary text is left alone.
	if got := m.mask("nothing secret here, (7) ~K"); got != "nothing secret here, (7) ~K" {
		t.Errorf("ordinary text masked: %q", got)
	}
}
