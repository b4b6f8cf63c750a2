package timeline

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Printable returns s with every control character a terminal would act
// on written visibly instead: C0 controls but newline and tab as \x1b,
// DEL as \x7f, C1 controls as \u009b, and bytes that are not UTF-8 as
// \xff. Text from a page or a take (console messages, titles, URLs,
// errors) passes through it before it reaches a terminal, so that
// escape sequences in it (clear the screen, set the title, write the
// clipboard) are shown, not obeyed. Pure.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError
}

// PrintableWriter escapes, visibly, the control characters of what is
// written to W (Printable): for output made of text from pages and takes,
// which must never drive the terminal. Each Write is escaped whole, so a
// caller writes whole strings (fmt's Fprint functions do).
type PrintableWriter struct{ W io.Writer }

func (p PrintableWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.W, Printable(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
