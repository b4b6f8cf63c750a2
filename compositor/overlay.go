package compositor

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// Cursor shapes in CSS pixels, each with the top-left of its bounding box at
// 0,0 (libass aligns a drawing's box with \an7) and its hotspot.
var cursorShapes = map[string]struct {
	path   string
	hx, hy float64
}{
	"arrow":   {arrowPath, 0, 0},
	"pointer": {"m 4 1.2 l 4.6 0.2 5.5 0 6.4 0.2 7 1.2 7 7.5 9.2 7.8 11.4 8.4 13 9.4 13.4 10.6 13.4 14 12.6 16.8 11 19 6 19 4.6 17.8 0.6 12.6 0 11.6 0.4 10.8 1.4 10.6 2.4 11.2 4 13", 5.5, 0},
	"text":    {"m 0 0 l 7 0 7 1.5 4.25 1.5 4.25 14.5 7 14.5 7 16 0 16 0 14.5 2.75 14.5 2.75 1.5 0 1.5", 3.5, 8},
}

// overlayInput is everything the overlay script is drawn from.
type overlayInput struct {
	Schedule *Schedule
	Geometry Geometry
	Cursor   CursorSettings
	Track    *CursorTrack
	// Hides are "cursor: hide" intervals.
	Hides []Segment
	// Zoom moves the cursor with the camera; nil for none.
	Zoom *ZoomTrack
	// Captions are burned in; Keys shown; URLs drawn in the browser bar.
	Captions []Caption
	Keys     []KeyPress
	URLs     []URLSpan
	// Corners, when set, are the colours that round the content's corners
	// with Radius.
	Corners *[4]color.RGBA
	Radius  int
}

// assRGB formats a colour for \1c: &HBBGGRR&.
func assRGB(c color.RGBA) string {
	return fmt.Sprintf("&H%02X%02X%02X&", c.B, c.G, c.R)
}

// assText makes page text safe in an ASS event: no override blocks, no
// escapes, one line.
func assText(s string) string {
	s = strings.NewReplacer("\\", "\\\u200b", "{", "\uff5b", "}", "\uff5d", "\r", " ", "\n", " ").Replace(s)
	return s
}

// span maps a take-clock interval to the ASS times of the output ticks that
// show it; ok is false when no tick does (e.g. it is cut).
func span(s *Schedule, a, b timeline.Time) (string, string, bool) {
	k0, k1 := s.TickOf(a), s.TickOf(b)
	if k1 <= k0 {
		return "", "", false
	}
	return assTime(tickBoundary(s, k0)), assTime(tickBoundary(s, k1)), true
}

// writeOverlay writes the ASS script that draws the overlays. It streams:
// consecutive ticks that show the same cursor share one event, and memory does
// not grow with the take's length.
func writeOverlay(w io.Writer, in overlayInput) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	g := in.Geometry
	s := in.Schedule
	ppc := g.PixelsPerCSS() * in.Cursor.Size
	fmt.Fprintf(bw, "[Script Info]\nScriptType: v4.00+\nPlayResX: %d\nPlayResY: %d\nWrapStyle: 2\nScaledBorderAndShadow: yes\n\n", g.OutW, g.OutH)
	bw.WriteString("[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n")
	scale := trimFloat(100 * ppc)
	fmt.Fprintf(bw, "Style: Cursor,DejaVu Sans,20,&H00202020,&H00202020,&H00FFFFFF,&H00000000,0,0,0,0,%s,%s,0,0,1,%s,0,7,0,0,0,1\n",
		scale, scale, trimFloat(math.Max(1, 1.25*ppc)))
	fmt.Fprintf(bw, "Style: Ripple,DejaVu Sans,20,&H60E0A040,&H60E0A040,&H20FFFFFF,&H00000000,0,0,0,0,100,100,0,0,1,%s,0,5,0,0,0,1\n",
		trimFloat(math.Max(1, 1.5*g.PixelsPerCSS()*in.Cursor.Size)))
	text := float64(g.OutH) * 0.042
	fmt.Fprintf(bw, "Style: Caption,DejaVu Sans,%s,&H00FFFFFF,&H00FFFFFF,&H50101010,&H00000000,0,0,0,0,100,100,0,0,3,%s,0,2,%d,%d,%d,1\n",
		trimFloat(text), trimFloat(text*0.35), g.OutW/10, g.OutW/10, int(float64(g.OutH)*0.06))
	fmt.Fprintf(bw, "Style: Keys,DejaVu Sans,%s,&H00FFFFFF,&H00FFFFFF,&H40202020,&H00000000,1,0,0,0,100,100,0,0,3,%s,0,3,%d,%d,%d,1\n",
		trimFloat(text*1.1), trimFloat(text*0.4), g.OutW/30, g.OutW/30, int(float64(g.OutH)*0.05))
	fmt.Fprintf(bw, "Style: URL,DejaVu Sans,%s,&H00505055,&H00505055,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,0,0,4,0,0,0,1\n",
		trimFloat(math.Max(8, float64(g.BarH)*0.36)))
	bw.WriteString("Style: Mask,DejaVu Sans,20,&H00000000,&H00000000,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,0,0,7,0,0,0,1\n")
	bw.WriteString("\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")

	whole := assTime(tickBoundary(s, s.Ticks()))
	if in.Corners != nil && in.Radius > 0 {
		writeCorners(bw, g, *in.Corners, float64(in.Radius), whole)
	}
	if g.BarH > 0 {
		fx, fy, fw, fh := g.urlField()
		for i, u := range in.URLs {
			end := timeline.Time(1<<62 - 1)
			if i+1 < len(in.URLs) {
				end = in.URLs[i+1].At
			}
			a, b, ok := span(s, u.At, end)
			if !ok {
				continue
			}
			if i == 0 {
				a = "0:00:00.00" // the first document's address from the start
			}
			fmt.Fprintf(bw, "Dialogue: 1,%s,%s,URL,,0,0,0,,{\\pos(%s,%s)\\clip(%d,%d,%d,%d)}%s\n", a, b,
				trimFloat(fx+fh*0.6), trimFloat(fy+fh/2),
				int(fx), int(fy), int(fx+fw-fh*0.4), int(fy+fh), assText(u.URL))
		}
	}
	for _, c := range in.Captions {
		if a, b, ok := span(s, c.Start, c.End); ok {
			lines := strings.Split(strings.TrimSpace(c.Text), "\n")
			for i, l := range lines {
				lines[i] = assText(l)
			}
			fmt.Fprintf(bw, "Dialogue: 2,%s,%s,Caption,,0,0,0,,%s\n", a, b, strings.Join(lines, "\\N"))
		}
	}
	writeKeys(bw, s, in.Keys)
	if in.Cursor.Enabled && in.Track != nil {
		writeCursor(bw, in, ppc)
	}
	return bw.Flush()
}

// writeCorners masks the content's corners with the colours around them.
func writeCorners(bw *bufio.Writer, g Geometry, cols [4]color.RGBA, r float64, whole string) {
	c := r * 0.5523
	f := trimFloat
	x0, y0 := float64(g.ContentX), float64(g.ContentY)
	x1, y1 := float64(g.ContentX+g.ContentW)-r, float64(g.ContentY+g.ContentH)-r
	shapes := [4]struct {
		x, y float64
		path string
	}{
		{x0, y0, fmt.Sprintf("m 0 0 l %s 0 b %s 0 0 %s 0 %s l 0 0", f(r), f(r-c), f(r-c), f(r))},
		{x1, y0, fmt.Sprintf("m 0 0 l %s 0 l %s %s b %s %s %s 0 0 0", f(r), f(r), f(r), f(r), f(r-c), f(c))},
		{x1, y1, fmt.Sprintf("m %s 0 l %s %s l 0 %s b %s %s %s %s %s 0", f(r), f(r), f(r), f(r), f(c), f(r), f(r), f(c), f(r))},
		{x0, y1, fmt.Sprintf("m 0 0 b 0 %s %s %s %s %s l 0 %s l 0 0", f(c), f(r-c), f(r), f(r), f(r), f(r))},
	}
	for i, sh := range shapes {
		if g.BarH > 0 && i < 2 {
			continue // the bar's own corners are drawn in the background
		}
		fmt.Fprintf(bw, "Dialogue: 0,0:00:00.00,%s,Mask,,0,0,0,,{\\pos(%s,%s)\\1c%s\\p1}%s{\\p0}\n",
			whole, f(sh.x), f(sh.y), assRGB(cols[i]), sh.path)
	}
}

// keyGap ends a run of keys in the keys overlay; keyLinger keeps the last.
const (
	keyGap    = 1200 * time.Millisecond
	keyLinger = 1500 * time.Millisecond
	keyChars  = 24
)

// writeKeys shows runs of key presses: each press adds to the run's text
// until a pause of keyGap. Presses inside a cut are not shown.
func writeKeys(bw *bufio.Writer, s *Schedule, all []KeyPress) {
	var keys []KeyPress
	for _, k := range all {
		if !s.Cut(k.At) {
			keys = append(keys, k)
		}
	}
	run := ""
	for i, k := range keys {
		if i > 0 && k.At-keys[i-1].At > timeline.FromDuration(keyGap) {
			run = ""
		}
		l := k.Label
		if len([]rune(l)) > 1 {
			l = " " + l + " "
		}
		run += l
		if r := []rune(run); len(r) > keyChars {
			run = string(r[len(r)-keyChars:])
		}
		end := k.At + timeline.FromDuration(keyLinger)
		if i+1 < len(keys) && keys[i+1].At-k.At <= timeline.FromDuration(keyGap) {
			end = keys[i+1].At
		}
		if a, b, ok := span(s, k.At, end); ok {
			fmt.Fprintf(bw, "Dialogue: 3,%s,%s,Keys,,0,0,0,,%s\n", a, b, assText(strings.TrimSpace(run)))
		}
	}
}

// writeCursor writes the ripples and one cursor event per run of ticks that
// show the same cursor.
func writeCursor(bw *bufio.Writer, in overlayInput, ppc float64) {
	s, g := in.Schedule, in.Geometry
	camera := func(k int) zoomState {
		if in.Zoom == nil {
			return zoomState{Z: 1}
		}
		return in.Zoom.At(k)
	}
	if in.Cursor.Click {
		circle := circlePath(rippleRadius * ppc)
		for _, c := range in.Track.Clicks() {
			if s.Cut(c.At) {
				continue
			}
			o := s.OutputTime(c.At)
			x, y := g.ZoomedPoint(camera(s.TickOf(c.At)), c.X, c.Y)
			fmt.Fprintf(bw, "Dialogue: 4,%s,%s,Ripple,,0,0,0,,{\\pos(%s,%s)\\fscx15\\fscy15\\t(0,%d,0.6,\\fscx100\\fscy100\\alpha&HFF&)\\p1}%s{\\p0}\n",
				assTime(o), assTime(o+rippleDuration), trimFloat(x), trimFloat(y),
				rippleDuration.Milliseconds(), circle)
		}
	}
	type shown struct {
		vis   bool
		x, y  float64
		shape string
	}
	path := NewCursorPath(in.Track, in.Cursor, in.Hides)
	var cur shown
	first := 0
	emit := func(end int) {
		if !cur.vis || end <= first {
			return
		}
		sh := cursorShapes[cur.shape]
		fmt.Fprintf(bw, "Dialogue: 5,%s,%s,Cursor,,0,0,0,,{\\pos(%s,%s)\\p1}%s{\\p0}\n",
			assTime(tickBoundary(s, first)), assTime(tickBoundary(s, end)),
			trimFloat(cur.x-sh.hx*ppc), trimFloat(cur.y-sh.hy*ppc), sh.path)
	}
	for k := 0; k < s.Ticks(); k++ {
		st := path.At(s.TakeTime(k))
		var now shown
		if st.Visible {
			x, y := g.ZoomedPoint(camera(k), st.X, st.Y)
			now = shown{true, math.Round(x*10) / 10, math.Round(y*10) / 10, st.Shape}
			if _, ok := cursorShapes[now.shape]; !ok {
				now.shape = "arrow"
			}
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
