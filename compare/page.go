package compare

import (
	"fmt"
	"regexp"

	"github.com/clapper-dev/clapper/timeline"
)

// pageEvents reports the console errors, uncaught page errors, failed
// requests and HTTP errors of the new take that the old one did not have,
// each at the step that was running (eventStep): an event is the same in both when it
// is the same kind of event with the same text (a request: method,
// address and status), however many times each take had it.
func (c *comparison) pageEvents() {
	had := map[string]int{}
	for _, e := range c.old.badEvents() {
		had[c.old.eventKey(e)]++
	}
	resultOf := map[int]int{} // new step → result step
	for i, st := range c.res.Steps {
		if st.New >= 0 {
			resultOf[st.New] = i
		}
	}
	for _, e := range c.new.badEvents() {
		k := c.new.eventKey(e)
		if had[k] > 0 {
			had[k]--
			continue
		}
		ns := c.new.eventStep(e.At)
		i, ok := resultOf[ns]
		if !ok {
			i = -1
		}
		f := c.finding(c.pairAt(i, ns), "")
		f.What, f.Fails = eventFinding(e), true
		f.Message = c.new.describeEvent(e)
		c.add(i, f)
	}
}

// pairAt is the pair of result step i, or a pair for new step ns alone.
func (c *comparison) pairAt(i, ns int) Pair {
	if i >= 0 {
		return c.res.Steps[i].Pair
	}
	return Pair{Old: -1, New: ns}
}

func eventFinding(e timeline.PageEvent) string {
	switch e.Kind {
	case timeline.PageException:
		return FindingPageError
	case timeline.PageRequest:
		return FindingRequest
	case timeline.PageDialog:
		return FindingDialog
	}
	return FindingConsole
}

// badEvents are the take's page events a reader looks at first.
func (s *side) badEvents() []timeline.PageEvent {
	if s.tl.Page == nil {
		return nil
	}
	var out []timeline.PageEvent
	for _, e := range s.tl.Page.Events {
		if e.Bad() || e.Kind == timeline.PageDialog {
			out = append(out, e)
		}
	}
	return out
}

// digits are what varies between two runs of one page in an error's text
// (ports, ids, times): they do not tell two errors apart.
var digits = regexp.MustCompile(`[0-9]+`)

// eventKey is what makes two bad events the same.
func (s *side) eventKey(e timeline.PageEvent) string {
	switch e.Kind {
	case timeline.PageRequest:
		return fmt.Sprintf("request %s %s %d %s", e.Method, s.norm(e.URL), e.Status, e.Failed)
	case timeline.PageDialog:
		return fmt.Sprintf("dialog %s %s %s", e.Dialog, digits.ReplaceAllString(s.norm(e.Text), "0"), e.Answer)
	}
	return e.Kind + " " + digits.ReplaceAllString(s.norm(e.Text), "0")
}

// describeEvent says what a bad event was, in one line.
func (s *side) describeEvent(e timeline.PageEvent) string {
	switch e.Kind {
	case timeline.PageRequest:
		if e.Failed != "" {
			return fmt.Sprintf("a new failed request: %s %s (%s)", e.Method, s.norm(e.URL), e.Failed)
		}
		return fmt.Sprintf("a new HTTP error: %s %s answered %d", e.Method, s.norm(e.URL), e.Status)
	case timeline.PageException:
		return "a new uncaught error in the page: " + firstLine(s.norm(e.Text))
	case timeline.PageDialog:
		return fmt.Sprintf("a new %s dialog: %s (%s)", e.Dialog, firstLine(s.norm(e.Text)), e.Answer)
	}
	return "a new console error: " + firstLine(s.norm(e.Text))
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	if len(s) > 200 {
		return s[:199] + "…"
	}
	return s
}
