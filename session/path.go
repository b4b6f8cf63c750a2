package session

import (
	"math"
	"time"
)

// PathPoint is one pointer position along a path, at an offset from the
// start of the movement.
type PathPoint struct {
	X, Y float64
	At   time.Duration
}

// PointerPath plans a natural pointer movement from (x0,y0) to (x1,y1):
// duration grows with distance at speed CSS px/s (with Fitts-like bounds of
// 120 ms to 1.2 s), positions follow an ease-in-out curve with a slight arc,
// and one point is emitted per tick (60 Hz), ending exactly on the target.
// Pure; deterministic.
func PointerPath(x0, y0, x1, y1, speed float64, tick time.Duration) []PathPoint {
	dx, dy := x1-x0, y1-y0
	dist := math.Hypot(dx, dy)
	if dist < 0.5 {
		return []PathPoint{{X: x1, Y: y1}}
	}
	if speed <= 0 {
		speed = 1400
	}
	if tick <= 0 {
		tick = paceSlot
	}
	dur := time.Duration(dist / speed * float64(time.Second))
	dur = max(120*time.Millisecond, min(dur, 1200*time.Millisecond))
	n := max(1, int(math.Ceil(float64(dur)/float64(tick))))
	// A gentle arc: offset perpendicular to the line, peaking mid-way at
	// 6% of the distance (at most 40 px).
	arc := math.Min(dist*0.06, 40)
	px, py := -dy/dist, dx/dist
	pts := make([]PathPoint, 0, n)
	for i := 1; i <= n; i++ {
		u := float64(i) / float64(n)
		e := easeInOut(u)
		bow := arc * math.Sin(math.Pi*e)
		pts = append(pts, PathPoint{
			X:  x0 + dx*e + px*bow,
			Y:  y0 + dy*e + py*bow,
			At: time.Duration(u * float64(dur)),
		})
	}
	pts[len(pts)-1].X, pts[len(pts)-1].Y = x1, y1
	return pts
}

// easeInOut is a cubic ease-in-out on [0,1].
func easeInOut(u float64) float64 {
	if u < 0.5 {
		return 4 * u * u * u
	}
	v := -2*u + 2
	return 1 - v*v*v/2
}
