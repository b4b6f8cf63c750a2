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
	o.drawn(1)
	o.post(event{kind: evNav, at: 2, url: "b"})
	if len(got) != 0 {
		t.Fatalf("handed on %v before the frame drawn first had its picture", got)
	}
	o.shot(3, nil) // cannot happen while casting; here: a repeat queued behind
	o.picture([]byte("A"))
	o.drawn(4)
	o.drawn(5)
	o.picture([]byte("A")) // the same bytes: a repeat
	o.picture([]byte("C"))
	if want := "frame 1 A, nav b, frame 5 C"; strings.Join(got, ", ") != want {
		t.Errorf("handed on %q, want %q", strings.Join(got, ", "), want)
	}
	if r, m, s := o.counts(); r != 2 || m != 0 || s != 0 {
		t.Errorf("repeats %d, missed %d, strays %d; want 2, 0, 0", r, m, s)
	}
	o.picture([]byte("D")) // no frame awaits it
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
	o.drawn(1)
	o.picture([]byte("A"))
	o.drawn(2)
	o.post(event{kind: evNav, at: 3, url: "b"})
	o.drawn(4)
	if n := o.giveUp(); n != 2 {
		t.Errorf("gave up %d frames, want 2", n)
	}
	o.picture([]byte("late"))
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
// pictures arriving (in order, one per drawn frame), everything is handed
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
				o.drawn(timeline.Time(frames))
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
					o.picture([]byte(nthPicture(pics, pictured)))
				}
			}
		}
		for pictured < drawn {
			pictured++
			o.picture([]byte(nthPicture(pics, pictured)))
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
