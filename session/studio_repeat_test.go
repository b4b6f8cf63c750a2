package session

import (
	"bytes"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// transitPage has what made two studio runs of one script differ before
// page times were put on Blink's grid: a transition of colour and
// position (as a button's hover has), an animation that fades and rises
// in, and a box sliding by fractions of a pixel, whose anti-aliased edges
// change with the slightest change of the time it is drawn at. All three
// start when the script says (go()): a new document's first paint can
// come a frame earlier or later from run to run, and an animation started
// with it would keep that frame's difference; and a script's eval lands
// between the same two frames under any load the pump's pacing allows
// (recorder.IdleWait), where pointer input, answered within a few
// milliseconds or after a frame, can be a frame apart under heavy load.
const transitPage = `<!doctype html><title>transit</title><style>
button { font: 24px sans-serif; padding: 16px 32px; border: 0; border-radius: 10px; background: #5b6cff; color: #fff;
  transition: background .15s, transform .15s; }
button.hot { background: #4453e6; transform: translateY(-1px); }
#card { display: none; margin-top: 24px; width: 400px; height: 120px; background: #fff; box-shadow: 0 10px 30px #0003; border-radius: 16px; }
#card.open { display: block; animation: rise .35s ease-out; }
@keyframes rise { from { opacity: 0; transform: translateY(12px); } to { opacity: 1; transform: none; } }
#box { position: absolute; top: 300px; left: 20px; width: 90px; height: 90px; border-radius: 20px; background: #e8632a; }
#box.go { animation: slide 7s linear infinite; }
@keyframes slide { to { transform: translateX(613.7px) rotate(33deg); } }
</style><body style="margin:32px; background: linear-gradient(160deg, #f6f8ff, #e8eef7)">
<button id="b">Get started</button><div id="card"></div><div id="box"></div>
<script>function go() {
  document.getElementById('b').classList.add('hot');
  document.getElementById('card').classList.add('open');
  document.getElementById('box').classList.add('go');
}</script>`

// Two studio runs of one script make the same frames from the moment the
// page's animations start: the same pictures at the same times, in the
// same documents, and their steps start and end at the same times (all
// a frame later in one run when its page loaded a frame later). (Before
// it, the page's first paint may come a frame apart.) The
// pictures are nearly always the same byte for byte; rarely a few differ
// by a hair at the edges of what moves (hairDiff), never by a frame.
func TestStudioRunsRepeat(t *testing.T) {
	s := studioScript(t, `  - goto: ${serve.url}/transit.html
  - pause: 300ms
  - eval: go()
  - pause: 600ms
`)
	if err := os.WriteFile(filepath.Join(filepath.Dir(s.File), "site", "transit.html"), []byte(transitPage), 0o644); err != nil {
		t.Fatal(err)
	}
	// hairDiff is measured at the default size.
	s.Browser.Width, s.Browser.Height = 1280, 720
	// Each run in a browser of its own, as two clapper runs are: on one
	// browser the second run's load is warmer (its caches), and its goto
	// can end a frame sooner.
	res, tk1, a := studioRunOwn(t, s, RunOptions{})
	mustPass(t, res)
	res, tk2, b := studioRunOwn(t, s, RunOptions{})
	mustPass(t, res)
	// The goto ends when the page has loaded, which a busy machine can
	// make a frame later (the load's fetches run on the host's clock);
	// from there on the runs keep step: the same steps, frames and
	// pictures, all shifted by that one frame at most.
	shift := tk2.Timeline.Steps[0].End - tk1.Timeline.Steps[0].End
	if shift != 0 {
		t.Logf("the second run's goto ended %v later", time.Duration(shift))
	}
	if shift < 0 || time.Duration(shift) > time.Second/60+time.Millisecond {
		t.Errorf("the gotos ended %v apart: more than a frame", time.Duration(shift))
	}
	for i, st := range tk1.Timeline.Steps[1:] {
		if o := tk2.Timeline.Steps[i+1]; st.Start+shift != o.Start || st.End+shift != o.End {
			t.Errorf("step %d (%s): %v to %v, then %v to %v (shifted by %v)", i+1, st.Kind, st.Start, st.End, o.Start, o.End, time.Duration(shift))
		}
	}
	from := func(frames []timeline.Frame, start timeline.Time) []timeline.Frame {
		for i, fr := range frames {
			if fr.Source >= start {
				return frames[i:]
			}
		}
		return nil
	}
	a, b = from(a, tk1.Timeline.Steps[2].Start), from(b, tk2.Timeline.Steps[2].Start) // from the eval
	if len(a) != len(b) {
		t.Fatalf("from the eval on, the runs stored %d and %d frames", len(a), len(b))
	}
	same := 0
	for i := range a {
		if a[i].Source+shift != b[i].Source || a[i].Document != b[i].Document {
			t.Fatalf("frame %d: at %v in document %d, then at %v in document %d", i, a[i].Source, a[i].Document, b[i].Source, b[i].Document)
		}
		pa, err := os.ReadFile(filepath.Join(tk1.Dir, a[i].File))
		if err != nil {
			t.Fatal(err)
		}
		pb, err := os.ReadFile(filepath.Join(tk2.Dir, b[i].File))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(pa, pb) {
			same++
			continue
		}
		if n, most := hairDiff(t, pa, pb); n > hairPixels || most > hairLevels {
			t.Errorf("frame %d (%v): the pictures differ in %d pixels, by up to %d levels: more than a hair (%d pixels, %d levels)", i, a[i].Source, n, most, hairPixels, hairLevels)
		} else {
			t.Logf("frame %d (%v): the pictures differ by a hair: %d pixels, up to %d levels", i, a[i].Source, n, most)
		}
	}
	if len(a) < 30 {
		t.Errorf("only %d frames stored from the eval on: the box should move in every frame", len(a))
	}
	t.Logf("%d of %d pictures the same byte for byte", same, len(a))
}

// A hair: what sets two studio pictures of one frame apart in about one
// pair of runs in twenty-five (measured 2026-12-06, also with nothing else
// running): the anti-aliased edges of a box that slides and turns, and of
// a button at the end of its transition, a few hundred pixels off by at
// most about ten levels a channel, in some frames and not the ones
// between. A frame drawn at another time is far more: the box moves 1.5
// pixels a frame, so its edges change by a hundred levels or more.
const (
	hairPixels = 2000
	hairLevels = 32
)

// hairDiff decodes two JPEG pictures of one size and counts the pixels
// where a channel differs by more than JPEG's own noise (4 levels), with
// the largest difference.
func hairDiff(t *testing.T, pa, pb []byte) (n, most int) {
	t.Helper()
	a, err := jpeg.Decode(bytes.NewReader(pa))
	if err != nil {
		t.Fatal(err)
	}
	b, err := jpeg.Decode(bytes.NewReader(pb))
	if err != nil {
		t.Fatal(err)
	}
	if a.Bounds() != b.Bounds() {
		t.Fatalf("pictures of %v and %v", a.Bounds(), b.Bounds())
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ca, cb := color.RGBAModel.Convert(a.At(x, y)).(color.RGBA), color.RGBAModel.Convert(b.At(x, y)).(color.RGBA)
			d := int(max(absDiff(uint32(ca.R), uint32(cb.R)), absDiff(uint32(ca.G), uint32(cb.G)), absDiff(uint32(ca.B), uint32(cb.B))))
			if d > 4 {
				n++
			}
			most = max(most, d)
		}
	}
	return n, most
}
