package timeline

import "testing"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode\nand\ttabs": "plain text, ünïcode\nand\ttabs",
		"\x1b[2Jcleared":                 `\x1b[2Jcleared`,
		"\x1b]0;title\x07":               `\x1b]0;title\x07`,
		"\x1b]52;c;ZXZpbA==\x07":         `\x1b]52;c;ZXZpbA==\x07`,
		"\u009b31m C1":                   `\u009b31m C1`,
		"bad \xff byte\r\x7f":            `bad \xff byte\x0d\x7f`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
