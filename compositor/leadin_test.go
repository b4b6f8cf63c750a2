package compositor

import (
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

func TestFindLeadIn(t *testing.T) {
	blank, site := "about:blank", "http://127.0.0.1:8080/"
	bounds := func(first *string) []timeline.Boundary {
		return []timeline.Boundary{{Document: 0, LastSeq: -1, URL: first, At: 0}, {Document: 1, LastSeq: 3, URL: &site, At: msT(300)}, {Document: 2, LastSeq: 9, URL: &site, At: msT(2000)}}
	}
	step := func(kind string, at int) timeline.Step {
		return timeline.Step{Kind: kind, Start: msT(at), End: msT(at + 10)}
	}
	hidden := step("eval", 10)
	hidden.Hidden = true
	for _, c := range []struct {
		name  string
		tl    timeline.Timeline
		want  leadIn
		found bool
	}{
		{"goto first", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindGoto, 100), step("click", 900)}}, leadIn{1, msT(300)}, true},
		{"chapter before goto", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindChapter, 0), step(kindGoto, 100)}}, leadIn{1, msT(300)}, true},
		{"hidden step before goto", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{hidden, step(kindGoto, 100)}}, leadIn{1, msT(300)}, true},
		{"unnamed first document", timeline.Timeline{Boundaries: bounds(nil), Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{1, msT(300)}, true},
		{"a caption first is worth showing", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindCaption, 0), step(kindGoto, 100)}}, leadIn{}, false},
		{"a pause first is kept", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step("pause", 0), step(kindGoto, 100)}}, leadIn{}, false},
		{"a real first page (claimed tab)", timeline.Timeline{Boundaries: bounds(&site), Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{}, false},
		{"goto that committed nothing", timeline.Timeline{Boundaries: bounds(&blank)[:1], Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{}, false},
		{"goto after the first boundary", timeline.Timeline{Boundaries: bounds(&blank), Steps: []timeline.Step{step(kindChapter, 0), step(kindGoto, 1000)}}, leadIn{2, msT(2000)}, true},
		{"no steps", timeline.Timeline{Boundaries: bounds(&blank)}, leadIn{}, false},
		{"no boundaries", timeline.Timeline{Steps: []timeline.Step{step(kindGoto, 100)}}, leadIn{}, false},
	} {
		got, ok := findLeadIn(&c.tl)
		if ok != c.found || got != c.want {
			t.Errorf("%s: findLeadIn = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.found)
		}
	}
	li := leadIn{Document: 1, After: msT(300)}
	for _, c := range []struct {
		fr   timeline.Frame
		want bool
	}{
		{timeline.Frame{Document: 0, Source: msT(100)}, false},
		{timeline.Frame{Document: 1, Source: msT(290)}, false}, // received after the commit, made before it
		{timeline.Frame{Document: 1, Source: msT(300)}, true},
		{timeline.Frame{Document: 2, Source: msT(5000)}, true},
	} {
		if got := li.shows(c.fr); got != c.want {
			t.Errorf("shows(%+v) = %v, want %v", c.fr, got, c.want)
		}
	}
}
