package film

import "testing"

func TestRenderEarly(t *testing.T) {
	for asked, want := range map[string]bool{"": true, "on": true, "off": false} {
		if got := RenderEarly(asked); got != want {
			t.Errorf("RenderEarly(%q) = %v, want %v", asked, got, want)
		}
	}
}
