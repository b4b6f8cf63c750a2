package leases

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSelector(t *testing.T) {
	good := map[string]Selector{
		"active":                           {Kind: "active"},
		"index:0":                          {Kind: "index"},
		"index:3":                          {Kind: "index", Index: 3},
		"url:/dash":                        {Kind: "url", Text: "/dash"},
		"url:a:b":                          {Kind: "url", Text: "a:b"},
		"title:Inbox":                      {Kind: "title", Text: "Inbox"},
		"0123456789abcdef0123456789ABCDEF": {Kind: "id", Text: "0123456789ABCDEF0123456789ABCDEF"},
	}
	for in, want := range good {
		got, err := ParseSelector(in)
		if err != nil || got != want {
			t.Errorf("ParseSelector(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, _ := ParseSelector(got.String()); again != got {
			t.Errorf("%q does not read back: %q", in, got.String())
		}
	}
	for _, bad := range []string{"", "Active", "index:", "index:-1", "index:x", "url:", "title:", "first", "0123", "id:ABC"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("ParseSelector(%q) accepted", bad)
		}
	}
}

func TestPick(t *testing.T) {
	pages := []Page{
		{ID: "AAAA", URL: "https://app.test/inbox", Title: "Inbox"},
		{ID: "BBBB", URL: "https://app.test/dashboard", Title: "Dashboard"},
		{ID: "CCCC", URL: "about:blank", Title: ""},
	}
	cases := []struct{ sel, want, err string }{
		{"active", "AAAA", ""},
		{"index:1", "BBBB", ""},
		{"index:3", "", "no open tab"},
		{"url:/dash", "BBBB", ""},
		{"url:app.test", "", "matches 2 tabs"},
		{"title:Inbox", "AAAA", ""},
		{"title:Nothing", "", "no open tab"},
	}
	for _, c := range cases {
		sel, err := ParseSelector(c.sel)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Pick(pages, sel)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Pick(%s) = %+v, %v; want error %q", c.sel, p, err, c.err)
			}
			continue
		}
		if err != nil || p.ID != c.want {
			t.Errorf("Pick(%s) = %+v, %v; want %s", c.sel, p, err, c.want)
		}
	}
	p, err := Pick(pages, Selector{Kind: "id", Text: "bbbb"})
	if err != nil || p.ID != "BBBB" {
		t.Errorf("Pick(id) = %+v, %v", p, err)
	}
	var none *NoTabError
	if _, err := Pick(nil, Selector{Kind: "active"}); !errors.As(err, &none) {
		t.Errorf("Pick on no pages: %v, want a NoTabError", err)
	}
}
