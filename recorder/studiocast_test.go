package recorder

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// The outbox hands frames and navigations on in the order the page made
// them, whatever order the pictures come in relative to the navigations:
// a navigation posted while a drawn frame awaits its picture waits for it.
func TestOutboxKeepsThePageOrder(t *testing.T) {
	var got []string
	o := newOutbox(func(e event) { got = append(got, describe(e)) })
	draw(o, 1)
	o.post(event{kind: evNav, at: 2, url: "b"})
	if len(got) != 0 {
		t.Fatalf("handed on %v before the frame drawn first had its picture", got)
	}
	o.shot(3, nil) // cannot happen while casting; here: a repeat queued behind
	o.picture([]byte("A"), stampOf(1))
	draw(o, 4)
	draw(o, 5)
	o.picture([]byte("A"), stampOf(4)) // the same bytes: a repeat
	o.picture([]byte("C"), stampOf(5))
	if want := "frame 1 A, nav b, frame 5 C"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
	if r, m, s := o.counts(); r != 2 || m != 0 || s != 0 {
		t.Errorf("repeats %d, missed %d, strays %d; want 2, 0, 0", r, m, s)
	}
	o.picture([]byte("D"), stampOf(6)) // no frame awaits it
	if _, _, s := o.counts(); s != 1 {
		t.Errorf("a picture no frame awaited is not counted a stray")
	}
}

// A frame whose picture does not come is missed when the outbox gives up;
// what followed it is handed on, and a picture that comes after is not
// taken for a later frame's.
func TestOutboxGivesUp(t *testing.T) {
	var got []string
	o := newOutbox(func(e event) { got = append(got, describe(e)) })
	draw(o, 1)
	o.picture([]byte("A"), stampOf(1))
	draw(o, 2)
	o.post(event{kind: evNav, at: 3, url: "b"})
	draw(o, 4)
	if n := o.giveUp(); n != 2 {
		t.Errorf("gave up %d frames, want 2", n)
	}
	o.picture([]byte("late"), stampOf(2))
	if o.shot(5, []byte("E")) {
		t.Error("a new screenshot counted a repeat")
	}
	if !o.shot(6, []byte("E")) {
		t.Error("the same screenshot again not counted a repeat")
	}
	if want := "frame 1 A, nav b, frame 5 E"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
	if r, m, _ := o.counts(); r != 1 || m != 2 {
		t.Errorf("repeats %d, missed %d; want 1, 2", r, m)
	}
}

// Whatever the interleaving of frames drawn, navigations posted and
// pictures arriving (in order, one per drawn frame, and stamped with the
// host's clock rather than their frames' times), everything is handed
// on exactly once, in the order drawn and posted, and every frame is
// stored, repeated or missed.
func TestOutboxOrderUnderAnyInterleaving(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 2000; trial++ {
		var got, want []string
		o := newOutbox(func(e event) { got = append(got, describe(e)) })
		drawn, pictured, frames := 0, 0, 0
		var pics []string
		for step := 0; step < 40; step++ {
			switch r := rng.Intn(4); {
			case r == 0:
				frames++
				draw(o, timeline.Time(frames))
				drawn++
				pic := fmt.Sprintf("p%d", rng.Intn(3)) // some repeat the last
				pics = append(pics, pic)
			case r == 1:
				frames++
				url := fmt.Sprintf("u%d", step)
				o.post(event{kind: evNav, at: timeline.Time(frames), url: url})
				pics = append(pics, "")
			default:
				if pictured < drawn {
					pictured++
					o.picture([]byte(nthPicture(pics, pictured)), foreignStamp(pictured))
				}
			}
		}
		for pictured < drawn {
			pictured++
			o.picture([]byte(nthPicture(pics, pictured)), foreignStamp(pictured))
		}
		// The expected order: draws and navigations as made, a frame
		// dropped when it repeats the last stored picture.
		last := ""
		for i, p := range pics {
			switch {
			case p == "":
				want = append(want, "nav")
			case p != last:
				want = append(want, fmt.Sprintf("frame %d %s", i+1, p))
				last = p
			}
		}
		var gotShort []string
		for _, g := range got {
			if strings.HasPrefix(g, "nav ") {
				g = "nav"
			}
			gotShort = append(gotShort, g)
		}
		if strings.Join(gotShort, ", ") != strings.Join(want, ", ") {
			t.Fatalf("trial %d: handed on %v, want %v", trial, gotShort, want)
		}
		if o.waiting() != 0 || len(o.items) != 0 {
			t.Fatalf("trial %d: %d items left", trial, len(o.items))
		}
		r, m, s := o.counts()
		if stored := int64(len(want)) - int64(strings.Count(strings.Join(want, ","), "nav")); stored+r+m != int64(drawn) || s != 0 {
			t.Fatalf("trial %d: %d drawn, %d stored, %d repeats, %d missed, %d strays", trial, drawn, stored, r, m, s)
		}
	}
}

// nthPicture is the picture of the nth drawn frame (1-based) in pics,
// which holds "" for navigations.
func nthPicture(pics []string, n int) string {
	for _, p := range pics {
		if p == "" {
			continue
		}
		if n--; n == 0 {
			return p
		}
	}
	panic("no such picture")
}

func describe(e event) string {
	if e.kind == evNav {
		return "nav " + e.url
	}
	return fmt.Sprintf("frame %d %s", e.at, e.data)
}

// stampOf is the stamp the picture of the frame at take time at carries
// in these tests: its time in ms, plus one interval.
func stampOf[T ~int64 | ~int](at T) float64 { return float64(at)*1000 + 16.667 }

// draw has the outbox note a frame at take time at drawn with damage.
func draw[T ~int64 | ~int](o *outbox, at T) {
	o.begin(timeline.Time(at), stampOf(at))
	o.drawn(true)
}

// foreignStamp is a host-clock stamp for the nth picture: increasing, and
// never near any frame's.
func foreignStamp(n int) float64 { return -1e6 + float64(n)*3.1 }

// Pictures that come out of their frames' order go to their own frames by
// their stamps; a picture stamped with the host's clock waits until every
// awaited picture has come, and the held ones go to the frames left in
// stamp order.
func TestOutboxMatchesPicturesByStamp(t *testing.T) {
	var got []string
	o := newOutbox(func(e event) { got = append(got, describe(e)) })
	draw(o, 1)
	draw(o, 2)
	o.picture([]byte("B"), stampOf(2)) // frame 2's picture first
	if len(got) != 0 {
		t.Fatalf("handed on %v before frame 1 had its picture", got)
	}
	o.picture([]byte("A"), stampOf(1))
	// Frame 3's picture comes host-stamped, before frame 4's (exact).
	draw(o, 3)
	draw(o, 4)
	o.picture([]byte("C"), foreignStamp(1))
	if o.waiting() != 2 {
		t.Fatalf("a host-stamped picture was given to a frame while another's was on its way")
	}
	o.picture([]byte("D"), stampOf(4))
	// Two host-stamped pictures out of order: by their stamps.
	draw(o, 5)
	draw(o, 6)
	o.picture([]byte("F"), foreignStamp(3))
	o.picture([]byte("E"), foreignStamp(2))
	if want := "frame 1 A, frame 2 B, frame 3 C, frame 4 D, frame 5 E, frame 6 F"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
	if r, m, s := o.counts(); r != 0 || m != 0 || s != 0 {
		t.Errorf("repeats %d, missed %d, strays %d; want none", r, m, s)
	}
	// Giving up hands a held picture to the oldest frame awaiting one.
	got = nil
	draw(o, 7)
	draw(o, 8)
	o.picture([]byte("G"), foreignStamp(4))
	if n := o.giveUp(); n != 1 {
		t.Errorf("gave up %d frames, want 1", n)
	}
	if want := "frame 7 G"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
}

// Whatever the order pictures come in (each at most window places from
// its frame's, some before their frame's begin-frame has returned), and
// however each is stamped (its frame time, or a host-clock time, which
// increases in the frames' order), every frame that drew is stored with
// its own picture, once, in the frames' order, and a frame that drew
// nothing sends none.
func TestOutboxStampsUnderAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 5000; trial++ {
		var got []string
		o := newOutbox(func(e event) { got = append(got, describe(e)) })
		window := 1 + rng.Intn(3) // frames awaiting pictures when the next is drawn
		n := 5 + rng.Intn(30)
		type pic struct {
			frame int
			stamp float64
		}
		var inFlight []pic
		var want []string
		host, lastCapture := 1e6, 0.0 // the host's clock (ms)
		arrive := func() {
			i := rng.Intn(len(inFlight))
			p := inFlight[i]
			inFlight = append(inFlight[:i], inFlight[i+1:]...)
			o.picture([]byte(fmt.Sprintf("p%d", p.frame)), p.stamp)
		}
		for f := 1; f <= n; f++ {
			for len(inFlight) >= window {
				arrive()
			}
			host += 1 + rng.Float64()*20
			o.begin(timeline.Time(f), stampOf(f))
			damage := rng.Intn(6) != 0
			if damage {
				want = append(want, fmt.Sprintf("frame %d p%d", f, f))
				lastCapture = max(lastCapture, host-30) + 0.001 + rng.Float64()*40
				stamp := stampOf(f)
				if rng.Intn(3) == 0 {
					stamp = lastCapture
				}
				inFlight = append(inFlight, pic{f, stamp})
				// Its picture, or an earlier one, may come while it is drawn.
				for rng.Intn(2) == 0 && len(inFlight) > 0 {
					arrive()
				}
			}
			if kept := o.drawn(damage); kept != damage {
				t.Fatalf("trial %d: drawn(%v) for frame %d said %v", trial, damage, f, kept)
			}
		}
		for len(inFlight) > 0 {
			arrive()
		}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Fatalf("trial %d (window %d): handed on %v, want %v", trial, window, got, want)
		}
		if r, m, s := o.counts(); r != 0 || m != 0 || s != 0 || o.waiting() != 0 {
			t.Fatalf("trial %d: repeats %d, missed %d, strays %d, waiting %d", trial, r, m, s, o.waiting())
		}
	}
}

// A frame's picture that comes while its begin-frame is still out, even
// before the picture of the frame before it, goes to it, and a navigation
// that commits meanwhile is handed on before that frame.
func TestOutboxPictureWhileDrawing(t *testing.T) {
	var got []string
	o := newOutbox(func(e event) { got = append(got, describe(e)) })
	draw(o, 1)
	o.begin(2, stampOf(2))
	o.picture([]byte("B"), foreignStamp(2)) // frame 2's, host-stamped, first
	if o.waiting() != 2 {
		t.Fatal("a host-stamped picture went to a frame while another frame's picture was on its way")
	}
	o.post(event{kind: evNav, at: 2, url: "b"})
	o.picture([]byte("A"), foreignStamp(1))
	o.drawn(true)
	if want := "frame 1 A, nav b, frame 2 B"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
	if s, ord := o.matches(); s != 0 || ord != 2 {
		t.Errorf("matched %d by frame time, %d by order; want 0, 2", s, ord)
	}
}

// A frame whose picture comes, by its stamp, before its begin-frame has
// returned is not handed on until it has: a navigation that commits
// meanwhile still goes before it, and drawn reports the frame drawn.
func TestOutboxFrameDrawnAfterItsPicture(t *testing.T) {
	var got []string
	o := newOutbox(func(e event) { got = append(got, describe(e)) })
	draw(o, 1)
	o.picture([]byte("A"), stampOf(1))
	o.begin(2, stampOf(2))
	o.picture([]byte("B"), stampOf(2))
	o.post(event{kind: evNav, at: 2, url: "b"})
	if !o.drawn(true) {
		t.Error("drawn reports a frame that has its picture as not drawn")
	}
	if want := "frame 1 A, nav b, frame 2 B"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
	// The same with a frame that reports no damage but whose picture came.
	o.begin(3, stampOf(3))
	o.picture([]byte("C"), stampOf(3))
	if !o.drawn(false) {
		t.Error("a frame whose picture came is dropped")
	}
	if want := "frame 1 A, nav b, frame 2 B, frame 3 C"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
}
