package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// runCLI runs clapper in this process, as main does (runApp), and returns
// its output and exit code.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = runApp(context.Background(), append([]string{"clapper"}, args...), &o, &e)
	return o.String(), e.String(), code
}

// runCLIEnv runs clapper with env added to the test's: the built binary,
// since the environment is the process's.
func runCLIEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runBin(t, env, args...)
}

// runBin runs the built clapper, as a user does, with env added to the
// test's: for what only a process shows (its version stamp, its
// environment, its exit).
func runBin(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(clapperBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run clapper: %v", err)
	}
	return o.String(), e.String(), code
}

func sandboxArgs() []string {
	if testenv.NoSandbox() {
		return []string{"--no-sandbox"}
	}
	return nil
}

// ffprobe returns the first video stream's fields and the format duration.
func ffprobe(t *testing.T, path string) (map[string]string, float64) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,pix_fmt,width,height,r_frame_rate,nb_read_frames:format=duration",
		"-of", "default=noprint_wrappers=1", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	d, _ := strconv.ParseFloat(m["duration"], 64)
	return m, d
}

// decodeFrame returns the RGB pixels of the video frame shown at sec.
func decodeFrame(t *testing.T, path string, sec float64, w, h int) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-ss", strconv.FormatFloat(sec, 'f', 3, 64), "-i", path,
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatalf("decode frame at %.3fs: %v", sec, err)
	}
	if len(out) != w*h*3 {
		t.Fatalf("decoded frame has %d bytes, want %d", len(out), w*h*3)
	}
	return out
}

// The quickstart as a new user runs it: a video script, so studio mode
// by default (the headless shell is installed with Chromium).
func TestQuickstartEndToEnd(t *testing.T) {
	testenv.Need(t, "chromium-headless-shell")
	quickstartEndToEnd(t, "")
}

// quickstartEndToEnd runs the quickstart with --capture capture ("" for
// the default) and checks the take, the videos and a re-render.
func quickstartEndToEnd(t *testing.T, capture string) {
	testenv.Need(t, "chromium", "ffmpeg", "ffprobe")
	out := t.TempDir()
	// Flags after the positional argument must work.
	args := append([]string{"run", "../../samples/quickstart.yaml", "-o", out, "--quiet"}, sandboxArgs()...)
	if capture != "" {
		// The videos of the script's output are checked on the default
		// run (the render does not depend on how the take was filmed);
		// a live take is checked by the plain render below.
		args = append(args, "--capture", capture, "--no-video")
	}
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("clapper run exited %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	takeDir := filepath.Join(out, "take")
	video := filepath.Join(out, "quickstart.mp4")
	if capture == "" {
		if st, err := os.Stat(video); err != nil {
			t.Fatal(err)
		} else if st.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("video %s has mode %v: want readable by all", video, st.Mode())
		}
	}

	js, stderr, code := runCLI(t, "inspect", takeDir, "--json", "--check")
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	var sum struct {
		DurationMs int64 `json:"duration_ms"`
		Frames     struct {
			Received, Delivered, Overflow, Late, Duplicates, Rejected int64
		} `json:"frames"`
		Boundaries []struct {
			Document int     `json:"document"`
			URL      *string `json:"url"`
			AtMs     int64   `json:"at_ms"`
		} `json:"boundaries"`
		Steps []struct {
			Line    int    `json:"line"`
			Kind    string `json:"kind"`
			Outcome string `json:"outcome"`
			StartMs int64  `json:"start_ms"`
			EndMs   int64  `json:"end_ms"`
		} `json:"steps"`
		Receipts int   `json:"receipts"`
		Holds    []any `json:"holds"`
	}
	if err := json.Unmarshal([]byte(js), &sum); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, js)
	}
	f := sum.Frames
	if f.Delivered == 0 || f.Received != f.Delivered+f.Overflow+f.Late+f.Duplicates+f.Rejected {
		t.Errorf("frames: %+v", f)
	}
	if sum.Receipts == 0 {
		t.Error("no input receipts")
	}
	if len(sum.Steps) != 9 {
		t.Errorf("%d steps recorded, want 9", len(sum.Steps))
	}
	for _, s := range sum.Steps {
		if s.Outcome != "ok" || s.EndMs < s.StartMs || s.Line == 0 {
			t.Errorf("step %+v", s)
		}
	}
	nav := false
	for _, b := range sum.Boundaries {
		if b.Document > 0 && b.URL != nil && strings.Contains(*b.URL, "/done.html") {
			nav = true
		}
	}
	if !nav {
		t.Errorf("no boundary for the navigation to done.html: %+v", sum.Boundaries)
	}
	if sum.Holds == nil {
		t.Error("holds missing from the summary (want [])")
	}
	// Filmed in studio mode (the default with a video), every frame has
	// its own picture, taken with it: none needed a second try.
	if capture == "" {
		tk, err := timeline.Open(takeDir)
		if err != nil {
			t.Fatal(err)
		}
		if c := tk.Timeline.Capture; c.Mode != timeline.CaptureStudio || c.Pictures != timeline.PicturesScreenshot || c.Missed != 0 {
			t.Errorf("capture %s, pictures from the %s, %d missed: want studio, every picture with its frame", c.Mode, c.Pictures, c.Missed)
		}
	}

	if capture == "" {
		quickstartVideos(t, out, video, takeDir, sum.DurationMs)
	}
	// Re-render the plain capture at 30 fps, for measuring the cursor, at
	// the viewport's size (the capture is twice that: a quarter of the
	// pixels to encode and decode, and the cursor is placed by the ratio).
	plain := filepath.Join(out, "plain.mp4")
	if _, stderr, code := runCLI(t, "render", takeDir, "--plain", "--fps", "30", "--size", "1280x720", "-o", plain, "-q"); code != 0 {
		t.Fatalf("render plain: exit %d: %s", code, stderr)
	}
	probe, _ := ffprobe(t, plain)
	if probe["r_frame_rate"] != "30/1" {
		t.Errorf("plain render: %v", probe)
	}
	w, _ := strconv.Atoi(probe["width"])
	h, _ := strconv.Atoi(probe["height"])
	video = plain
	// No white lead-in: the first frame already shows the sample site, not
	// the blank tab before the goto.
	if first := decodeFrame(t, plain, 0, w, h); distinctColours(first) < 50 || whiteShare(first) > 0.9 {
		t.Errorf("first frame: %d distinct colours, %.0f%% white: the blank tab before the goto?\n%s", distinctColours(first), 100*whiteShare(first), leadInFacts(takeDir))
	}

	// The cursor is drawn at the commanded click position.
	tk, err := timeline.Open(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	tl := tk.Timeline
	wantMode := capture
	if wantMode == "" {
		wantMode = timeline.CaptureStudio // the default for a script with a video
	}
	if tl.Capture.Mode != wantMode {
		t.Errorf("the timeline says capture %q, want %q", tl.Capture.Mode, wantMode)
	}
	var down *timeline.Receipt
	for i := range tl.Receipts {
		if tl.Receipts[i].Kind == timeline.InputDown {
			down = &tl.Receipts[i]
			break
		}
	}
	if down == nil {
		t.Fatal("no pointer-down receipt")
	}
	// The video starts at the end of the lead-in, not at the take's start
	// (a slow load makes the difference large enough to miss the click).
	at := (time.Duration(down.Sent-tl.Start) - leadIn(t, takeDir)).Seconds() + 0.01
	px := decodeFrame(t, video, at, w, h)
	scale := float64(w) / float64(tl.Viewport.Width)
	cx, cy := int(down.X*scale), int(down.Y*scale)
	if dark := darkPixels(px, w, cx, cy, 14, 20); dark < 8 {
		t.Errorf("cursor not found at the commanded position (%d,%d) at %.3fs: %d dark pixels", cx, cy, at, dark)
	}
}

func distinctColours(rgb []byte) int {
	seen := map[[3]byte]bool{}
	for i := 0; i+2 < len(rgb); i += 3 * 7 {
		seen[[3]byte{rgb[i] & 0xf8, rgb[i+1] & 0xf8, rgb[i+2] & 0xf8}] = true
	}
	return len(seen)
}

// leadIn is how long a take opens on the blank tab: from its start to the
// first frame of document 1 produced after that document's commit and the
// goto's end (the load).
func leadIn(t *testing.T, takeDir string) time.Duration {
	t.Helper()
	tk, err := timeline.Open(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tk.Timeline.Boundaries) < 2 {
		t.Fatalf("boundaries %+v: want the goto's", tk.Timeline.Boundaries)
	}
	b := tk.Timeline.Boundaries[1]
	after := max(b.At, tk.Timeline.Steps[0].End)
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Document >= b.Document && fr.Source >= after {
			return time.Duration(fr.Source - tk.Timeline.Start)
		}
	}
	t.Fatal("no frame of the goto's document")
	return 0
}

// leadInFacts says what the lead-in was chosen from, for a failure's
// message, in ms from the take's start: the boundaries, the first step,
// and the first frames of the documents after the blank one.
func leadInFacts(takeDir string) string {
	tk, err := timeline.Open(takeDir)
	if err != nil {
		return err.Error()
	}
	tl := tk.Timeline
	ms := func(at timeline.Time) float64 { return float64(at-tl.Start) / 1e6 }
	var b strings.Builder
	for _, bd := range tl.Boundaries {
		fmt.Fprintf(&b, "boundary: document %d at %.1f ms\n", bd.Document, ms(bd.At))
	}
	if len(tl.Steps) > 0 {
		fmt.Fprintf(&b, "step %s: %.1f to %.1f ms\n", tl.Steps[0].Kind, ms(tl.Steps[0].Start), ms(tl.Steps[0].End))
	}
	n := 0
	for fr, err := range tk.Frames() {
		if err != nil {
			fmt.Fprintf(&b, "frames: %v\n", err)
			break
		}
		if n == 12 {
			break
		}
		if fr.Document > 0 {
			fmt.Fprintf(&b, "frame %d: document %d, made %.1f ms, received %.1f ms, seeded %v, %d bytes\n", fr.Seq, fr.Document, ms(fr.Source), ms(fr.Received), fr.Seeded, fr.Bytes)
			n++
		}
	}
	return b.String()
}

// whiteShare is the share of near-white pixels.
func whiteShare(rgb []byte) float64 {
	n := 0
	for i := 0; i+2 < len(rgb); i += 3 {
		if rgb[i] > 251 && rgb[i+1] > 251 && rgb[i+2] > 251 {
			n++
		}
	}
	return float64(n) / float64(len(rgb)/3)
}

// darkPixels counts near-black pixels in the box right of and below (x, y),
// where an arrow's body lies from its hotspot.
func darkPixels(rgb []byte, w, x, y, bw, bh int) int {
	n := 0
	h := len(rgb) / 3 / w
	for yy := y; yy < y+bh && yy < h; yy++ {
		for xx := x; xx < x+bw && xx < w; xx++ {
			i := (yy*w + xx) * 3
			if rgb[i] < 60 && rgb[i+1] < 60 && rgb[i+2] < 60 {
				n++
			}
		}
	}
	return n
}

// asUID runs clapper as the given user as far as the process can tell:
// directly when the test runs as that user (root or not), otherwise in a
// new user namespace that maps it to the test's own user. ok is false when
// this machine allows no user namespaces.
func asUID(t *testing.T, root bool, args ...string) (stdout, stderr string, code int, ok bool) {
	t.Helper()
	cmd := exec.Command(clapperBin, args...)
	if (os.Geteuid() == 0) != root {
		uid := 0
		if !root {
			uid = 1000
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: os.Getuid(), Size: 1}}}
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Start()
	if err != nil && cmd.SysProcAttr != nil {
		return "", "", 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode(), true
}

// The real root check of a run, with no skip where user namespaces exist:
// as root (really, or in a user namespace), a run without the no-sandbox
// choice is refused with exit 2 before anything launches; with it, the run
// goes on to launch Chromium; as another user nothing is refused. The
// Chromium is a stand-in that records its launch and fails, so no browser
// is needed. Without user namespaces, the case for the other user skips,
// or fails when CLAPPER_REQUIRE_INTEGRATION=1 requires every test to run.
func TestRunRefusesRootWithoutSandboxChoice(t *testing.T) {
	dir := t.TempDir()
	launched := filepath.Join(dir, "launched")
	fake := filepath.Join(dir, "fake-chromium")
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" > "+launched+"\nexit 1\n"), 0o755)
	script := filepath.Join(dir, "demo.yaml")
	os.WriteFile(script, []byte("name: demo\nsteps:\n  - goto: about:blank\n"), 0o644)
	run := func(t *testing.T, root bool, extra ...string) (string, int, bool) {
		t.Helper()
		os.Remove(launched)
		args := append([]string{"run", script, "-o", filepath.Join(t.TempDir(), "out"), "--chromium", fake, "-q"}, extra...)
		_, stderr, code, ok := asUID(t, root, args...)
		if !ok {
			if req, _ := testenv.Required(); req {
				t.Fatalf("cannot run clapper as root=%v: this machine gives no user namespaces, and %s=1 requires this test", root, testenv.RequireEnv)
			}
			t.Skipf("cannot run clapper as root=%v here: no user namespaces", root)
		}
		_, err := os.Stat(launched)
		return stderr, code, err == nil
	}
	t.Run("root", func(t *testing.T) {
		stderr, code, started := run(t, true)
		if code != exitUsage || !strings.Contains(stderr, "--no-sandbox") || started {
			t.Errorf("as root without --no-sandbox: exit %d, launched %v, stderr %q; want exit 2 naming --no-sandbox, nothing launched", code, started, stderr)
		}
		stderr, code, started = run(t, true, "--no-sandbox")
		if code != exitFailed || !started || strings.Contains(stderr, "running as root") {
			t.Errorf("as root with --no-sandbox: exit %d, launched %v, stderr %q; want the stand-in launched and its failure (exit 1)", code, started, stderr)
		}
		if b, _ := os.ReadFile(launched); !strings.Contains(string(b), "--no-sandbox") {
			t.Errorf("Chromium launched without --no-sandbox: %s", b)
		}
	})
	t.Run("not root", func(t *testing.T) {
		stderr, code, started := run(t, false)
		if code != exitFailed || !started || strings.Contains(stderr, "running as root") {
			t.Errorf("as another user: exit %d, launched %v, stderr %q; want no root refusal, the stand-in launched", code, started, stderr)
		}
		if b, _ := os.ReadFile(launched); strings.Contains(string(b), "--no-sandbox") {
			t.Errorf("Chromium launched without its sandbox, nobody asked: %s", b)
		}
	})
}

// --no-video records the take and renders nothing; clapper render makes the
// script's videos from the take later, beside it.
func TestRunNoVideo(t *testing.T) {
	testenv.Need(t, "chromium", "ffmpeg", "ffprobe")
	dir := t.TempDir()
	path := filepath.Join(dir, "still.yaml")
	os.WriteFile(path, []byte("name: still\noutput: {video: [still.mp4, still.webm]}\nsteps:\n  - goto: \"data:text/html,<h1>still</h1>\"\n  - pause: 500ms\n  - click: \"#cookie\"\n    optional: true\n    timeout: 200ms\n"), 0o644)
	out := filepath.Join(dir, "out")
	_, stderr, code := runCLI(t, append([]string{"run", path, "-o", out, "--no-video", "-q"}, sandboxArgs()...)...)
	if code != 0 {
		t.Fatalf("run --no-video: exit %d: %s", code, stderr)
	}
	// A failed optional step does not fail the run, but is said even quiet,
	// with its place.
	if want := "clapper: 1 optional step failed: still.yaml:6 (click)"; !strings.Contains(stderr, want) {
		t.Errorf("quiet run's stderr %q lacks %q", stderr, want)
	}
	tk, err := timeline.Open(filepath.Join(out, "take"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Validate(); err != nil || tk.Timeline.Capture.Frames.Delivered == 0 {
		t.Fatalf("take: %v, %d frames", err, tk.Timeline.Capture.Frames.Delivered)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 1 || ents[0].Name() != "take" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("run --no-video left %v in its folder, want only the take", names)
	}
	if _, stderr, code := runCLI(t, "render", filepath.Join(out, "take"), "-q"); code != 0 {
		t.Fatalf("render: exit %d: %s", code, stderr)
	}
	for _, v := range []string{"still.mp4", "still.webm"} {
		if p, _ := ffprobe(t, filepath.Join(out, v)); p["width"] == "" {
			t.Errorf("%s: %v", v, p)
		}
	}
}

// quickstartVideos checks the videos the quickstart's output asks for (the
// docs preset: 1080p60 H.264, and a GIF) against its take, and a social
// cut re-rendered from the take without a browser.
func quickstartVideos(t *testing.T, out, video, takeDir string, durationMs int64) {
	t.Helper()
	probe, dur := ffprobe(t, video)
	if probe["codec_name"] != "h264" || probe["pix_fmt"] != "yuv420p" || probe["r_frame_rate"] != "60/1" ||
		probe["width"] != "1920" || probe["height"] != "1080" {
		t.Errorf("video stream: %v", probe)
	}
	// The video starts at the first frame of the goto's document made
	// after its load: the blank tab before it is not shown.
	want := float64(durationMs)/1000 - leadIn(t, takeDir).Seconds()
	if math.Abs(dur-want) > 0.05*want {
		t.Errorf("video lasts %.3fs, take %.3fs: more than 5%% apart", dur, want)
	}
	if n, _ := strconv.Atoi(probe["nb_read_frames"]); n < int(want*60)-3 {
		t.Errorf("decoded %d frames, want about %d", n, int(want*60))
	}
	// A frame from the middle is a picture, not a blank.
	if mid := decodeFrame(t, video, dur/2, 1920, 1080); distinctColours(mid) < 50 {
		t.Errorf("middle frame has %d distinct colours: blank?", distinctColours(mid))
	}
	if gif, _ := ffprobe(t, filepath.Join(out, "quickstart.gif")); gif["codec_name"] != "gif" {
		t.Errorf("gif: %v", gif)
	}
	// Re-render without a browser: a square social cut.
	if _, stderr, code := runCLI(t, "render", takeDir, "-o", filepath.Join(out, "square.mp4"), "--preset", "social", "-q"); code != 0 {
		t.Fatalf("render social: exit %d: %s", code, stderr)
	}
	if sq, _ := ffprobe(t, filepath.Join(out, "square.mp4")); sq["width"] != "1080" || sq["height"] != "1080" {
		t.Errorf("social cut: %v", sq)
	}
}
