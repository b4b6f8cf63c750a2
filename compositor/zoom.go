package compositor

import (
	"fmt"
	"math"
	"slices"
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

// zoomShot asks for a camera over [Start, End) of the take clock. In is
// how long the camera takes to reach To, Out how long it takes to leave
// it at End (0: the track's ease).
type zoomShot struct {
	Start, End timeline.Time
	To         zoomState
	In, Out    time.Duration
}

// autoZoomHold keeps an automatic zoom after its step ends.
const autoZoomHold = time.Second

// endOfTake stands for a zoom that holds to the end of the video.
const endOfTake = timeline.Time(math.MaxInt64)

// zoomShots reads the zoom steps (and, with zs.Auto, the targets of click,
// type and fill steps) as shots, scales capped at zs.MaxScale. A zoom
// step's duration is its motion: the zoom holds until the next zoom step
// (zoom: reset or another zoom), a new document, or the end of the take.
func zoomShots(tl *timeline.Timeline, zs ZoomSettings) []zoomShot {
	vpW, vpH := float64(tl.Viewport.Width), float64(tl.Viewport.Height)
	var out []zoomShot
	for i, st := range tl.Steps {
		if st.Region == nil || st.Region.W <= 0 || st.Region.H <= 0 || st.Hidden {
			continue
		}
		r := *st.Region
		sh := zoomShot{To: zoomState{CX: r.X + r.W/2, CY: r.Y + r.H/2}}
		switch {
		case st.Kind == kindZoom:
			sh.To.Z = st.Scale
			if sh.To.Z <= 0 && vpW > 0 && vpH > 0 {
				sh.To.Z = math.Min(vpW/(r.W*1.15), vpH/(r.H*1.15))
			}
			sh.Start, sh.In = st.Start, st.Duration
			sh.End, sh.Out = zoomHeldUntil(tl, i)
		case zs.Auto && st.Traits.Focus:
			sh.To.Z = zs.Scale
			sh.Start, sh.End = st.Start, st.End+timeline.FromDuration(autoZoomHold)
			sh.End = min(sh.End, nextBoundary(tl, sh.Start))
		default:
			continue
		}
		sh.To.Z = math.Max(1, math.Min(sh.To.Z, zs.MaxScale))
		if sh.To.Z == 1 || sh.End <= sh.Start {
			continue
		}
		out = append(out, sh)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// zoomHeldUntil is when the zoom of step i ends, and how long its way out
// takes (the motion of the zoom step that ends it; 0 otherwise): at the
// next zoom step, the next document, or the end of the take, whichever
// comes first.
func zoomHeldUntil(tl *timeline.Timeline, i int) (timeline.Time, time.Duration) {
	start := tl.Steps[i].Start
	end, out := nextBoundary(tl, start), time.Duration(0)
	if tl.End > start && tl.End < end {
		end = tl.End
	}
	for _, st := range tl.Steps[i+1:] {
		if st.Kind == kindZoom && st.Start >= start {
			if st.Start < end {
				end, out = st.Start, st.Duration
			}
			break
		}
	}
	return end, out
}

// nextBoundary is the first document boundary after t (a new document lays
// out anew: a zoom ends there), or endOfTake.
func nextBoundary(tl *timeline.Timeline, t timeline.Time) timeline.Time {
	for _, b := range tl.Boundaries {
		if b.At > t {
			return b.At
		}
	}
	return endOfTake
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
// of target eases from wherever the camera is, over the In of the shot it
// goes to, else the Out of the shot it leaves, else ease.
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
	cur := zt.base
	for _, at := range times {
		target, motion := zt.base, time.Duration(0)
		for _, sh := range shots {
			if sh.Start <= at && at < sh.End {
				target = sh.To
				if sh.Start == at {
					motion = sh.In
				}
			}
		}
		if target == cur {
			continue
		}
		if motion <= 0 {
			for _, sh := range shots {
				if sh.End == at && sh.To == cur && sh.Out > 0 {
					motion = sh.Out
				}
			}
		}
		if motion <= 0 {
			motion = ease
		}
		easeTicks := int(math.Round(motion.Seconds() * float64(s.FPS())))
		k0 := s.TickOf(at)
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

// MaxZoom is the closest the camera comes: 1 when it never zooms in.
func (zt *ZoomTrack) MaxZoom() float64 {
	z := 1.0
	if zt == nil {
		return z
	}
	z = max(z, zt.base.Z)
	for _, sg := range zt.segs {
		z = max(z, sg.From.Z, sg.To.Z)
	}
	return z
}

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
// tick given by the expression tick ("on", zoompan's count of its frames,
// when it zooms every tick; a graph that zooms only some ticks names each
// by its time): a balanced tree of if(lt(tick,K),...) over the segments,
// each a smoothstep between two states.
func (zt *ZoomTrack) zoompanExprs(g Geometry, tick string) (z, x, y string) {
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
			u := fmt.Sprintf("clip((%s-%d)/%d,0,1)", tick, sg.K0, sg.K1-sg.K0)
			return fmt.Sprintf("(%s+(%s)*(st(0,%s)*ld(0)*(3-2*ld(0))))", num(a), num(b-a), u)
		}
		// leaves are -1 (base) .. len-1; leaf i covers [segs[i].K0, segs[i+1].K0).
		build = func(lo, hi int) string {
			if hi-lo == 1 {
				return leaf(lo)
			}
			mid := (lo + hi) / 2
			return fmt.Sprintf("if(lt(%s,%d),%s,%s)", tick, zt.segs[mid].K0, build(lo, mid), build(mid, hi))
		}
		return build(-1, len(zt.segs))
	}
	z = piece(func(s zoomState) float64 { return s.Z }, 1)
	x = piece(func(s zoomState) float64 { return s.CX }, kx) + "-iw/zoom/2"
	y = piece(func(s zoomState) float64 { return s.CY }, ky) + "-ih/zoom/2"
	return z, x, y
}

// changes returns the ticks in [0, n] where the camera can differ from
// the tick before (besides tick 0): a segment's start, and every tick of
// its easing to the first it holds (K0..K1). Between them zoompan's
// expressions give the same z, x and y at every tick, to the bit: the
// same leaf, past its easing (u clipped to 1) or a constant. Sorted,
// without repeats.
func (zt *ZoomTrack) changes(n int) []int {
	var out []int
	for _, sg := range zt.segs {
		for k := max(sg.K0, 0); k <= min(max(sg.K1, sg.K0), n); k++ {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// num formats a number for an ffmpeg expression.
func num(v float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}
