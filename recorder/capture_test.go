package recorder_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/timeline"
)

// colors of the test site's pages, by path.
var colors = map[string][3]uint8{
	"/red":   {220, 40, 40},
	"/green": {40, 180, 60},
	"/blue":  {40, 70, 220},
	"/teal":  {0, 128, 128},
}

// sitePage is a page with a solid background (the path's color) and, unless
// ?still, a small box moving on every animation frame so the screencast
// keeps sending frames.
func sitePage(w http.ResponseWriter, r *http.Request) {
	c, ok := colors[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	anim := `<script>let i=0;(function f(){document.getElementById('box').style.transform='translateX('+(i++%400)+'px)';requestAnimationFrame(f)})()</script>`
	if r.URL.Query().Has("still") {
		anim = ""
	}
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, `<!doctype html><title>%s</title><body style="margin:0;background:rgb(%d,%d,%d)">
<div id="box" style="position:absolute;left:0;bottom:0;width:40px;height:40px;background:#fff"></div>%s</body>`, r.URL.Path, c[0], c[1], c[2], anim)
}

// serve serves the test site on 127.0.0.1 and returns its base URL with the
// given host name (127.0.0.1 or localhost: two sites, one machine).
func serve(t *testing.T, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(sitePage), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }() // owned by the test: ends in Close
	t.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://%s:%d", host, ln.Addr().(*net.TCPAddr).Port)
}

func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate to %.80s: %v", url, err)
	}
}

// captureOn opens path of a fresh loopback site in a fresh tab of the
// package's browser and starts capturing it into a new take, with the
// options changed by each of set.
func captureOn(t *testing.T, path string, set ...func(*recorder.Options)) (context.Context, string, *take, *recorder.Capture) {
	t.Helper()
	ctx := browserTab(t)
	site, tk, c := captureIn(t, ctx, path, set...)
	return ctx, site, tk, c
}

// captureIn opens path of a fresh loopback site in tab ctx and starts
// capturing it into a new take, with the options changed by each of set.
func captureIn(t *testing.T, ctx context.Context, path string, set ...func(*recorder.Options)) (string, *take, *recorder.Capture) {
	t.Helper()
	site := serve(t, "127.0.0.1")
	navigate(t, ctx, site+path)
	tk := newTake(t)
	o := tk.options(site + path)
	for _, f := range set {
		f(&o)
	}
	c, err := recorder.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return site, tk, c
}

// hang bounds every wait of these tests: long enough for any loaded
// machine, so reaching it means something hangs.
const hang = 60 * time.Second

// waitFrames waits until the capture has delivered at least n frames.
func waitFrames(t *testing.T, c *recorder.Capture, n int64) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for c.Snapshot().Delivered < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %d frames within %v: %+v", n, hang, c.Snapshot())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDone waits for the capture to end by itself, after what.
func waitDone(t *testing.T, c *recorder.Capture, what string) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(hang):
		t.Fatalf("capture did not end within %v of %s: %+v", hang, what, c.Snapshot())
	}
}

// colorOf decodes a frame and returns its pixel at the page's upper left
// (away from the moving box).
func colorOf(t *testing.T, tk *timeline.Take, fr timeline.Frame) [3]uint8 {
	t.Helper()
	b, err := tk.ReadFrame(fr)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("frame %d: %v", fr.Seq, err)
	}
	r, g, bl, _ := img.At(img.Bounds().Min.X+20, img.Bounds().Min.Y+20).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
}

func near(a, b [3]uint8) bool {
	for i := range a {
		if d := int(a[i]) - int(b[i]); d > 12 || d < -12 {
			return false
		}
	}
	return true
}

// checkClean checks what every capture that ended normally owes.
func checkClean(t *testing.T, res recorder.Result) {
	t.Helper()
	if res.Err != nil || res.Capture.EndReason != "stopped" {
		t.Errorf("capture ended with %v (%q)", res.Err, res.Capture.EndReason)
	}
	if a := res.Capture.Frames; !a.Balanced() || a.Upstream != "unknown" {
		t.Errorf("accounting %+v", a)
	}
	if res.AckErrors != 0 {
		t.Errorf("%d of %d acks failed", res.AckErrors, res.Acks)
	}
	if res.Mapping != timeline.MappingMonotonic || res.Clock.Mapping != res.Mapping {
		t.Errorf("mapping %q, clock %+v: Chromium 156 sends monotonicTimestamp", res.Mapping, res.Clock)
	}
}

// Boundaries across a same-site and a cross-site navigation (two origins
// on loopback: a new renderer process), and to an address longer than
// 8192 characters: one boundary per commit, each frame carries the
// document it was received during, and the screencast goes on.
func TestBoundariesAcrossNavigations(t *testing.T) {
	ctx := browserTab(t)
	siteA, siteB := serve(t, "127.0.0.1"), serve(t, "localhost")
	long := siteA + "/red?" + strings.Repeat("x", timeline.MaxURL)
	navigate(t, ctx, siteA+"/red")
	tk := newTake(t)
	c, err := recorder.Start(ctx, tk.options(siteA+"/red"))
	if err != nil {
		t.Fatal(err)
	}
	type doc struct {
		url   *string
		color [3]uint8
	}
	str := func(s string) *string { return &s }
	docs := []doc{{str(siteA + "/red"), colors["/red"]}}
	for _, next := range []struct{ url, path string }{
		{siteA + "/green", "/green"}, // same site
		{siteB + "/blue", "/blue"},   // cross site
		{long, "/red"},               // an address too long to record
	} {
		waitFrames(t, c, c.Snapshot().Delivered+4)
		navigate(t, ctx, next.url)
		u := str(next.url)
		if len(next.url) > timeline.MaxURL {
			u = nil
		}
		docs = append(docs, doc{u, colors[next.path]})
	}
	waitFrames(t, c, c.Snapshot().Delivered+4)
	res := c.Stop(ctx)
	checkClean(t, res)
	opened, frames := tk.finish(t, res)

	bs := res.Boundaries
	if len(bs) != len(docs) {
		t.Fatalf("%d boundaries, want %d: %+v", len(bs), len(docs), bs)
	}
	for i, b := range bs {
		if b.Document != i {
			t.Errorf("boundary %d is document %d", i, b.Document)
		}
		switch {
		case docs[i].url == nil && b.URL != nil:
			t.Errorf("document %d: URL of %d characters recorded, want null", i, len(*b.URL))
		case docs[i].url != nil && (b.URL == nil || *b.URL != *docs[i].url):
			t.Errorf("document %d: URL %v, want %q", i, b.URL, *docs[i].url)
		}
		if i > 0 && (b.LastSeq < bs[i-1].LastSeq || b.At < bs[i-1].At) {
			t.Errorf("boundary %d (%+v) goes back from %+v", i, b, bs[i-1])
		}
	}
	if bs[0].LastSeq != -1 {
		t.Errorf("document 0 has last sequence %d, want -1", bs[0].LastSeq)
	}
	// Each frame's document is the last one committed before it arrived.
	last := map[int]timeline.Frame{}
	for _, fr := range frames {
		want := 0
		for _, b := range bs[1:] {
			if b.LastSeq < fr.Seq {
				want = b.Document
			}
		}
		if fr.Document != want {
			t.Errorf("frame %d carries document %d, boundaries say %d", fr.Seq, fr.Document, want)
		}
		last[fr.Document] = fr
	}
	// Every document has frames, the last of which shows that document.
	for d := range docs {
		fr, ok := last[d]
		if !ok {
			t.Errorf("no frame delivered during document %d", d)
			continue
		}
		if got := colorOf(t, opened, fr); !near(got, docs[d].color) {
			t.Errorf("last frame of document %d (seq %d) shows %v, want %v", d, fr.Seq, got, docs[d].color)
		}
	}
}

// The take starts with a real picture of the page (a seeded frame) and
// ends with its state at stop, even when nothing moves on the page and
// the change comes just before the stop.
func TestSeededFirstAndFinalFrames(t *testing.T) {
	ctx, _, tk, c := captureOn(t, "/teal?still")
	waitFrames(t, c, 2) // the seed and the screencast's first frame
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.body.style.background='rgb(200,0,200)'`)); err != nil {
		t.Fatal(err)
	}
	res := c.Stop(ctx)
	checkClean(t, res)
	opened, frames := tk.finish(t, res)
	if len(frames) < 2 {
		t.Fatalf("%d frames delivered", len(frames))
	}
	first, final := frames[0], frames[len(frames)-1]
	if !first.Seeded || first.Seq != 0 {
		t.Errorf("first frame %+v is not the seeded one", first)
	}
	if got := colorOf(t, opened, first); !near(got, colors["/teal"]) {
		t.Errorf("first frame shows %v, want the page's %v", got, colors["/teal"])
	}
	if !final.Seeded {
		t.Errorf("last frame %+v is not the final seeded one", final)
	}
	if got := colorOf(t, opened, final); !near(got, [3]uint8{200, 0, 200}) {
		t.Errorf("last frame shows %v, want the final state", got)
	}
	for _, fr := range frames[1 : len(frames)-1] {
		if fr.Seeded {
			t.Errorf("frame %d seeded in the middle of the take", fr.Seq)
		}
	}
}

// Counts can be read while capturing, from another goroutine, without
// disturbing the capture: they only grow, never claim more delivered and
// discarded frames than received, and end at the final accounting.
func TestSnapshotWhileCapturing(t *testing.T) {
	ctx, _, tk, c := captureOn(t, "/green")
	stop := make(chan struct{})
	reads := make(chan int)
	var bad atomic.Value
	go func() { // owned by the test: ends when stop closes
		var prev recorder.Snapshot
		n := 0
		for {
			select {
			case <-stop:
				reads <- n
				return
			default:
			}
			s := c.Snapshot()
			n++
			if s.Received < prev.Received || s.Delivered < prev.Delivered || s.Discarded < prev.Discarded ||
				s.Delivered+s.Discarded > s.Received || s.Discarded != s.Overflow+s.Late+s.Duplicates+s.Rejected || s.Documents != 1 {
				bad.Store(fmt.Sprintf("snapshot %+v after %+v", s, prev))
			}
			prev = s
		}
	}()
	waitFrames(t, c, 10)
	res := c.Stop(ctx)
	close(stop)
	if n := <-reads; n < 10 {
		t.Errorf("only %d snapshots read", n)
	}
	if b := bad.Load(); b != nil {
		t.Error(b)
	}
	checkClean(t, res)
	if res.Acks < 8 || res.Acks > res.Capture.Frames.Received {
		t.Errorf("%d acks for %d frames received", res.Acks, res.Capture.Frames.Received)
	}
	tk.finish(t, res)
	a, s := res.Capture.Frames, c.Snapshot()
	if s.Received != a.Received || s.Delivered != a.Delivered || s.Discarded != a.Discarded() || s.Late != a.Late || s.Overflow != a.Overflow {
		t.Errorf("snapshot after stop %+v, accounting %+v", s, a)
	}
	if res2 := c.Stop(ctx); res2.Capture != res.Capture {
		t.Errorf("a second Stop returned another record")
	}
}

// The wall-offset mapping, forced on real frames: the timeline records
// the offset and its error bound, and it agrees with the monotonic one.
func TestWallOffsetMapping(t *testing.T) {
	ctx, _, tk, c := captureOn(t, "/blue", func(o *recorder.Options) { o.Mapping = timeline.MappingWallOffset })
	waitFrames(t, c, 10)
	res := c.Stop(ctx)
	tk.finish(t, res)
	if res.Mapping != timeline.MappingWallOffset || res.Clock.Mapping != timeline.MappingWallOffset {
		t.Fatalf("mapping %q, clock %+v", res.Mapping, res.Clock)
	}
	if res.Clock.OffsetNs == 0 || res.Clock.ErrorNs <= 0 {
		t.Errorf("clock %+v lacks the offset or its error bound", res.Clock)
	}
	if res.CrossCheck.Frames < 5 { // the seed carries no Chromium times
		t.Errorf("cross-check on %d frames", res.CrossCheck.Frames)
	}
	// Both of a frame's times name one instant, so the two mappings agree
	// to within the offset's error bound and Chromium's own conversion
	// between its clocks (about a microsecond here); a wrong offset, sign
	// or unit puts them milliseconds to years apart. The allowance is a
	// clock precision, not an elapsed time: it does not depend on load.
	if limit := time.Duration(res.Clock.ErrorNs) + agreement; res.CrossCheck.MaxDiff > limit {
		t.Errorf("wall-offset and monotonic mappings differ by up to %v over %d frames, more than %v (error bound %d ns)",
			res.CrossCheck.MaxDiff, res.CrossCheck.Frames, limit, res.Clock.ErrorNs)
	}
}

// agreement is how far Chromium's two timestamps of one frame may stray
// from each other beyond the recorder's error bound: far below a frame
// interval, far above the microsecond seen.
const agreement = time.Millisecond

// A full disk (writes failing with ENOSPC after n frames) ends the capture
// with the reason; the frames written so far stay indexed and readable.
func TestDiskFull(t *testing.T) {
	ctx := browserTab(t)
	site := serve(t, "127.0.0.1")
	navigate(t, ctx, site+"/red")
	tk := newTake(t)
	o := tk.options(site + "/red")
	const n = 6
	var writes atomic.Int64
	o.WriteFile = func(name string, data []byte) error {
		if writes.Add(1) > n {
			// A real full disk leaves a partial file behind.
			_ = os.WriteFile(name, data[:len(data)/2], 0o644)
			return &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
		}
		return os.WriteFile(name, data, 0o644)
	}
	c, err := recorder.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, c, "a full disk")
	res := c.Stop(ctx)
	if !errors.Is(res.Err, syscall.ENOSPC) || !strings.Contains(res.Capture.EndReason, "no space left on device") {
		t.Fatalf("capture ended with %v (%q), want ENOSPC", res.Err, res.Capture.EndReason)
	}
	a := res.Capture.Frames
	if a.Delivered != n || a.Rejected < 1 || !a.Balanced() {
		t.Errorf("accounting %+v, want %d delivered and the rest rejected", a, n)
	}
	opened, frames := tk.finish(t, res)
	if len(frames) != n {
		t.Errorf("%d frames indexed, want %d", len(frames), n)
	}
	for _, fr := range frames {
		if _, err := opened.ReadFrame(fr); err != nil {
			t.Error(err)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(tk.dir, "frames", "*.jpg")); len(files) != n {
		t.Errorf("%d frame files on disk, want %d (no partial frame)", len(files), n)
	}
}

// Chromium killed mid-capture: the capture ends with the reason, and the
// frames so far are indexed and readable.
func TestChromiumKilled(t *testing.T) {
	ctx, b := ownBrowserTab(t)
	_, tk, c := captureIn(t, ctx, "/green")
	waitFrames(t, c, 8)
	if err := b.Kill(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, c, "killing Chromium")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := c.Stop(sctx)
	if res.Err == nil || res.Capture.EndReason == "stopped" {
		t.Errorf("capture ended with %v (%q), want the reason", res.Err, res.Capture.EndReason)
	}
	t.Logf("end reason: %s", res.Capture.EndReason)
	_, frames := tk.finish(t, res)
	if len(frames) < 8 {
		t.Errorf("%d frames kept, want at least 8", len(frames))
	}
	if res.Capture.Ended > res.Capture.Started+timeline.Time(time.Minute) || res.Capture.Ended < frames[len(frames)-1].Received {
		t.Errorf("capture ended at %v, last frame received at %v", res.Capture.Ended, frames[len(frames)-1].Received)
	}
	if r := b.Close(); r.Profile != "removed" {
		t.Errorf("cleanup %+v", r)
	}
}

// A renderer crash ends the capture with ErrCrashed.
func TestRendererCrash(t *testing.T) {
	ctx, _, tk, c := captureOn(t, "/blue")
	waitFrames(t, c, 5)
	// Page.crash never replies (the renderer is gone): the call waits in
	// its own goroutine until the capture has seen the crash.
	cctx, cancel := context.WithCancel(ctx)
	called := make(chan struct{})
	go func() { // owned by the test: ends when cancel is called
		defer close(called)
		_, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{})
	}()
	waitDone(t, c, "crashing the renderer")
	cancel()
	<-called
	res := c.Stop(ctx)
	if !errors.Is(res.Err, recorder.ErrCrashed) || res.Capture.EndReason != recorder.ErrCrashed.Error() {
		t.Errorf("capture ended with %v (%q), want a crash", res.Err, res.Capture.EndReason)
	}
	if _, frames := tk.finish(t, res); len(frames) < 5 {
		t.Errorf("%d frames kept", len(frames))
	}
}

// Closing the captured tab ends the capture with the reason.
func TestTargetClosed(t *testing.T) {
	ctx, _, tk, c := captureOn(t, "/red")
	waitFrames(t, c, 5)
	id := chromedp.FromContext(ctx).Target.TargetID
	if _, err := chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, c, "closing the tab")
	res := c.Stop(ctx)
	if res.Err == nil || !strings.Contains(res.Capture.EndReason, "detached") {
		t.Errorf("capture ended with %v (%q), want the tab's detach", res.Err, res.Capture.EndReason)
	}
	t.Logf("end reason: %s", res.Capture.EndReason)
	if _, frames := tk.finish(t, res); len(frames) < 5 {
		t.Errorf("%d frames kept", len(frames))
	}
}

// Settle adds the page as it is now: after a change the screencast missed,
// the take holds a seeded frame showing it before the final seed, and the
// accounting still balances. The screencast is asked for one frame in a
// thousand and not for the frame it held back, so it sends nothing of the
// still page and its change: every frame is a seed.
func TestSettleAddsTheSettledPage(t *testing.T) {
	ctx, _, tk, c := captureOn(t, "/teal?still", func(o *recorder.Options) {
		o.EveryNthFrame, o.NoSendLastFrame, o.SettleByFrame = 1000, true, true
	})
	since := c.Now()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.body.style.background='rgb(200,0,200)'`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Settle(since); err != nil {
		t.Fatal(err)
	}
	res := c.Stop(ctx)
	if res.Err != nil || res.Capture.EndReason != "stopped" || !res.Capture.Frames.Balanced() {
		t.Errorf("capture ended with %v (%q), accounting %+v", res.Err, res.Capture.EndReason, res.Capture.Frames)
	}
	opened, frames := tk.finish(t, res)
	if len(frames) < 3 {
		t.Fatalf("%d frames: want the first seed, the settled one and the final seed", len(frames))
	}
	// Only seeds show the change: the last frame before the final seed is
	// the settled one.
	purple := [3]uint8{200, 0, 200}
	for _, fr := range frames[:len(frames)-2] {
		if near(colorOf(t, opened, fr), purple) {
			t.Fatalf("frame %d (seeded %v) already shows the change: the screencast did not miss it, so this test cannot tell what Settle adds", fr.Seq, fr.Seeded)
		}
	}
	settled := frames[len(frames)-2]
	if !settled.Seeded {
		t.Errorf("the frame before the final seed (seq %d) is not a seed", settled.Seq)
	}
	if got := colorOf(t, opened, settled); !near(got, purple) {
		t.Errorf("the frame before the final seed (seq %d, seeded %v) shows %v, want the settled page", settled.Seq, settled.Seeded, got)
	}
	if err := c.Settle(c.Now()); err != nil {
		t.Errorf("Settle after Stop: %v, want a no-op", err)
	}
	wantSettled(t, res, 0, 1, "the screencast sends one frame in 1000, so the one settled picture is a screenshot (after waiting for a frame)")
}

// Settle on a still page that just changed gets its picture from the
// screencast: it asks the compositor for one more frame and waits for it,
// without a screenshot, and the frame shows the change.
func TestSettleAsksTheScreencastForAFrame(t *testing.T) {
	ctx, _, tk, c := captureSettlingByFrame(t, "/teal?still")
	waitFrames(t, c, 1)
	since := c.Now()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.body.style.background='rgb(200,0,200)'`)); err != nil {
		t.Fatal(err)
	}
	before := c.Snapshot().Received
	if err := c.Settle(since); err != nil {
		t.Fatal(err)
	}
	after := c.Snapshot()
	res := c.Stop(ctx)
	checkClean(t, res)
	if !wantSettled(t, res, 1, 0, "want one frame from the screencast and no screenshot") {
		t.FailNow()
	}
	if after.Received <= before {
		t.Fatalf("Settle returned with no new frame received (%d before, %d after)", before, after.Received)
	}
	opened, frames := tk.finish(t, res)
	purple := [3]uint8{200, 0, 200}
	var shown bool
	for _, fr := range frames {
		if !fr.Seeded && fr.Seq < after.Received+1 && near(colorOf(t, opened, fr), purple) {
			shown = true
		}
	}
	if !shown {
		t.Errorf("no screencast frame received by the end of Settle shows the change")
	}
}

// After a cross-site navigation (a new renderer process), Settle still
// gets its picture from the screencast.
func TestSettleAfterCrossSiteNavigation(t *testing.T) {
	ctx, _, _, c := captureSettlingByFrame(t, "/teal?still")
	waitFrames(t, c, 1)
	if err := c.Settle(c.Now()); err != nil {
		t.Fatal(err)
	}
	other := serve(t, "localhost")
	// Counted before the navigation: the new page's first frame may come
	// before navigate returns, and a still page sends no other.
	seen := c.Snapshot().Delivered
	navigate(t, ctx, other+"/green?still")
	waitFrames(t, c, seen+1)
	since := c.Now()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.body.style.background='rgb(200,0,200)'`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Settle(since); err != nil {
		t.Fatal(err)
	}
	res := c.Stop(ctx)
	checkClean(t, res)
	wantSettled(t, res, 2, 0, "want both pictures from the screencast")
	if len(res.Boundaries) != 2 {
		t.Errorf("boundaries %+v, want the navigation's", res.Boundaries)
	}
}

// captureSettlingByFrame is captureOn with Options.SettleByFrame.
func captureSettlingByFrame(t *testing.T, path string) (context.Context, string, *take, *recorder.Capture) {
	t.Helper()
	return captureOn(t, path, func(o *recorder.Options) { o.SettleByFrame = true })
}

// By default Settle takes a screenshot.
func TestSettleTakesAScreenshotByDefault(t *testing.T) {
	ctx, _, _, c := captureOn(t, "/teal?still")
	waitFrames(t, c, 1)
	if err := c.Settle(c.Now()); err != nil {
		t.Fatal(err)
	}
	res := c.Stop(ctx)
	checkClean(t, res)
	wantSettled(t, res, 0, 1, "want one screenshot")
}

// A step that navigated the page has nothing to settle, even when the
// navigation's events all came before Settle was called (a press of Enter
// whose load began as the step returned): no screenshot is taken, none
// fails, and the new document is filmed as it paints. A screenshot here
// once raced the commit and failed with "not attached to an active page".
func TestSettleAfterANavigationTakesNoPicture(t *testing.T) {
	ctx, site, _, c := captureOn(t, "/teal?still")
	waitFrames(t, c, 1)
	since := c.Now()
	seen := c.Snapshot().Delivered
	navigate(t, ctx, site+"/green?still")
	waitFrames(t, c, seen+1)
	if err := c.Settle(since); err != nil {
		t.Fatalf("Settle after a navigation: %v", err)
	}
	// The same page settled for a later step is pictured again.
	if err := c.Settle(c.Now()); err != nil {
		t.Fatal(err)
	}
	res := c.Stop(ctx)
	checkClean(t, res)
	wantSettled(t, res, 0, 1, "want only the later step's screenshot")
}

// wantSettled reports whether the capture's settled pictures were frames
// from the screencast and shots screenshots, and fails t with why when not.
func wantSettled(t *testing.T, res recorder.Result, frames, shots int64, why string) bool {
	t.Helper()
	if s := res.Capture.Settled; s == nil || s.Frames != frames || s.Screenshots != shots {
		t.Errorf("settled %+v: %s", s, why)
		return false
	}
	return true
}

// A page that animates without pause has its screencast started anew after
// each stretch of steady frames (so Chromium's capturer never locks onto
// one region): handed over to a second session, or, when there is none,
// stopped and started in place. Frames go on coming through it, each
// acked, in source order; with NoRestart the capture keeps one screencast.
func TestScreencastRestartsOnSteadyFrames(t *testing.T) {
	for _, way := range []string{"hand-over", "in place", "one screencast"} {
		keep := way == "one screencast"
		t.Run(way, func(t *testing.T) {
			t.Parallel() // each its own tab; most of a way is watching the animation
			ctx, _, tk, c := captureOn(t, "/green", func(o *recorder.Options) {
				o.NoRestart = keep
				if way == "in place" {
					recorder.RestartInPlace(o)
				}
			})
			waitFrames(t, c, 10)
			// Four seconds of animation: several stretches of 750 ms even
			// at a few frames a second on a loaded machine.
			time.Sleep(4 * time.Second)
			n := c.Snapshot().Delivered
			waitFrames(t, c, n+10) // frames still come after the restarts
			res := c.Stop(ctx)
			checkClean(t, res)
			if keep && res.Capture.Restarts != 0 {
				t.Errorf("%d restarts with NoRestart", res.Capture.Restarts)
			}
			if !keep && res.Capture.Restarts < 1 {
				t.Errorf("no restart in 4 s of steady frames (%+v)", res.Capture.Frames)
			}
			_, frames := tk.finish(t, res)
			for i := 1; i < len(frames); i++ {
				if frames[i].Source <= frames[i-1].Source {
					t.Fatalf("frame %d (source %v) after frame %d (source %v)", frames[i].Seq, frames[i].Source, frames[i-1].Seq, frames[i-1].Source)
				}
			}
		})
	}
}

// A capture whose screencast fails to start after its seeded first frame
// returns a StartError whose result accounts for that frame and its first
// boundary; the next capture into the take numbers on from it, and the
// take verifies: every picture listed is accounted for, and none is
// written over.
func TestStartFailureKeepsItsPart(t *testing.T) {
	ctx := browserTab(t)
	site := serve(t, "127.0.0.1")
	url := site + "/teal"
	navigate(t, ctx, url)
	tk := newTake(t)
	o := tk.options(url)
	failing := o
	recorder.FailScreencastStart(&failing, errors.New("no screencast today"))
	c, err := recorder.Start(ctx, failing)
	var se *recorder.StartError
	if c != nil || !errors.As(err, &se) || !strings.Contains(err.Error(), "no screencast today") {
		t.Fatalf("Start: %v, %v; want a StartError", c, err)
	}
	if a := se.Result.Capture.Frames; a.Delivered != 1 || !a.Balanced() || se.Result.NextSeq != 1 || len(se.Result.Boundaries) != 1 {
		t.Fatalf("the failed start's result: %+v, next seq %d, %d boundaries; want its seeded frame and first boundary", a, se.Result.NextSeq, len(se.Result.Boundaries))
	}
	o.FirstSeq, o.FirstDocument = se.Result.NextSeq, se.Result.NextDocument
	c, err = recorder.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	waitFrames(t, c, 3) // its seed and screencast frames
	res := c.Stop(ctx)
	checkClean(t, res)
	_, frames := tk.finish(t, recorder.Join(se.Result, res))
	if len(frames) < 2 || !frames[0].Seeded || frames[0].Seq != 0 || frames[1].Seq != 1 || frames[1].Document != 1 {
		t.Fatalf("frames %+v: want the failed start's seed as 0, the next capture's from 1 in document 1", frames)
	}
	if v := timeline.Verify(tk.dir); !v.OK() {
		t.Fatal(v.Err())
	}
}
