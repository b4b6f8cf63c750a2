package session

import (
	"math"
	"testing"
	"time"
)

func TestPointerPath(t *testing.T) {
	tick := time.Second / 60
	cases := []struct{ x0, y0, x1, y1, speed float64 }{
		{0, 0, 640, 360, 1400}, {640, 360, 0, 0, 1400}, {10, 10, 12, 11, 1400},
		{0, 0, 5000, 0, 1400}, {100, 100, 100, 400, 0}, {0, 0, 300, 300, 100000},
	}
	for _, c := range cases {
		pts := PointerPath(c.x0, c.y0, c.x1, c.y1, c.speed, tick)
		last := pts[len(pts)-1]
		if last.X != c.x1 || last.Y != c.y1 {
			t.Errorf("%v: ends at (%v,%v)", c, last.X, last.Y)
		}
		if d := last.At; d < 120*time.Millisecond || d > 1200*time.Millisecond {
			t.Errorf("%v: lasts %v, want 120ms..1.2s", c, d)
		}
		dist := math.Hypot(c.x1-c.x0, c.y1-c.y0)
		prev := time.Duration(0)
		prevProg := -1.0
		for _, p := range pts {
			if p.At <= prev && p != pts[0] {
				t.Fatalf("%v: time does not advance at %v", c, p)
			}
			prev = p.At
			// Progress along the line never goes back.
			prog := ((p.X-c.x0)*(c.x1-c.x0) + (p.Y-c.y0)*(c.y1-c.y0)) / (dist * dist)
			if prog < prevProg-1e-9 {
				t.Fatalf("%v: goes back at %v", c, p)
			}
			prevProg = prog
			// The arc stays within 40 px of the straight line.
			off := math.Abs((p.X-c.x0)*(c.y1-c.y0)-(p.Y-c.y0)*(c.x1-c.x0)) / dist
			if off > 40.001 {
				t.Fatalf("%v: %v px off the line", c, off)
			}
		}
	}
	if pts := PointerPath(5, 5, 5.2, 5.1, 1400, tick); len(pts) != 1 {
		t.Errorf("no movement should be one point, got %d", len(pts))
	}
}
