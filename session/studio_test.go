package session

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// studioScript writes a site (the animated page as index.html, a second
// page, and the bench page) and a studio script into a temp folder, and
// loads it.
func studioScript(t *testing.T, steps string) *scripts.Script {
	t.Helper()
	testenv.Need(t, shellName)
	// A small viewport: a quarter of the pixels of the default to draw and
	// encode for every frame, with room for the bench page's code.
	s := writeScript(t, "name: studio\nserve: ./site\nbrowser: {capture: studio, viewport: {width: 640, height: 360}}\nsteps:\n"+steps)
	site := filepath.Join(filepath.Dir(s.File), "site")
	for name, body := range map[string][]byte{
		"bench.html":  benchpage.HTML(),
		"second.html": []byte(`<!doctype html><title>second</title><h1>Second page</h1>`),
	} {
		if err := os.WriteFile(filepath.Join(site, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// studioRun runs s into a fresh take, on the package's studio browser
// when s is at scale 1, and returns the result and the take.
func studioRun(t *testing.T, s *scripts.Script, o RunOptions) (*Result, *timeline.Take, []timeline.Frame) {
	t.Helper()
	if s.Browser.Scale == 1 {
		o.Studio = studioEndpoint(t)
	}
	return studioRunOwn(t, s, o)
}

// studioRunOwn is studioRun in a headless shell of the run's own, unless
// o says which to attach to.
func studioRunOwn(t *testing.T, s *scripts.Script, o RunOptions) (*Result, *timeline.Take, []timeline.Frame) {
	t.Helper()
	o.TakeDir = filepath.Join(t.TempDir(), "take")
	res, err := Run(context.Background(), s, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	tk, err := timeline.Open(o.TakeDir)
	if err != nil {
		t.Fatalf("the take is not readable: %v", err)
	}
	if err := tk.Validate(); err != nil {
		t.Fatalf("take: %v", err)
	}
	var frames []timeline.Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, fr)
	}
	c := tk.Timeline.Capture
	if c.Mode != timeline.CaptureStudio || tk.Timeline.Clock.Mapping != timeline.MappingVirtual || c.FrameInterval != 16666667 {
		t.Errorf("the timeline does not say studio: mode %q, mapping %q, interval %v", c.Mode, tk.Timeline.Clock.Mapping, c.FrameInterval)
	}
	if a := c.Frames; !a.Balanced() || a.Late != 0 || a.Duplicates != 0 || a.Overflow != 0 || a.Rejected != 0 {
		t.Errorf("accounting: %+v", a)
	}
	if c.Missed != 0 {
		t.Errorf("%d frames' pictures missed: want none lost", c.Missed)
	}
	return res, tk, frames
}

// The bench page filmed for 3 s of virtual time: 180 frames, showing 180
// consecutive page frames, each exactly one interval of page time after
// the one before.
// Pictures taken with each begin-frame (the default) and from the
// screencast beside the pump (Options.StudioScreencast) alike.
func TestStudioEveryPageFrame(t *testing.T) {
	t.Run("screenshot", func(t *testing.T) { testStudioEveryPageFrame(t, false) })
	t.Run("screencast", func(t *testing.T) { testStudioEveryPageFrame(t, true) })
}

func testStudioEveryPageFrame(t *testing.T, cast bool) {
	s := studioScript(t, `  - goto: ${serve.url}/bench.html
  - pause: 3200ms
`)
	res, tk, frames := studioRun(t, s, RunOptions{Capture: recorder.Options{StudioScreencast: cast}})
	mustPass(t, res)
	want := timeline.PicturesScreenshot
	if cast {
		want = timeline.PicturesScreencast
	}
	switch p := tk.Timeline.Capture.Pictures; {
	case tk.Timeline.Capture.Missed != 0:
		t.Errorf("pictures from the %s, %d missed; want none missed", p, tk.Timeline.Capture.Missed)
	case p != want && !cast:
		t.Errorf("pictures from the %s, want %s (the default)", p, want)
	case p != want:
		// A screencast's picture that does not come is shot again: every
		// frame is still there (below), but the take says so.
		t.Logf("pictures from the %s: the screencast was given up", p)
	}
	pause := tk.Timeline.Steps[1]
	if d := time.Duration(pause.End - pause.Start); d < 3200*time.Millisecond || d > 3200*time.Millisecond+time.Millisecond {
		t.Errorf("the pause lasted %v of virtual time, want 3.2s", d)
	}
	// From the page's first frame (the goto's load takes no virtual time:
	// virtual time waits for its fetches), 3 s of frames. A frame of the
	// new document made before its first paint (the pump's first frame
	// can come just after the commit) is blank white: it may come first,
	// once, and is not a page frame.
	first := timeline.Time(-1)
	for i, fr := range frames {
		if fr.Document != 1 {
			continue
		}
		if _, err := benchpage.Decode(readFrame(t, tk.Dir, fr), 1); err != nil && i+1 < len(frames) && blank(readFrame(t, tk.Dir, fr)) {
			t.Logf("frame %d (%v) is the document before its first paint", fr.Seq, fr.Source)
			first = frames[i+1].Source
			break
		}
		first = fr.Source
		break
	}
	var prev *benchpage.Code
	var start time.Duration
	n := 0
	for _, fr := range frames {
		if first < 0 || fr.Source < first || fr.Source >= first+timeline.Time(3*time.Second) {
			continue
		}
		img := readFrame(t, tk.Dir, fr)
		code, err := benchpage.Decode(img, 1)
		if err != nil {
			t.Fatalf("frame %d (%v): %v", fr.Seq, fr.Source, err)
		}
		if prev != nil {
			if code.Counter != prev.Counter+1 {
				t.Errorf("frame %d shows page frame %d after %d: a gap or a repeat", fr.Seq, code.Counter, prev.Counter)
			}
		}
		// performance.now() is coarsened to 100 µs, with jitter: frame k
		// shows page time k intervals after the first, to within that
		// twice over (the first is coarsened too).
		if prev == nil {
			start = code.Now
		}
		want := start + time.Duration(n)*time.Second/60
		if d := code.Now - want; d < -500*time.Microsecond || d > 500*time.Microsecond {
			t.Errorf("frame %d shows page time %v, want %v (k/fps after the first)", fr.Seq, code.Now, want)
		}
		prev = &code
		n++
	}
	if n != 180 {
		t.Errorf("%d frames in 3 s of virtual time, want 180", n)
	}
}

// A wait that never succeeds ends at its deadline, in virtual time.
func TestStudioWaitTimesOut(t *testing.T) {
	s := studioScript(t, `  - goto: ${serve.url}/index.html
  - wait: {text: Never}
    timeout: 2s
`)
	res, tk, _ := studioRun(t, s, RunOptions{})
	var wt *WaitTimeout
	if res.Failed == nil || !errors.As(res.Failed, &wt) {
		t.Fatalf("the wait did not time out: %v", res.Failed)
	}
	st := tk.Timeline.Steps[1]
	if d := time.Duration(st.End - st.Start); d < 2*time.Second || d > 2*time.Second+50*time.Millisecond {
		t.Errorf("the wait lasted %v of virtual time, want its 2s timeout", d)
	}
}

// A navigation mid-take: each frame's document follows the boundaries,
// and the second document's frames show it.
func TestStudioNavigationBoundaries(t *testing.T) {
	s := studioScript(t, `  - goto: ${serve.url}/index.html
  - wait: {text: Ready}
  - pause: 200ms
  - goto: ${serve.url}/second.html
  - wait: {text: Second page}
  - pause: 200ms
`)
	res, tk, frames := studioRun(t, s, RunOptions{})
	mustPass(t, res)
	bs := tk.Timeline.Boundaries
	var urls []string
	for _, b := range bs {
		if b.URL != nil {
			urls = append(urls, *b.URL)
		}
	}
	if len(bs) != 3 || len(urls) != 3 || !strings.HasPrefix(urls[1], tk.Timeline.Served) || !strings.HasSuffix(urls[2], "/second.html") {
		t.Fatalf("boundaries %v", urls)
	}
	for _, fr := range frames {
		want := 0
		for _, b := range bs[1:] {
			if fr.Seq > b.LastSeq {
				want = b.Document
			}
		}
		if fr.Document != want {
			t.Errorf("frame %d is of document %d, the boundaries say %d", fr.Seq, fr.Document, want)
		}
	}
	if n := len(frames); n == 0 || frames[n-1].Document != 2 {
		t.Errorf("the take does not end on the second page")
	}
	if bs[2].At < tk.Timeline.Steps[3].Start || bs[2].At > tk.Timeline.Steps[3].End {
		t.Errorf("the second commit at %v is outside its goto (%v to %v)", bs[2].At, tk.Timeline.Steps[3].Start, tk.Timeline.Steps[3].End)
	}
}

// Chromium killed during a pause: the step fails saying Chromium is gone,
// the take so far is kept and valid, nothing is left behind.
func TestStudioChromiumKilled(t *testing.T) {
	s := studioScript(t, `  - goto: ${serve.url}/index.html
  - wait: {text: Ready}
  - pause: 10m
    timeout: 20m
`)
	take := filepath.Join(t.TempDir(), "take")
	o := RunOptions{TakeDir: take}
	k := killDuringStep(&o, take, 3)
	res, err := Run(context.Background(), s, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if kerr := <-k.killed; kerr != nil {
		t.Fatalf("kill: %v", kerr)
	}
	if res.Failed == nil || !errors.Is(res.Failed, ErrBrowserGone) || res.Failed.Index != 2 {
		t.Fatalf("the pause did not fail saying Chromium is gone: %v", res.Failed)
	}
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatalf("the take so far is not readable: %v", err)
	}
	if err := tk.Validate(); err != nil {
		t.Errorf("take: %v", err)
	}
	if tl := tk.Timeline; tl.Capture.Frames.Delivered < 10 || tl.Capture.EndReason == "stopped" || !tl.Capture.Frames.Balanced() {
		t.Errorf("capture: %+v", tl.Capture)
	}
	if tk.Timeline.Cleanup == nil || tk.Timeline.Cleanup.Profile != "removed" {
		t.Errorf("cleanup receipt: %+v", tk.Timeline.Cleanup)
	}
	if _, err := os.Stat(k.browser.Profile()); !os.IsNotExist(err) {
		t.Errorf("profile %s left behind", k.browser.Profile())
	}
	if live := browsersLeft(); len(live) > 0 {
		t.Errorf("processes left behind: %v", live)
	}
}

// featuresPage runs every kind of page clock studio capture must drive:
// a requestAnimationFrame loop, a setInterval timer, a CSS animation, a
// CSS transition, a canvas animation and a same-origin iframe with a loop
// of its own. check() says whether the loops, the timer, the canvas and
// the iframe kept time with performance.now(), and whether the 500 ms
// transition has ended; the CSS animation (a blue box sliding 150 px a
// second) is read from the frames, where it is painted.
const featuresPage = `<!doctype html><title>features</title>
<style>
@keyframes slide { from { transform: translateX(0) } to { transform: translateX(600px) } }
#anim { width: 40px; height: 40px; background: #36c; animation: slide 4s linear infinite }
#trans { width: 40px; height: 40px; background: #c63; opacity: 0; transition: opacity 500ms linear }
#trans.on { opacity: 1 }
</style>
<div id="anim"></div><div id="trans"></div>
<canvas id="cv" width="320" height="40"></canvas>
<iframe id="fr" srcdoc="<body><div id=b style='width:20px;height:20px;background:#6c3;position:absolute'></div><script>window.raf=0;(function f(){raf++;b.style.left=(raf%200)+'px';requestAnimationFrame(f)})()</script></body>"></iframe>
<script>
const t0 = performance.now();
window.raf = 0; window.ticks = 0; window.drawn = 0;
(function f() { raf++; requestAnimationFrame(f) })();
setInterval(() => ticks++, 100);
requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById('trans').classList.add('on')));
const cx = document.getElementById('cv').getContext('2d');
(function draw() { cx.clearRect(0, 0, 320, 40); cx.fillRect(drawn % 300, 0, 20, 40); drawn++; requestAnimationFrame(draw) })();
window.check = () => {
  const el = performance.now() - t0, frames = el / (1000 / 60);
  const fr = document.getElementById('fr').contentWindow;
  return {
    raf: Math.abs(raf - frames) <= 2,
    interval: Math.abs(ticks - Math.floor(el / 100)) <= 1,
    canvas: Math.abs(drawn - frames) <= 2 && cx.getImageData((drawn - 1) % 300 + 5, 20, 1, 1).data[3] > 0,
    iframe: Math.abs(fr.raf - frames) <= 3,
    transition: getComputedStyle(document.getElementById('trans')).opacity === '1',
  };
};
</script>`

// The page's clocks run on virtual time: after 2 s of it, the rAF loops
// (the page's, the canvas's, the iframe's) and the timer have advanced by
// 2 s, and every frame was stored.
func TestStudioPageClocks(t *testing.T) {
	s := studioScript(t, `  - goto: ${serve.url}/features.html
  - pause: 2s
  - eval: "const off = Object.entries(check()).filter(([k, v]) => !v).map(([k]) => k); if (off.length) throw new Error('off virtual time: ' + off.join(', '))"
`)
	site := filepath.Join(filepath.Dir(s.File), "site")
	if err := os.WriteFile(filepath.Join(site, "features.html"), []byte(featuresPage), 0o644); err != nil {
		t.Fatal(err)
	}
	res, tk, frames := studioRun(t, s, RunOptions{})
	if res.Failed != nil {
		t.Fatalf("a page clock did not keep virtual time: %v", res.Failed)
	}
	pause := tk.Timeline.Steps[1]
	n := 0
	var x0, x1, worst float64
	var t0, t1 timeline.Time
	for _, fr := range frames {
		if fr.Source < pause.Start+timeline.Time(100*time.Millisecond) || fr.Source >= pause.End {
			continue
		}
		n++
		img := readFrame(t, tk.Dir, fr)
		x := boxLeft(img, 28)
		if x < 0 {
			t.Fatalf("frame %d: the animated box is not in the picture", fr.Seq)
		}
		if t0 == 0 {
			x0, t0 = x, fr.Source
		}
		x1, t1 = x, fr.Source
		// The CSS animation keeps virtual time frame by frame: 150 px a
		// second of take time since the first frame measured, within the
		// picture's edge (JPEG, subpixel transforms).
		worst = max(worst, math.Abs(x-x0-150*(fr.Source-t0).Seconds()))
	}
	if n < 110 {
		t.Errorf("%d distinct frames stored during 1.9 s of animation, want 114", n)
	}
	speed := (x1 - x0) / (t1 - t0).Seconds()
	if math.Abs(speed-150) > 2 || worst > 3 {
		t.Errorf("CSS animation off virtual time: %.1f px a second in the frames (want 150), %.1f px off at worst", speed, worst)
	}
	t.Logf("CSS animation: %.1f px a second in the frames, %.1f px off at worst", speed, worst)
}

// boxLeft is the leftmost x of the blue box (#36c) in row y, -1 if none.
func boxLeft(img image.Image, y int) float64 {
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		r, g, bl, _ := img.At(x, y).RGBA()
		if r>>8 < 0x60 && g>>8 > 0x40 && g>>8 < 0x90 && bl>>8 > 0xa0 {
			return float64(x)
		}
	}
	return -1
}

// Every step kind works in studio mode: testdata/everything.yaml, whose waits and
// expectations check what each step did, second tab included.
func TestStudioEveryStep(t *testing.T) {
	testenv.Need(t, shellName)
	s, err := scripts.Load("testdata/everything.yaml", scripts.LoadOptions{Env: map[string]string{"TOKEN": "s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Browser.NoSandbox = testenv.NoSandbox()
	s.Browser.Capture = scripts.CaptureStudio
	res, tk, frames := studioRun(t, s, RunOptions{})
	for _, st := range res.Timeline.Steps {
		if st.Outcome != timeline.OutcomeOK && !st.Optional {
			t.Errorf("line %d %s: %s %s", st.Line, st.Kind, st.Outcome, st.Error)
		}
	}
	tabs := map[string]int{}
	for i, fr := range frames {
		tabs[fr.Tab]++
		if i > 0 && fr.Source <= frames[i-1].Source {
			t.Errorf("frame %d at %v after %v: virtual time did not move on across captures", fr.Seq, fr.Source, frames[i-1].Source)
		}
	}
	if tabs["main"] == 0 || tabs["side"] == 0 || tk.Timeline.Capture.Tab != "" {
		t.Errorf("frames by tab %v, capture tab %q", tabs, tk.Timeline.Capture.Tab)
	}
}

// Scale 2: the headless shell renders at device scale 2 (through
// --force-device-scale-factor), so a 1280x720 page is filmed at 2560x1440.
func TestStudioScale2(t *testing.T) {
	s := studioScript(t, `  - goto: ${serve.url}/second.html
  - wait: {text: Second page}
  - pause: 100ms
`)
	s.Browser.Width, s.Browser.Height, s.Browser.Scale = 1280, 720, 2
	res, tk, frames := studioRun(t, s, RunOptions{})
	mustPass(t, res)
	if len(frames) == 0 {
		t.Fatal("no frames")
	}
	for _, fr := range frames {
		if fr.Width != 2560 || fr.Height != 1440 {
			t.Fatalf("frame %d is %dx%d, want 2560x1440", fr.Seq, fr.Width, fr.Height)
		}
	}
	if v := tk.Timeline.Viewport; v.Width != 1280 || v.Scale != 2 {
		t.Errorf("viewport %+v", v)
	}
}

// TestStudioSharedShell: studio runs that take turns on one headless
// shell (RunOptions.Studio) each get a browser context of their own: a
// cookie the first sets is not there for the second, though both pages
// are on the same host. A script at another device scale than the shell's
// is refused, not filmed at the wrong size.
func TestStudioSharedShell(t *testing.T) {
	// One host for both runs (a served folder's host is new each run).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>one host</title><h1>One host</h1>")
	}))
	defer srv.Close()
	steps := `  - goto: ` + srv.URL + `/
  - expect: {js: "!document.cookie.includes('seen=1')"}
  - eval: "document.cookie = 'seen=1; max-age=3600'"
  - expect: {js: "document.cookie.includes('seen=1')"}
`
	for i := range 2 {
		res, _, frames := studioRun(t, studioScript(t, steps), RunOptions{})
		if res.Failed != nil {
			t.Fatalf("run %d in the shared shell: %v", i+1, res.Failed)
		}
		if len(frames) == 0 {
			t.Fatalf("run %d: no frames", i+1)
		}
	}
	s := studioScript(t, "  - goto: ${serve.url}/second.html\n")
	s.Browser.Scale = 2
	_, err := Run(context.Background(), s, RunOptions{TakeDir: filepath.Join(t.TempDir(), "take"), Studio: studioEndpoint(t)})
	if err == nil || !strings.Contains(err.Error(), "device scale 1, the script asks for 2") {
		t.Fatalf("a scale-2 script in a scale-1 shell: err %v, want it refused", err)
	}
}

// blank reports whether img is one colour, white (a document not painted
// yet).
func blank(img image.Image) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				return false
			}
		}
	}
	return true
}

// TestStudioRate: every output rate a script may ask for gets a studio
// pump of at least minStudioFPS frames a second that the output's rate
// divides, the output's own when it is that fast already.
func TestStudioRate(t *testing.T) {
	if got := studioRate(0); got != recorder.DefaultFPS {
		t.Fatalf("studioRate(0) = %d, want recorder.DefaultFPS %d", got, recorder.DefaultFPS)
	}
	for fps := outrules.MinFPS; fps <= outrules.MaxFPS; fps++ {
		got := studioRate(fps)
		if got < minStudioFPS || got%fps != 0 {
			t.Errorf("studioRate(%d) = %d: want a multiple of %d of at least %d", fps, got, fps, minStudioFPS)
		}
		if fps >= minStudioFPS && got != fps {
			t.Errorf("studioRate(%d) = %d, want the output's own", fps, got)
		}
		if fps < minStudioFPS && got-fps >= minStudioFPS {
			t.Errorf("studioRate(%d) = %d: not the smallest such multiple", fps, got)
		}
	}
}
