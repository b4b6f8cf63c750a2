package leases

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Selector names a tab that is open: "active" (the page the browser lists
// first, the one in front), "index:N" (from 0, in the browser's order),
// "url:<substring>", "title:<substring>", or a target id.
type Selector struct {
	Kind  string // active, index, url, title, id
	Index int
	Text  string
}

func (s Selector) String() string {
	switch s.Kind {
	case "active":
		return "active"
	case "index":
		return "index:" + strconv.Itoa(s.Index)
	case "id":
		return s.Text
	}
	return s.Kind + ":" + s.Text
}

// targetIDRE matches Chromium's target ids (32 hex digits).
var targetIDRE = regexp.MustCompile(`^[0-9A-Fa-f]{32}$`)

// ParseSelector reads a tab selector; the error says which forms there
// are.
func ParseSelector(s string) (Selector, error) {
	kind, rest, has := strings.Cut(s, ":")
	switch {
	case s == "active":
		return Selector{Kind: "active"}, nil
	case has && kind == "index":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			return Selector{}, fmt.Errorf("tab selector %q: index:N takes a number from 0", s)
		}
		return Selector{Kind: "index", Index: n}, nil
	case has && (kind == "url" || kind == "title"):
		if rest == "" {
			return Selector{}, fmt.Errorf("tab selector %q: say what the %s contains, like %s:/dashboard", s, kind, kind)
		}
		return Selector{Kind: kind, Text: rest}, nil
	case targetIDRE.MatchString(s):
		return Selector{Kind: "id", Text: strings.ToUpper(s)}, nil
	}
	return Selector{}, fmt.Errorf("tab selector %q: use active, index:N, url:<substring>, title:<substring> or a tab id (clapper leases lists them)", s)
}

// Pick finds the page sel names among pages, in the browser's order. A
// selector that matches nothing is an error, never a new tab; url: and
// title: matching several pages is an error too (say which).
func Pick(pages []Page, sel Selector) (Page, error) {
	var hits []Page
	for i, p := range pages {
		switch sel.Kind {
		case "active":
			if i == 0 {
				hits = append(hits, p)
			}
		case "index":
			if i == sel.Index {
				hits = append(hits, p)
			}
		case "url":
			if strings.Contains(p.URL, sel.Text) {
				hits = append(hits, p)
			}
		case "title":
			if strings.Contains(p.Title, sel.Text) {
				hits = append(hits, p)
			}
		case "id":
			if strings.EqualFold(p.ID, sel.Text) {
				hits = append(hits, p)
			}
		}
	}
	switch len(hits) {
	case 0:
		return Page{}, &NoTabError{Selector: sel.String(), Open: len(pages)}
	case 1:
		return hits[0], nil
	}
	return Page{}, fmt.Errorf("tab selector %q matches %d tabs (%s, %s…): make it specific, or name the tab by id", sel, len(hits), hits[0].URL, hits[1].URL)
}

// NoTabError says a selector matched no open tab.
type NoTabError struct {
	Selector string
	Open     int
}

func (e *NoTabError) Error() string {
	return fmt.Sprintf("no open tab matches %q (%d tabs open; clapper leases lists them): clapper never opens one in its place", e.Selector, e.Open)
}
