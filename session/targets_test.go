package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// verdict over every combination of what a probe saw and what a step
// needs: a check a step needs and the element fails is named, in a fixed
// order; a check it does not need never stops it.
func TestVerdictExhaustive(t *testing.T) {
	box := &timeline.Rect{W: 10, H: 10}
	one, nth := scripts.Target{CSS: "#a"}, 1
	for mask := 0; mask < 1<<5; mask++ {
		p := probe{Count: 1, Box: box, Visible: mask&1 != 0, Stable: mask&2 != 0, Enabled: mask&4 != 0, Receives: mask&8 != 0, InViewport: mask&16 != 0, Hit: "div#cover"}
		for _, n := range []needs{forPointer, forHover, forField, forLook, forUpload} {
			want := ""
			switch {
			case n.Visible && !p.Visible:
				want = "failed check visible"
			case n.Visible && !p.Stable:
				want = "failed check stable"
			case n.Enabled && !p.Enabled:
				want = "failed check enabled"
			case n.Hit && !p.InViewport:
				want = "failed check in viewport"
			case n.Hit && !p.Receives:
				want = "failed check receives pointer: div#cover covers"
			}
			ok, failed, final := verdict(p, n, one)
			if final != nil || ok != (want == "") || !strings.HasPrefix(failed, want) || (want == "") != (failed == "") {
				t.Errorf("probe %+v, needs %+v: %v %q %v, want %q", p, n, ok, failed, final, want)
			}
		}
	}
	if ok, failed, _ := verdict(probe{Count: 0}, forUpload, one); ok || !strings.HasPrefix(failed, "failed check attached") {
		t.Errorf("nothing matches: %v %q", ok, failed)
	}
	_, _, final := verdict(probe{Count: 3}, forLook, one)
	if !errors.Is(final, ErrAmbiguous) || !strings.Contains(final.Error(), "matches 3 elements") {
		t.Errorf("three matches without nth: %v", final)
	}
	picked := scripts.Target{CSS: "#a", Nth: &nth}
	if ok, _, final := verdict(probe{Count: 3, Box: box, Visible: true, Stable: true, Enabled: true, Receives: true, InViewport: true}, forPointer, picked); !ok || final != nil {
		t.Errorf("three matches with nth: %v %v", ok, final)
	}
}
