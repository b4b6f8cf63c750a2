package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// TestEveryStep runs a script that uses every step kind against a local
// site; its expect/wait steps check the page state each step should have
// produced (text typed, option selected, file uploaded, scroll position…).
func TestEveryStep(t *testing.T) {
	testenv.Need(t, "chromium")
	s, err := scripts.Load("testdata/everything.yaml", scripts.LoadOptions{Env: map[string]string{"TOKEN": "s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Browser.NoSandbox = testenv.NoSandbox()
	kinds := map[string]bool{}
	for _, st := range s.Steps {
		kinds[st.Kind] = true
	}
	for _, k := range []string{"goto", "back", "forward", "reload", "click", "hover", "move", "drag", "type", "fill", "press", "select",
		"check", "uncheck", "scroll", "upload", "wait", "pause", "chapter", "caption", "cursor", "zoom", "hold", "resume", "tab", "expect", "screenshot", "eval"} {
		if !kinds[k] {
			t.Errorf("testdata/everything.yaml does not use %q", k)
		}
	}
	out := t.TempDir()
	take := filepath.Join(out, "take")
	res, err := Run(context.Background(), s, RunOptions{TakeDir: take, Attach: liveEndpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != nil {
		t.Fatalf("run failed: %v", res.Failed)
	}
	tl := res.Timeline
	for _, st := range tl.Steps {
		switch {
		case st.Optional:
			// Under load the page may not answer within the step's short
			// timeout: the error then says so instead of naming a check.
			if st.Outcome != timeline.OutcomeUndispatched || !strings.Contains(st.Error, `text="Nope" not actionable before the timeout`) {
				t.Errorf("optional missing target: outcome %s, error %q", st.Outcome, st.Error)
			}
		case st.Outcome != timeline.OutcomeOK:
			t.Errorf("line %d %s: %s %s", st.Line, st.Kind, st.Outcome, st.Error)
		}
	}
	// The video follows the tab the steps act on: the side tab is filmed
	// while it is current, in the same take, with one numbering.
	tk, err := timeline.Open(take)
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Validate(); err != nil {
		t.Fatal(err)
	}
	tabs := map[string]int{}
	lastSeq := int64(-1)
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Seq <= lastSeq {
			t.Fatalf("frame seq %d after %d", fr.Seq, lastSeq)
		}
		lastSeq = fr.Seq
		tabs[fr.Tab]++
	}
	if tabs["main"] == 0 || tabs["side"] == 0 || tl.Capture.Tab != "" || !tl.Capture.Frames.Balanced() {
		t.Errorf("frames by tab %v, capture tab %q, accounting %+v", tabs, tl.Capture.Tab, tl.Capture.Frames)
	}
	docs := map[int]bool{}
	for _, b := range tl.Boundaries {
		if docs[b.Document] {
			t.Errorf("document %d recorded twice: %+v", b.Document, tl.Boundaries)
		}
		docs[b.Document] = true
	}
	if len(tl.Holds) != 1 || tl.Holds[0].End <= tl.Holds[0].Start {
		t.Errorf("holds: %+v", tl.Holds)
	}
	png, err := os.ReadFile(filepath.Join(out, "page.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot: %v", err)
	}
	raw, _ := os.ReadFile(filepath.Join(take, timeline.TimelineFile))
	if bytes.Contains(raw, []byte("s3cr3t")) {
		t.Error("the secret's value reached the timeline")
	}
	byKind := map[string]int{}
	for _, r := range tl.Receipts {
		byKind[r.Kind]++
	}
	for _, k := range []string{timeline.InputMove, timeline.InputDown, timeline.InputUp, timeline.InputWheel, timeline.InputKey} {
		if byKind[k] == 0 {
			t.Errorf("no %s receipts", k)
		}
	}
	var chapter, caption, zoom bool
	for _, st := range tl.Steps {
		chapter = chapter || (st.Kind == "chapter" && st.Text == "Start")
		caption = caption || (st.Kind == "caption" && st.Text == "Typing a name" && st.Duration > 0)
		zoom = zoom || (st.Kind == "zoom" && st.Region != nil && st.Scale == 2)
	}
	if !chapter || !caption || !zoom {
		t.Errorf("presentation records: chapter %v caption %v zoom %v", chapter, caption, zoom)
	}
}

func TestFailurePaths(t *testing.T) {
	t.Parallel() // mostly waiting for a timeout or a pause to pass
	testenv.Need(t, "chromium")
	// The timeouts are long enough for the page to answer on a loaded
	// machine: the messages checked name what the page answered.
	cases := []struct {
		name, step, want string
		outcome          timeline.Outcome
	}{
		{"expect fails", `expect: {text: "Not on the page"}`, `expected text "Not on the page" on the page before the timeout: saw "`, timeline.OutcomeUndispatched},
		{"never appears", `click: "#never"`, "failed check attached", timeline.OutcomeUndispatched},
		{"ambiguous", `click: ".btn"`, "matches 2 elements", timeline.OutcomeUndispatched},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each its own window of the package's live browser; most of a case is waiting out its timeout
			dir := t.TempDir()
			site, _ := filepath.Abs("testdata/site")
			script := "name: fail\nserve: " + site + "\nsteps:\n  - goto: ${serve.url}/second.html\n  - " + c.step + "\n    timeout: 5s\n  - pause: 1s\n"
			path := filepath.Join(dir, "fail.yaml")
			if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := scripts.Load(path, scripts.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			smallByDefault(script, s)
			s.Browser.NoSandbox = testenv.NoSandbox()
			take := filepath.Join(dir, "take")
			res, err := Run(context.Background(), s, RunOptions{TakeDir: take, Attach: liveEndpoint(t)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed == nil {
				t.Fatalf("the run passed; want a failure at line 5, %s, %q", c.outcome, c.want)
			}
			if res.Failed.Pos.Line != 5 || res.Failed.Outcome != c.outcome || !strings.Contains(res.Failed.Error(), c.want) {
				t.Fatalf("failure %v (outcome %v), want line 5, %s, %q", res.Failed, res.Failed.Outcome, c.outcome, c.want)
			}
			if !strings.HasPrefix(res.Failed.Error(), path+":5:5:") {
				t.Errorf("error does not start with file:line:col: %v", res.Failed)
			}
			tk, err := timeline.Open(take)
			if err != nil {
				t.Fatal(err)
			}
			if tk.Timeline.Outcome != timeline.RunFailed || len(tk.Timeline.Steps) != 2 || tk.Timeline.Capture.Frames.Delivered == 0 {
				t.Errorf("take: outcome %s, %d steps, %d frames", tk.Timeline.Outcome, len(tk.Timeline.Steps), tk.Timeline.Capture.Frames.Delivered)
			}
		})
	}
}
