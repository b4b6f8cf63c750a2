package compositor

import (
	"bufio"
	"fmt"
	"io"
	"math"
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
	const k = 0.5523 // Bézier circle constant
	c := r * k
	f := func(v float64) string { return trimFloat(v) }
	return fmt.Sprintf("m 0 %s b %s %s %s %s %s 0 b %s %s %s %s 0 %s b %s %s %s %s %s 0 b %s %s %s %s 0 %s",
		f(-r),
		f(c), f(-r), f(r), f(-c), f(r),
		f(r), f(c), f(c), f(r), f(r),
		f(-c), f(r), f(-r), f(c), f(-r),
		f(-r), f(-c), f(-c), f(-r), f(-r))
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

// overlayInput is everything the overlay script is drawn from.
type overlayInput struct {
	Schedule *Schedule
	Geometry Geometry
	Cursor   CursorSettings
	Track    *CursorTrack
}

// writeOverlay writes the ASS script that draws the overlays. It streams:
// consecutive ticks that show the same cursor share one event, and memory does
// not grow with the take's length.
func writeOverlay(w io.Writer, in overlayInput) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	g := in.Geometry
	ppc := g.PixelsPerCSS() * in.Cursor.Size
	fmt.Fprintf(bw, "[Script Info]\nScriptType: v4.00+\nPlayResX: %d\nPlayResY: %d\nWrapStyle: 2\nScaledBorderAndShadow: yes\n\n", g.OutW, g.OutH)
	bw.WriteString("[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n")
	scale := trimFloat(100 * ppc)
	fmt.Fprintf(bw, "Style: Cursor,DejaVu Sans,20,&H00202020,&H00202020,&H00FFFFFF,&H00000000,0,0,0,0,%s,%s,0,0,1,%s,0,7,0,0,0,1\n",
		scale, scale, trimFloat(math.Max(1, 1.25*ppc)))
	fmt.Fprintf(bw, "Style: Ripple,DejaVu Sans,20,&H60E0A040,&H60E0A040,&H20FFFFFF,&H00000000,0,0,0,0,100,100,0,0,1,%s,0,5,0,0,0,1\n",
		trimFloat(math.Max(1, 1.5*g.PixelsPerCSS()*in.Cursor.Size)))
	bw.WriteString("\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")

	s := in.Schedule
	if in.Cursor.Enabled && in.Track != nil {
		if in.Cursor.Click {
			circle := circlePath(rippleRadius * ppc)
			for _, c := range in.Track.Clicks() {
				if s.Cut(c.At) {
					continue
				}
				o := s.OutputTime(c.At)
				x, y := g.Point(c.X, c.Y)
				fmt.Fprintf(bw, "Dialogue: 0,%s,%s,Ripple,,0,0,0,,{\\pos(%s,%s)\\fscx15\\fscy15\\t(0,%d,0.6,\\fscx100\\fscy100\\alpha&HFF&)\\p1}%s{\\p0}\n",
					assTime(o), assTime(o+rippleDuration), trimFloat(x), trimFloat(y),
					rippleDuration.Milliseconds(), circle)
			}
		}
		type shown struct {
			vis  bool
			x, y float64
		}
		var cur shown
		first := 0
		emit := func(end int) {
			if !cur.vis || end <= first {
				return
			}
			fmt.Fprintf(bw, "Dialogue: 1,%s,%s,Cursor,,0,0,0,,{\\pos(%s,%s)\\p1}%s{\\p0}\n",
				assTime(tickBoundary(s, first)), assTime(tickBoundary(s, end)),
				trimFloat(cur.x), trimFloat(cur.y), arrowPath)
		}
		for k := 0; k < s.Ticks(); k++ {
			st := in.Track.At(s.TakeTime(k))
			var now shown
			if st.Visible {
				x, y := g.Point(st.X, st.Y)
				now = shown{true, math.Round(x*10) / 10, math.Round(y*10) / 10}
			}
			if k == 0 {
				cur = now
				continue
			}
			if now != cur {
				emit(k)
				cur, first = now, k
			}
		}
		emit(s.Ticks())
	}
	return bw.Flush()
}
