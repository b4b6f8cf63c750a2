package timeline

import (
	"strings"
	"testing"
)

// The line a run prints about its failed optional steps.
func TestOptionalFailures(t *testing.T) {
	tl := &Timeline{Steps: []Step{
		{Kind: "click", File: "/x/demo.yaml", Line: 3, Outcome: OutcomeOK, Optional: true},
		{Kind: "click", File: "/x/demo.yaml", Line: 5, Outcome: OutcomeUndispatched, Optional: true, Error: "#cookie not actionable before the timeout\nmore"},
		{Kind: "expect", File: "/x/demo.yaml", Line: 9, Outcome: OutcomeUndispatched, Error: "not optional"},
	}}
	if got, want := OptionalFailures(tl), "1 optional step failed: demo.yaml:5 (click): #cookie not actionable before the timeout"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	tl.Steps[2].Optional = true
	if got := OptionalFailures(tl); !strings.HasPrefix(got, "2 optional steps failed: demo.yaml:5 (click): ") || !strings.HasSuffix(got, "; demo.yaml:9 (expect): not optional") {
		t.Errorf("got %q", got)
	}
	tl.Steps = tl.Steps[:1]
	if got := OptionalFailures(tl); got != "" {
		t.Errorf("nothing failed: %q", got)
	}
}
