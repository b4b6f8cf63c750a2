package main

import "testing"

func TestRenderEarly(t *testing.T) {
	for asked, want := range map[string]bool{"": true, "on": true, "off": false} {
		if got := renderEarly(asked); got != want {
			t.Errorf("renderEarly(%q) = %v, want %v", asked, got, want)
		}
	}
}
