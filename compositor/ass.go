package compositor

import (
	"fmt"
	"strings"
	"time"
)

// The cursor arrow in CSS pixels, tip (the hotspot) at 0,0: libass aligns a
// drawing's top-left corner (\an7) to \pos, so the tip lands exactly on the
// commanded point.
const arrowPath = "m 0 0 l 0 16.5 4.2 12.6 7 18.9 9.8 17.7 7.1 11.7 12.6 11.7"

// rippleRadius is the radius of the click ripple at full size, in CSS px, and
// rippleDuration how long it lasts.
const (
	rippleRadius   = 22.0
	rippleDuration = 450 * time.Millisecond
)

// assTime formats an output time as ASS h:mm:ss.cc, to the nearest
// centisecond.
func assTime(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	cs := (int64(d) + 5e6) / 1e7
	return fmt.Sprintf("%d:%02d:%02d.%02d", cs/360000, cs/6000%60, cs/100%60, cs%100)
}

// tickBoundary returns the output time half a frame before tick k, where an
// event that starts showing at tick k begins (0 for tick 0). Rounding it to a
// centisecond stays between two ticks at any rate up to 60 fps.
func tickBoundary(s *Schedule, k int) time.Duration {
	if k <= 0 {
		return 0
	}
	return time.Duration(int64(k)*second/s.fps - second/(2*s.fps))
}

// circlePath is a circle of radius r centred on 0,0, as an ASS drawing.
func circlePath(r float64) string {
	// libass aligns a drawing by the box from its origin to its largest
	// coordinates, so the circle is drawn in [0, 2r], centred on (r, r):
	// with alignment 5 its centre then lands on \pos.
	const k = 0.5523 // Bézier circle constant
	c := r * k
	f := func(v float64) string { return trimFloat(v + r) }
	// Four Bézier quarters around the centre, as (x, y) pairs.
	pts := [][2]float64{
		{0, -r},
		{c, -r}, {r, -c}, {r, 0},
		{r, c}, {c, r}, {0, r},
		{-c, r}, {-r, c}, {-r, 0},
		{-r, -c}, {-c, -r}, {0, -r},
	}
	var b strings.Builder
	for i, p := range pts {
		switch {
		case i == 0:
			b.WriteString("m ")
		case i%3 == 1:
			b.WriteString(" b ")
		default:
			b.WriteString(" ")
		}
		b.WriteString(f(p[0]) + " " + f(p[1]))
	}
	return b.String()
}

// trimFloat formats v with at most two decimals and no trailing zeros.
func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}
