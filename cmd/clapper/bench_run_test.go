package main

import (
	"fmt"
	"testing"
)

func TestBenchRunModes(t *testing.T) {
	for _, c := range []struct {
		captures []string
		settled  string
		want     string // the modes, or "error"
	}{
		{[]string{"live"}, "both", "[live, settled by frame live, settled by screenshot]"},
		{[]string{"live"}, "frame", "[live, settled by frame]"},
		{[]string{"studio"}, "both", "[studio]"},
		{[]string{"live", "studio"}, "screenshot", "[live, settled by screenshot studio]"},
		{[]string{"studio", "live"}, "both", "[studio live, settled by frame live, settled by screenshot]"},
		{[]string{"live"}, "never", "error"},
	} {
		got, err := benchRunModes(c.captures, c.settled)
		s := fmt.Sprint(got)
		if err != nil {
			s = "error"
		}
		if s != c.want {
			t.Errorf("benchRunModes(%v, %q) = %s, want %s", c.captures, c.settled, s, c.want)
		}
	}
}
