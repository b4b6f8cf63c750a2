package session

import (
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// In studio mode a hold stops the stage's virtual time: across a 2 s hold
// its requestAnimationFrame loop, setInterval timer, setTimeout chain and
// CSS animations (compositor and main thread) do not move, no frame of it
// is stored, input to it is refused; after the resume they all run again
// from where they stopped, with no jump: 1 s of take time is 1 s of
// animation.
func TestStudioHoldFreezesStage(t *testing.T) {
	var before, after, later pageHoldState
	res, take := runHolds(t, studioHeader, `  - goto: ${serve.url}/hold.html
  - pause: 1s
  - hold: stage
  - pause: 2s
  - click: "#b"
    tab: stage
    optional: true
  - resume: stage
  - pause: 1s
  - expect: {text: "clicks 0", in: {css: p, visible: true}}
`, RunOptions{beforeStep: readsBefore(t, readAt{2, "main", &before}, readAt{6, "main", &after}, readAt{7, "main", &later})})
	mustPass(t, res)
	tl := res.Timeline
	if st := tl.Steps[4]; st.Outcome != timeline.OutcomeUndispatched || !strings.Contains(st.Error, "held") {
		t.Errorf("click on the held stage: %s %q, want undispatched, held", st.Outcome, st.Error)
	}
	if len(tl.Holds) != 1 || tl.Holds[0].Ended != timeline.HoldResumed {
		t.Fatalf("holds: %+v", tl.Holds)
	}
	h := tl.Holds[0]
	if d := time.Duration(h.End - h.Start); d < 2*time.Second {
		t.Errorf("the hold lasted %v of take time, want the 2 s pause in it", d)
	}
	// Between reading the state and the hold the pump may make a frame or
	// two (the session works between its calls): a few ticks at most.
	for name, n := range map[string]int{
		"rAF":         len(after.RAF) - len(before.RAF),
		"setInterval": len(after.IV) - len(before.IV),
		"setTimeout":  len(after.TO) - len(before.TO),
	} {
		if n > 3 {
			t.Errorf("%s ticked %d times across the hold", name, n)
		}
	}
	for name, n := range map[string]int{
		"rAF":         len(later.RAF) - len(after.RAF),
		"setInterval": len(later.IV) - len(after.IV),
		"setTimeout":  len(later.TO) - len(after.TO),
	} {
		if n < 10 {
			t.Errorf("%s ticked %d times in the second after the resume, want it running again", name, n)
		}
	}
	for _, name := range []string{"slide-t", "slide-l"} {
		moved := anim(t, after, name) - anim(t, before, name)
		ran := anim(t, later, name) - anim(t, after, name)
		t.Logf("%s: %.0f ms of animation across the hold, %.0f ms in the second after it", name, moved, ran)
		if moved > 50 {
			t.Errorf("%s moved %.0f ms of animation across the hold", name, moved)
		}
		if ran < 950 || ran > 1100 {
			t.Errorf("%s ran %.0f ms of animation in the 1 s pause after the resume (a jump, or stalled)", name, ran)
		}
	}
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatal(err)
	}
	inHold, stage := 0, 0
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		stage++
		if fr.Source > h.Start && fr.Source < h.End {
			inHold++
		}
	}
	if inHold != 0 || stage == 0 {
		t.Errorf("%d frames of the stage stored during the hold (of %d)", inHold, stage)
	}
}

// In studio mode a tab that is not filmed is driven by the filmed tab's
// pump: while the filmed stage is held, the scout takes a click, its
// requestAnimationFrame loop and timers run (each 50 ms interval of the
// scout's virtual time gives its timers a tick), and the stage sees none
// of it. Then the scout is filmed and the stage, resumed and unfilmed,
// runs on too.
func TestStudioScoutWorksWhileStageHeld(t *testing.T) {
	var scoutBefore, scoutAfter, stageLater pageHoldState
	res, _ := runHolds(t, studioHeader, `  - goto: ${serve.url}/hold.html
  - tab: {open: scout, url: "${serve.url}/hold.html"}
  - film: stage
  - pause: 500ms
  - hold: stage
  - pause: 1s
  - click: "#b"
    tab: scout
  - wait: {js: "ticks.clicks === 1"}
    tab: scout
  - pause: 1s
  - resume: stage
  - film: scout
  - pause: 1s
  - expect: {text: "clicks 0", in: {css: p, visible: true}}
    tab: stage
`, RunOptions{beforeStep: readsBefore(t, readAt{5, "scout", &scoutBefore}, readAt{9, "scout", &scoutAfter}, readAt{12, "main", &stageLater})})
	mustPass(t, res)
	if scoutAfter.Clicks != 1 {
		t.Errorf("the scout saw %d clicks, want 1", scoutAfter.Clicks)
	}
	// 1.5 s or more of the scout's virtual time ran between the two
	// readings, all of it while the stage was held and filmed: at 50 ms,
	// its interval ticked about 30 times, and its rAF loop about 90.
	if n := len(scoutAfter.IV) - len(scoutBefore.IV); n < 25 {
		t.Errorf("the scout's setInterval ticked %d times while the stage was held, want about 30", n)
	}
	if n := len(scoutAfter.RAF) - len(scoutBefore.RAF); n < 75 {
		t.Errorf("the scout's rAF loop ran %d times while the stage was held, want about 90", n)
	}
	if stageLater.Clicks != 0 {
		t.Errorf("the stage saw %d clicks", stageLater.Clicks)
	}
	if len(stageLater.IV) == 0 {
		t.Error("the stage's interval never ticked")
	}
}
