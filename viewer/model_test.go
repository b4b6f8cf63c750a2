package viewer

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

func TestStepFailed(t *testing.T) {
	cases := []struct {
		st   timeline.Step
		want bool
	}{
		{timeline.Step{Outcome: timeline.OutcomeOK}, false},
		{timeline.Step{Outcome: timeline.OutcomeSkipped}, false},
		{timeline.Step{Outcome: timeline.OutcomeUndispatched}, true},
		{timeline.Step{Outcome: timeline.OutcomeUnknown}, true},
		{timeline.Step{Outcome: timeline.OutcomeRejected, Optional: true}, false},
		{timeline.Step{Outcome: timeline.OutcomeUndispatched, Optional: true, Traits: timeline.Traits{Expectation: true}}, true},
	}
	for _, c := range cases {
		if got := stepFailed(c.st); got != c.want {
			t.Errorf("stepFailed(%+v) = %v", c.st, got)
		}
	}
}

func TestChooseMode(t *testing.T) {
	cases := []struct {
		asked  string
		bytes  int64
		budget int64
		want   string
		err    bool
	}{
		{"", 10, 100, ModeEmbedded, false},
		{"auto", 100, 100, ModeEmbedded, false},
		{"auto", 101, 100, ModeFolder, false},
		{"", DefaultEmbedBudget + 1, 0, ModeFolder, false},
		{ModeFolder, 1, 100, ModeFolder, false},
		{ModeEmbedded, 1000, 100, ModeEmbedded, false},
		{"zip", 1, 1, "", true},
	}
	for _, c := range cases {
		got, err := chooseMode(c.asked, c.bytes, c.budget)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("chooseMode(%q, %d, %d) = %q, %v", c.asked, c.bytes, c.budget, got, err)
		}
	}
}

// The filmstrip is bounded whatever the length, keeps the first frame and
// spaces the rest at least 250 ms apart.
func TestPickThumbs(t *testing.T) {
	mk := func(n int, every float64) []Frame {
		fs := make([]Frame, n)
		for i := range fs {
			fs[i].AtMs = float64(i) * every
		}
		return fs
	}
	for _, c := range []struct {
		n          int
		every, dur float64
		want       int
	}{
		{0, 0, 0, 0}, {1, 0, 0, 1}, {10, 50, 500, 2}, {10, 300, 3000, 10}, {60 * 60 * 30, 33.3, 3600e3, maxThumbs},
	} {
		fs := mk(c.n, c.every)
		got := pickThumbs(fs, c.dur)
		if len(got) != c.want && !(c.want == maxThumbs && len(got) <= maxThumbs+1 && len(got) >= maxThumbs-1) {
			t.Errorf("%d frames every %gms: %d thumbs, want %d", c.n, c.every, len(got), c.want)
		}
		for i := 1; i < len(got); i++ {
			if fs[got[i]].AtMs-fs[got[i-1]].AtMs < 250 {
				t.Errorf("thumbs %d and %d closer than 250ms", got[i-1], got[i])
			}
		}
	}
}

// The policy admits exactly the report's script and style, by hash, and
// nothing remote.
func TestCSP(t *testing.T) {
	p := CSP(pageJS, pageCSS)
	sum := sha256.Sum256([]byte(pageJS))
	if !strings.Contains(p, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"';") {
		t.Errorf("policy %q lacks the script's hash", p)
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "http:", "https:", "*"} {
		if strings.Contains(p, bad) {
			t.Errorf("policy admits %s: %q", bad, p)
		}
	}
	if strings.Contains(pageJS, "</script") || strings.Contains(pageJS, "innerHTML") || strings.Contains(pageJS, "insertAdjacentHTML") || strings.Contains(pageJS, "eval(") {
		t.Error("the report's script builds HTML from strings or ends its element")
	}
}

func TestModel(t *testing.T) {
	u := "javascript:alert(1)"
	tl := &timeline.Timeline{Name: "n", Start: 1e9, End: 3e9, Outcome: timeline.RunFailed,
		Steps: []timeline.Step{{Index: 0, Kind: "goto", Start: 1e9, End: 1.5e9, Outcome: timeline.OutcomeOK,
			Late: &timeline.Late{Planned: 3e8, Took: 4.5e8, Why: "the page was slow"}}, {Index: 1, Kind: "eval", Hidden: true}, {Index: 2, Kind: "expect", Start: 2e9, End: 2.5e9, Outcome: timeline.OutcomeUndispatched, Error: "no"}},
		Boundaries: []timeline.Boundary{{Document: 0, URL: &u, At: 1e9}, {Document: 1, At: 2e9}},
		Holds:      []timeline.Hold{{Tab: "a", Start: 1.2e9}},
		Receipts:   []timeline.Receipt{{Kind: timeline.InputMove, X: 1, Y: 2, Sent: 1.1e9}, {Kind: timeline.InputKey, Sent: 1.2e9}},
	}
	d := Model(tl)
	if d.DurationMs != 2000 || len(d.Steps) != 2 || d.Steps[1].N != 3 || !d.Steps[1].Failed || d.Steps[0].Failed || d.Steps[1].StartMs != 1000 {
		t.Errorf("steps %+v", d.Steps)
	}
	if d.Steps[0].Late != "ran late: its timed parts took 0.45s for their own 0.30s; the page was slow" || d.Steps[1].Late != "" {
		t.Errorf("late %q %q", d.Steps[0].Late, d.Steps[1].Late)
	}
	if d.Documents[0].URL != u || !strings.Contains(d.Documents[1].URL, "longer than 8192") {
		t.Errorf("documents %+v", d.Documents)
	}
	if d.Holds[0].EndMs != 2000 || len(d.Pointer) != 1 || d.Pointer[0].AtMs != 100 {
		t.Errorf("holds %+v pointer %+v", d.Holds, d.Pointer)
	}
}
