package main

import (
	"testing"

	"github.com/clapper-dev/clapper/scripts"
)

func TestRenderEarly(t *testing.T) {
	for _, c := range []struct {
		asked, mode string
		want        bool
	}{
		{"", scripts.CaptureStudio, true},
		{"", scripts.CaptureLive, false},
		{"on", scripts.CaptureStudio, true},
		{"on", scripts.CaptureLive, true},
		{"off", scripts.CaptureStudio, false},
		{"off", scripts.CaptureLive, false},
	} {
		if got := renderEarly(c.asked, c.mode); got != c.want {
			t.Errorf("renderEarly(%q, %q) = %v, want %v", c.asked, c.mode, got, c.want)
		}
	}
}
