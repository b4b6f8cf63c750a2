package scripts

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
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
// percent-encoded with every set a page or a browser uses (the URL
// standard's, JavaScript's encodeURIComponent and encodeURI, form
// encoding with + for a space, Go's), in upper- and lower-case hex;
// escaped for HTML with named and numeric entities; inside a JSON string
// (HTML-safe or not, with / escaped or not, every non-ASCII character as
// \u escapes); and in base64 (standard and URL alphabets, padded or
// not, at each alignment inside a longer value, such as user:password
// in an Authorization header). The one masker of every encoding.
func secretForms(v string) []string {
	forms := []string{v, url.QueryEscape(v), url.PathEscape(v), html.EscapeString(v),
		strings.ReplaceAll(url.QueryEscape(v), "+", "%20")}
	for _, set := range []string{urlQuerySet, urlPathSet, urlFragmentSet, componentSet, uriSet, formSet} {
		for _, lower := range []bool{false, true} {
			forms = append(forms, percentEncode(v, set, lower))
			if set == formSet {
				forms = append(forms, strings.ReplaceAll(percentEncode(v, set, lower), "%20", "+"))
			}
		}
	}
	forms = append(forms, htmlEntities(v, false), htmlEntities(v, true))
	for _, escapeHTML := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escapeHTML)
		if enc.Encode(v) == nil {
			j := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(b.String(), `"`), "\n"), `"`)
			forms = append(forms, j, strings.ReplaceAll(j, "/", `\/`))
		}
	}
	forms = append(forms, jsonASCII(v, false), jsonASCII(v, true))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		forms = append(forms, enc.EncodeToString([]byte(v)), enc.WithPadding(base64.NoPadding).EncodeToString([]byte(v)))
		for k := 1; k <= 2; k++ {
			if core := base64Core(enc, v, k); len(core) >= 8 {
				forms = append(forms, core)
			}
		}
	}
	return forms
}

// base64Core is the part of the base64 of v, when v follows k bytes of
// something else, that depends on v's bytes only.
func base64Core(enc *base64.Encoding, v string, k int) string {
	b := make([]byte, k, k+len(v))
	e := enc.WithPadding(base64.NoPadding).EncodeToString(append(b, v...))
	from := (8*k + 5) / 6
	to := 8 * (k + len(v)) / 6
	if from >= to || to > len(e) {
		return ""
	}
	return e[from:to]
}

// htmlEntities writes v with each character HTML escapes as a numeric
// entity, decimal or hexadecimal.
func htmlEntities(v string, hex bool) string {
	var b strings.Builder
	for _, r := range v {
		if strings.ContainsRune(`<>&'"`, r) {
			if hex {
				fmt.Fprintf(&b, "&#x%x;", r)
			} else {
				fmt.Fprintf(&b, "&#%d;", r)
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// jsonASCII writes v as a JSON string body with every character outside
// printable ASCII, and the HTML-special ones, as \u escapes (as some
// encoders write).
func jsonASCII(v string, upper bool) string {
	var b strings.Builder
	format := `\u%04x`
	if upper {
		format = `\u%04X`
	}
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e || strings.ContainsRune("<>&'", r):
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, format, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
	// JavaScript's encodeURIComponent and encodeURI, and the form
	// encoding (URLSearchParams, a form's submission) before its space
	// becomes +: all printable ASCII but what each leaves alone.
	componentSet = " \"#$%&+,/:;<=>?@[\\]^`{|}"
	uriSet       = " \"%<>[\\]^`{|}"
	formSet      = " !\"#$%&'()+,/:;<=>?@[\\]^`{|}~"
)

// percentEncode writes v as a browser does in an address: each byte that
// is a control, not ASCII, or in set as %XX, with upper-case hex unless
// lower.
func percentEncode(v, set string, lower bool) string {
	var b strings.Builder
	format := "%%%02X"
	if lower {
		format = "%%%02x"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte(set, c) >= 0 {
			fmt.Fprintf(&b, format, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
