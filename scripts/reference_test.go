package scripts

import (
	"regexp"
	"strings"
	"testing"
)

// Every step of the table has an example in the reference, each example
// shows its own step, and no example names a step the table lacks.
func TestEveryStepHasAnExample(t *testing.T) {
	for _, s := range steps {
		ex := stepExamples[s.name]
		if ex == "" {
			t.Errorf("step %s has no example in stepExamples", s.name)
			continue
		}
		if !regexp.MustCompile(`(?m)^\s*- ` + s.name + `\b`).MatchString(ex) {
			t.Errorf("the example of %s does not use it:\n%s", s.name, ex)
		}
	}
	for name := range stepExamples {
		if stepByName[name] == nil {
			t.Errorf("stepExamples has %s, which is no step", name)
		}
	}
}

// The reference has a section for each step, a row for each of its keys,
// and the rules over several keys.
func TestReferenceCoversTheTable(t *testing.T) {
	ref := string(Reference())
	for _, s := range steps {
		i := strings.Index(ref, "\n### "+s.name+"\n")
		if i < 0 {
			t.Errorf("no section for %s", s.name)
			continue
		}
		sec := ref[i+1:]
		if j := strings.Index(sec[4:], "\n### "); j >= 0 {
			sec = sec[:j+4]
		}
		for _, f := range fieldNames(s.fields) {
			if !strings.Contains(sec, "| `"+f+"` |") {
				t.Errorf("%s: no row for %s", s.name, f)
			}
		}
		for _, g := range s.groups {
			if !strings.Contains(sec, codeList(g.fields)) {
				t.Errorf("%s: the rule over %v is not said", s.name, g.fields)
			}
		}
	}
	for _, want := range []string{"| `browser.viewport.scale` | number, 0.5 to 4 |", "| `timeout` | duration, 1ms or more, up to 1h |", "| `output.fps` | integer, 1 to 120 |"} {
		if !strings.Contains(ref, want) {
			t.Errorf("the reference lacks %q", want)
		}
	}
}
