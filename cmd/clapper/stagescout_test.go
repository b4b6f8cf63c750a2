package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// The stage-scout sample, as a new user runs it: the stage is held while
// the scout signs up in another tab; the video shows the stage perfectly
// still during the hold (both the compositor's transform animation and the
// main thread's left animation), then going on from where it stopped; and
// inspect shows the hold with its receipt and interval.
func TestStageScoutSample(t *testing.T) {
	t.Parallel() // its own browser, output folder and take; a live run mostly waits out its pauses
	testenv.Need(t, "chromium", "ffmpeg", "ffprobe")
	out := t.TempDir()
	args := append([]string{"run", "../../samples/stage-scout.yaml", "-o", out, "--quiet"}, sandboxArgs()...)
	if stdout, stderr, code := runCLI(t, args...); code != 0 {
		t.Fatalf("clapper run exited %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	take := filepath.Join(out, "take")
	text, stderr, code := runCLI(t, "inspect", take)
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`holds:\n  main  receipt [0-9a-f]{16}  \d+\.\d\ds → \d+\.\d\ds \(\d+\.\d\ds\)  max 30\.00s  ended by resume\n`).MatchString(text) {
		t.Errorf("inspect does not show the hold with its receipt and interval:\n%s", text)
	}
	js, _, _ := runCLI(t, "inspect", take, "--json")
	var sum timeline.Summary
	if err := json.Unmarshal([]byte(js), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Holds) != 1 || sum.Holds[0].Receipt == "" || sum.Holds[0].EndMs-sum.Holds[0].StartMs < 1000 {
		t.Fatalf("holds: %+v", sum.Holds)
	}
	h := sum.Holds[0]
	video := filepath.Join(out, "stage-scout.mp4")
	const w, hgt = 1280, 720
	// The runner (transform) and the pulse (left), by the leftmost pixel
	// of their colour on a row through them.
	pos := func(sec float64) (runner, pulse int) {
		rgb := decodeFrame(t, video, sec, w, hgt)
		runner, pulse = -1, -1
		for x := 0; x < w; x++ {
			r, g, b := int(rgb[(258*w+x)*3]), int(rgb[(258*w+x)*3+1]), int(rgb[(258*w+x)*3+2])
			if runner < 0 && r > 200 && g < 120 && b > 80 {
				runner = x
			}
			r, g, b = int(rgb[(347*w+x)*3]), int(rgb[(347*w+x)*3+1]), int(rgb[(347*w+x)*3+2])
			if pulse < 0 && g > 150 && r < 90 && b < 140 {
				pulse = x
			}
		}
		if runner < 0 || pulse < 0 {
			t.Fatalf("at %.2fs the runner or the pulse is not in the video (%d, %d)", sec, runner, pulse)
		}
		return runner, pulse
	}
	// The video starts at the first real document, not at the take's
	// blank lead-in.
	off := leadIn(t, take).Seconds()
	start, end := float64(h.StartMs)/1000-off, float64(h.EndMs)/1000-off
	r0, p0 := pos(start - 0.4)
	r1, p1 := pos(start + 0.1)
	var still []string
	for _, f := range []float64{0.25, 0.5, 0.75} {
		r, p := pos(start + 0.1 + f*(end-start-0.2))
		if r != r1 || p != p1 {
			still = append(still, "moved")
		}
	}
	// The leftmost pixel of a colour may shift a pixel or two with JPEG's
	// noise; moving backwards would be more.
	if len(still) > 0 || r1 < r0-3 || p1 < p0-3 {
		t.Errorf("the stage is not still during the hold: runner %d then %d, pulse %d then %d (%v)", r0, r1, p0, p1, still)
	}
	r2, p2 := pos(end + 0.6)
	r3, p3 := pos(end + 1.6)
	// 1000 px in 20 s: 50 px/s. From where it stopped, never from where it
	// would be had it run through the hold.
	held := (end - start) * 50
	for _, c := range []struct {
		name      string
		at, after int
		later     int
	}{{"runner (transform)", r1, r2, r3}, {"pulse (left)", p1, p2, p3}} {
		t.Logf("%s: %d px at the hold, %d px 0.6 s after it, %d px 1.6 s after (a hold of %.2f s is %.0f px)", c.name, c.at, c.after, c.later, end-start, held)
		if d := float64(c.after - c.at); d > 0.6*50+25 || d > held/2 {
			t.Errorf("%s jumped %.0f px across the hold", c.name, d)
		}
		if c.later <= c.after {
			t.Errorf("%s does not go on after the hold", c.name)
		}
	}
	if !strings.Contains(text, "film") {
		t.Errorf("inspect lists no film step:\n%s", text)
	}
}
