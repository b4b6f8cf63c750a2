package scripts

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"sort"
	"strings"
)

// masker replaces secret values, in each form they can take where a run
// writes them, with Masked. Its zero value masks nothing.
type masker struct {
	forms []string // every form of every value, longest first
	r     *strings.Replacer
}

// newMasker builds the masker of a script's secret values.
func newMasker(values []string) masker {
	seen := map[string]bool{}
	var forms []string
	for _, v := range values {
		for _, f := range secretForms(v) {
			if f != "" && !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	// Longer forms first, so that a value containing another is masked
	// whole (strings.Replacer tries its pairs in order at each position).
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	if len(forms) == 0 {
		return masker{}
	}
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Masked)
	}
	return masker{forms: forms, r: strings.NewReplacer(pairs...)}
}

// secretForms are the ways a value shows in what a run writes: as it is,
// in a URL's query and path, escaped for HTML, and inside a JSON string
// (with and without HTML-safe escaping).
func secretForms(v string) []string {
	forms := []string{v, url.QueryEscape(v), url.PathEscape(v), html.EscapeString(v),
		// As a browser writes it in the address it navigated to.
		percentEncode(v, urlQuerySet), percentEncode(v, urlPathSet), percentEncode(v, urlFragmentSet)}
	for _, escapeHTML := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escapeHTML)
		if enc.Encode(v) == nil {
			forms = append(forms, strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(b.String(), `"`), "\n"), `"`))
		}
	}
	return forms
}

func (m masker) mask(s string) string {
	if m.r == nil {
		return s
	}
	return m.r.Replace(s)
}

// The characters a browser percent-encodes in each part of an address it
// commits (the URL standard's encode sets), besides controls and non-ASCII.
const (
	urlQuerySet    = " \"#<>'"
	urlPathSet     = " \"#<>?`{}"
	urlFragmentSet = " \"<>`"
)

// percentEncode writes v as a browser does in an address: each byte that
// is a control, not ASCII, or in set as %XX with upper-case hex.
func percentEncode(v, set string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte(set, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
