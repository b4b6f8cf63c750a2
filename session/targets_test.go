package session

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/dom"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// verdict over every combination of what a probe saw and what a step
// needs: a check a step needs and the element fails is named, in a fixed
// order; a check it does not need never stops it.
func TestVerdictExhaustive(t *testing.T) {
	box := &timeline.Rect{W: 10, H: 10}
	one, nth := scripts.Target{CSS: "#a"}, 1
	for mask := 0; mask < 1<<6; mask++ {
		p := probe{Count: 1, Box: box, Visible: mask&1 != 0, Stable: mask&2 != 0, Enabled: mask&4 != 0,
			Shows: mask&8 != 0, Field: mask&16 != 0, Editable: mask&32 != 0}
		for _, n := range []needs{forPointer, forTyping, forHover, forField, forSelect, forLook, forUpload} {
			want := ""
			switch {
			case n.Visible && !p.Visible:
				want = "failed check visible"
			case n.Shows && !p.Shows:
				want = "failed check shows something"
			case n.Visible && !p.Stable:
				want = "failed check stable"
			case n.Enabled && !p.Enabled:
				want = "failed check enabled"
			case n.Editable && p.Field && !p.Editable:
				want = "failed check editable"
			}
			ok, failed, final := verdict(p, n, one, "")
			if final != nil || ok != (want == "") || !strings.HasPrefix(failed, want) || (want == "") != (failed == "") {
				t.Errorf("probe %+v, needs %+v: %v %q %v, want %q", p, n, ok, failed, final, want)
			}
		}
	}
	if ok, failed, _ := verdict(probe{Count: 0}, forUpload, one, ""); ok || !strings.HasPrefix(failed, "failed check attached") {
		t.Errorf("nothing matches: %v %q", ok, failed)
	}
	if _, failed, _ := verdict(probe{Count: 0}, forPointer, one, `the page has a button named "Save"`); failed != `failed check attached: no element matches; the page has a button named "Save"` {
		t.Errorf("nothing matches, something near: %q", failed)
	}
	if _, failed, _ := verdict(probe{Count: 1, Box: box}, forPointer, one, "stale"); strings.Contains(failed, "stale") {
		t.Errorf("a match is not told what is near: %q", failed)
	}
	_, _, final := verdict(probe{Count: 3}, forLook, one, "")
	if !errors.Is(final, ErrAmbiguous) || !strings.Contains(final.Error(), "matches 3 elements") {
		t.Errorf("three matches without nth: %v", final)
	}
	picked := scripts.Target{CSS: "#a", Nth: &nth}
	if ok, _, final := verdict(probe{Count: 3, Box: box, Visible: true, Stable: true, Enabled: true}, forPointer, picked, ""); !ok || final != nil {
		t.Errorf("three matches with nth: %v %v", ok, final)
	}
}

func rect(x, y, w, h float64) dom.Quad { return dom.Quad{x, y, x + w, y, x + w, y + h, x, y + h} }

// The clickable point is Playwright's: the middle of the first box that
// keeps more than a pixel of area inside the viewport, clamped to it.
func TestClickablePoint(t *testing.T) {
	const w, h = 800, 600
	for _, c := range []struct {
		name  string
		quads []dom.Quad
		x, y  float64
		ok    bool
	}{
		{"a box", []dom.Quad{rect(10, 20, 100, 40)}, 60, 40, true},
		{"a link wrapped over two lines: the first line", []dom.Quad{rect(700, 100, 100, 20), rect(0, 120, 60, 20)}, 750, 110, true},
		{"the first line above the viewport: the second", []dom.Quad{rect(10, -40, 100, 20), rect(10, 0, 100, 20)}, 60, 10, true},
		{"half out on the right: the part inside", []dom.Quad{rect(760, 10, 80, 20)}, 780, 20, true},
		{"centre exactly on the right edge", []dom.Quad{rect(780, 10, 40, 20)}, 790, 20, true},
		{"all outside", []dom.Quad{rect(810, 10, 40, 20)}, 0, 0, false},
		{"a one-pixel box", []dom.Quad{rect(20.23, 11.65, 1, 1)}, 20.73, 12.15, true},
		{"an empty box", []dom.Quad{rect(20, 10, 0, 10)}, 0, 0, false},
		{"no boxes", nil, 0, 0, false},
		{"a rotated square", []dom.Quad{{100, 50, 150, 100, 100, 150, 50, 100}}, 100, 100, true},
		{"a broken quad", []dom.Quad{{1, 2, 3}, rect(0, 0, 10, 10)}, 5, 5, true},
	} {
		x, y, ok := clickablePoint(c.quads, w, h)
		if ok != c.ok || math.Abs(x-c.x) > 0.011 || math.Abs(y-c.y) > 0.011 {
			t.Errorf("%s: (%v, %v) %v, want (%v, %v) %v", c.name, x, y, ok, c.x, c.y, c.ok)
		}
	}
	// Whatever the boxes, a point found is inside the viewport and inside
	// the first box with area in it.
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		var qs []dom.Quad
		for n := rng.Intn(4); n >= 0; n-- {
			qs = append(qs, rect(rng.Float64()*1200-200, rng.Float64()*900-150, rng.Float64()*300, rng.Float64()*100))
		}
		x, y, ok := clickablePoint(qs, w, h)
		if !ok {
			continue
		}
		if x < 0 || y < 0 || x > w || y > h {
			t.Fatalf("%v: (%v, %v) outside the viewport", qs, x, y)
		}
		inside := false
		for _, q := range qs {
			if x >= math.Max(q[0], 0)-0.01 && x <= math.Min(q[2], w) && y >= math.Max(q[1], 0)-0.01 && y <= math.Min(q[5], h) {
				inside = true
				break
			}
		}
		if !inside {
			t.Fatalf("%v: (%v, %v) in none of the boxes", qs, x, y)
		}
	}
}

// A point given with at is relative to the padding box's corner: the box
// plus its borders, as MouseEvent.offsetX counts.
func TestOffsetPoint(t *testing.T) {
	x, y := offsetPoint(timeline.Rect{X: 10, Y: 20, W: 100, H: 50}, point{8, 2}, scripts.Point{X: 20, Y: 10})
	if x != 38 || y != 32 {
		t.Errorf("(%v, %v), want (38, 32)", x, y)
	}
}

// The waits between looks: at once, then 20 ms, then every 50 ms (not
// Playwright's 500 ms: a video would show the wait).
func TestRetryWaits(t *testing.T) {
	want := []int{0, 20, 50, 50, 50, 50}
	for i, w := range want {
		if got := retryWaits(i).Milliseconds(); got != int64(w) {
			t.Errorf("wait %d: %d ms, want %d", i, got, w)
		}
	}
}

// What is near a target that matches nothing is looked for on the 3rd,
// 13th, 63rd and 313th looks only.
func TestNearLook(t *testing.T) {
	var got []int
	for n := 0; n < 2000; n++ {
		if nearLook(n) {
			got = append(got, n)
		}
	}
	if want := []int{2, 12, 62, 312, 1562}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("looks %v, want %v", got, want)
	}
}
