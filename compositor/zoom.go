package compositor

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// zoomState is the camera on the page: a zoom factor and the CSS-pixel point
// at the centre of the view.
type zoomState struct {
	Z, CX, CY float64
}

// zoomShot asks for a camera over [Start, End) of the take clock.
type zoomShot struct {
	Start, End timeline.Time
	To         zoomState
}

// autoZoomHold keeps an automatic zoom after its step ends.
const autoZoomHold = time.Second

// defaultZoomFor is how long a zoom step without a duration lasts.
const defaultZoomFor = 2 * time.Second

// zoomShots reads the zoom steps (and, with zs.Auto, the targets of click,
// type and fill steps) as shots, scales capped at zs.MaxScale.
func zoomShots(tl *timeline.Timeline, zs ZoomSettings) []zoomShot {
	vpW, vpH := float64(tl.Viewport.Width), float64(tl.Viewport.Height)
	var out []zoomShot
	for _, st := range tl.Steps {
		if st.Region == nil || st.Region.W <= 0 || st.Region.H <= 0 || st.Hidden {
			continue
		}
		r := *st.Region
		to := zoomState{CX: r.X + r.W/2, CY: r.Y + r.H/2}
		var start, end timeline.Time
		switch {
		case st.Kind == kindZoom:
			to.Z = st.Scale
			if to.Z <= 0 && vpW > 0 && vpH > 0 {
				to.Z = math.Min(vpW/(r.W*1.15), vpH/(r.H*1.15))
			}
			d := st.Duration
			if d <= 0 {
				d = defaultZoomFor
			}
			start, end = st.Start, st.Start+timeline.FromDuration(d)
		case zs.Auto && st.Traits.Focus:
			to.Z = zs.Scale
			start, end = st.Start, st.End+timeline.FromDuration(autoZoomHold)
			// A new document lays out anew: the automatic zoom ends there.
			for _, b := range tl.Boundaries {
				if b.At > start && b.At < end {
					end = b.At
					break
				}
			}
		default:
			continue
		}
		to.Z = math.Max(1, math.Min(to.Z, zs.MaxScale))
		if to.Z == 1 || end <= start {
			continue
		}
		out = append(out, zoomShot{start, end, to})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// zoomSeg eases the camera From -> To over output ticks [K0, K1), and holds
// To after.
type zoomSeg struct {
	K0, K1   int
	From, To zoomState
}

// ZoomTrack is the camera at every output tick: a few eased segments, the
// same data Go maps the cursor with and ffmpeg's zoompan evaluates.
type ZoomTrack struct {
	base zoomState
	segs []zoomSeg
}

// newZoomTrack plans the camera for the shots on schedule s. The target at
// any time is the latest-started active shot (or the whole page); each change
// of target eases from wherever the camera is over ease.
func newZoomTrack(shots []zoomShot, s *Schedule, vp timeline.Viewport, ease time.Duration) *ZoomTrack {
	zt := &ZoomTrack{base: zoomState{1, float64(vp.Width) / 2, float64(vp.Height) / 2}}
	if len(shots) == 0 {
		return zt
	}
	var times []timeline.Time
	for _, sh := range shots {
		times = append(times, sh.Start, sh.End)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	easeTicks := int(math.Round(ease.Seconds() * float64(s.FPS())))
	cur := zt.base
	for _, at := range times {
		target := zt.base
		for _, sh := range shots {
			if sh.Start <= at && at < sh.End {
				target = sh.To
			}
		}
		if target == cur {
			continue
		}
		k0 := s.TicksBefore(at)
		if k0 >= s.Ticks() {
			break
		}
		from := zt.At(k0)
		if n := len(zt.segs); n > 0 && zt.segs[n-1].K0 == k0 {
			zt.segs = zt.segs[:n-1] // two changes on one tick: the later wins
			from = zt.At(k0)
		}
		zt.segs = append(zt.segs, zoomSeg{K0: k0, K1: k0 + easeTicks, From: from, To: target})
		cur = target
	}
	return zt
}

// Active reports whether the camera ever moves.
func (zt *ZoomTrack) Active() bool { return len(zt.segs) > 0 }

// At returns the camera at output tick k.
func (zt *ZoomTrack) At(k int) zoomState {
	i := sort.Search(len(zt.segs), func(i int) bool { return zt.segs[i].K0 > k }) - 1
	if i < 0 {
		return zt.base
	}
	sg := zt.segs[i]
	u := 1.0
	if sg.K1 > sg.K0 {
		u = easeInOut(float64(k-sg.K0) / float64(sg.K1-sg.K0))
	}
	return zoomState{
		Z:  sg.From.Z + (sg.To.Z-sg.From.Z)*u,
		CX: sg.From.CX + (sg.To.CX-sg.From.CX)*u,
		CY: sg.From.CY + (sg.To.CY-sg.From.CY)*u,
	}
}

// window returns the crop zoompan takes from a capW x capH frame for camera
// z: its top-left and size in capture pixels, rounded as zoompan rounds them
// (sizes truncated, corner clamped then truncated to even).
func (g Geometry) zoomWindow(z zoomState) (x, y, w, h int) {
	fw, fh := float64(g.CaptureW)/z.Z, float64(g.CaptureH)/z.Z
	w, h = int(fw), int(fh)
	kx, ky := float64(g.CaptureW)/g.ViewportW, float64(g.CaptureH)/g.ViewportH
	fx := math.Max(0, math.Min(z.CX*kx-fw/2, float64(g.CaptureW-w)))
	fy := math.Max(0, math.Min(z.CY*ky-fh/2, float64(g.CaptureH-h)))
	return int(fx) &^ 1, int(fy) &^ 1, w, h
}

// ZoomedPoint maps a CSS-pixel position to output pixels under camera z.
func (g Geometry) ZoomedPoint(z zoomState, x, y float64) (float64, float64) {
	if z.Z <= 1 {
		return g.Point(x, y)
	}
	wx, wy, ww, wh := g.zoomWindow(z)
	dx := x*float64(g.CaptureW)/g.ViewportW - float64(wx)
	dy := y*float64(g.CaptureH)/g.ViewportH - float64(wy)
	return float64(g.ContentX-g.CropX) + dx*float64(g.ScaledW)/float64(ww),
		float64(g.ContentY-g.CropY) + dy*float64(g.ScaledH)/float64(wh)
}

// zoompanExprs writes the track as zoompan's z, x and y expressions of the
// output frame number "on": a balanced tree of if(lt(on,K),...) over the
// segments, each a smoothstep between two states.
func (zt *ZoomTrack) zoompanExprs(g Geometry) (z, x, y string) {
	kx, ky := float64(g.CaptureW)/g.ViewportW, float64(g.CaptureH)/g.ViewportH
	piece := func(get func(zoomState) float64, scale float64) string {
		var build func(lo, hi int) string
		leaf := func(i int) string {
			if i < 0 {
				return num(get(zt.base) * scale)
			}
			sg := zt.segs[i]
			a, b := get(sg.From)*scale, get(sg.To)*scale
			if sg.K1 <= sg.K0 || a == b {
				return num(b)
			}
			u := fmt.Sprintf("clip((on-%d)/%d,0,1)", sg.K0, sg.K1-sg.K0)
			return fmt.Sprintf("(%s+(%s)*(st(0,%s)*ld(0)*(3-2*ld(0))))", num(a), num(b-a), u)
		}
		// leaves are -1 (base) .. len-1; leaf i covers [segs[i].K0, segs[i+1].K0).
		build = func(lo, hi int) string {
			if hi-lo == 1 {
				return leaf(lo)
			}
			mid := (lo + hi) / 2
			return fmt.Sprintf("if(lt(on,%d),%s,%s)", zt.segs[mid].K0, build(lo, mid), build(mid, hi))
		}
		return build(-1, len(zt.segs))
	}
	z = piece(func(s zoomState) float64 { return s.Z }, 1)
	x = piece(func(s zoomState) float64 { return s.CX }, kx) + "-iw/zoom/2"
	y = piece(func(s zoomState) float64 { return s.CY }, ky) + "-ih/zoom/2"
	return z, x, y
}

// num formats a number for an ffmpeg expression.
func num(v float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}
