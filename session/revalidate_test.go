package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/timeline"
)

// A click whose target was found before a hold of its tab (here a hold
// and resume made between the pointer's arrival and the press) checks the
// element again: unchanged, the click goes on; replaced or changed, it is
// refused and never searched for again, and the page sees no click.
func TestRevalidateAfterHold(t *testing.T) {
	t.Parallel() // its own browser and take; mostly waiting out its pauses
	cases := []struct {
		name, change, want string
	}{
		{"unchanged", "", ""},
		{"replaced", `const b = document.getElementById('b'); b.replaceWith(b.cloneNode(true))`, "removed or replaced"},
		{"changed", `document.getElementById('b').textContent = 'Pressed'`, "it changed: its text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := false
			res, _ := runHolds(t, "", `  - goto: ${serve.url}/hold.html
  - click: "#b"
  - pause: 100ms
`, RunOptions{afterResolve: func(r *run) {
				if done {
					return
				}
				done = true
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if err := r.hold(ctx, "main", 0, &timeline.Step{}); err != nil {
					t.Errorf("hold: %v", err)
				}
				if err := r.resume(ctx, "main", &timeline.Step{}); err != nil {
					t.Errorf("resume: %v", err)
				}
				if c.change != "" {
					tc, cancel := context.WithTimeout(r.tabs["main"].ctx, 10*time.Second)
					defer cancel()
					if _, err := chromedp.Run(tc, chromedp.Evaluate[chromedp.Void](c.change)); err != nil {
						t.Errorf("change the page: %v", err)
					}
				}
			}, beforeStep: func(i int, r *run) {
				if i == 2 {
					if st := readHoldState(t, r, "main"); (st.Clicks == 1) != (c.want == "") {
						t.Errorf("the page saw %d clicks", st.Clicks)
					}
				}
			}})
			if !done {
				t.Fatal("the click never reached its target")
			}
			if c.want == "" {
				mustPass(t, res)
				return
			}
			f := res.Failed
			if f == nil || f.Index != 1 || f.Outcome != timeline.OutcomeUndispatched || !strings.Contains(f.Error(), c.want) || !strings.Contains(f.Error(), "not searched for again") {
				t.Fatalf("failure %v, want the click refused: %s", f, c.want)
			}
		})
	}
}
