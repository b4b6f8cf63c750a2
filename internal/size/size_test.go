package size

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string][2]int{"1920x1080": {1920, 1080}, "640X480": {640, 480}, " 1 x 2 ": {1, 2}} {
		w, h, err := Parse(in)
		if err != nil || w != want[0] || h != want[1] {
			t.Errorf("Parse(%q) = %d, %d, %v", in, w, h, err)
		}
		if w, h, _ := Parse(format(want[0], want[1])); w != want[0] || h != want[1] {
			t.Errorf("format(%v) does not read back", want)
		}
	}
	for _, bad := range []string{"", "1920", "x1080", "1920x", "0x10", "10x0", "-5x5", "1920x1080x1", "axb", "1.5x2"} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	for in, want := range map[string]string{
		"99999999999999999999x1080":  "99999999999999999999 pixels is too large for a side",
		"1920x99999999999999999999":  "99999999999999999999 pixels is too large for a side",
		"1920x-99999999999999999999": "write WIDTHxHEIGHT",
	} {
		if _, _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want %q", in, err, want)
		}
	}
}
