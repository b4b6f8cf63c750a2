package film

import (
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// A take of several tabs says which tab each step ran in and each
// document was filmed in; a take of one tab prints no tab.
func TestPrintSummaryTabs(t *testing.T) {
	u := func(s string) *string { return &s }
	sum := func(steps, docs []string) timeline.Summary {
		s := timeline.Summary{Name: "tabs", Outcome: "ok"}
		for i, tab := range steps {
			s.Steps = append(s.Steps, timeline.StepSummary{Index: i, Line: i + 4, Kind: "click", Outcome: timeline.OutcomeOK, Tab: tab})
		}
		for i, tab := range docs {
			s.Boundaries = append(s.Boundaries, timeline.BoundarySummary{Document: i, URL: u("http://x/" + tab + ".html"), Tab: tab})
		}
		return s
	}
	var b strings.Builder
	PrintSummary(&b, sum([]string{"main", "signin", "main"}, []string{"main", "signin"}))
	for _, want := range []string{"line 5    click      ok", "→    0.00s  in signin\n", "after frame 0  [signin] http://x/signin.html\n", "after frame 0  [main] http://x/main.html\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("several tabs: no %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	PrintSummary(&b, sum([]string{"main", "main"}, []string{"main"}))
	if strings.Contains(b.String(), " in main") || strings.Contains(b.String(), "[main]") {
		t.Errorf("one tab, named:\n%s", b.String())
	}
	for _, c := range []struct {
		steps, docs []string
		want        bool
	}{
		{nil, nil, false},
		{[]string{"main", "main"}, []string{"main"}, false},
		{[]string{"", "main"}, []string{"", "main"}, false},
		{[]string{"main"}, []string{"main", "scout"}, true},
		{[]string{"main", "signin"}, nil, true},
		{[]string{"", "signin"}, []string{"main"}, true},
	} {
		if got := severalTabs(sum(c.steps, c.docs)); got != c.want {
			t.Errorf("severalTabs(%v, %v) = %v, want %v", c.steps, c.docs, got, c.want)
		}
	}
}
