package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// spec is the JSON form of a target for the page helpers (js/find.js).
type spec struct {
	CSS         string `json:"css,omitempty"`
	XPath       string `json:"xpath,omitempty"`
	Text        string `json:"text,omitempty"`
	Role        string `json:"role,omitempty"`
	Name        string `json:"name,omitempty"`
	Label       string `json:"label,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
	TestID      string `json:"testid,omitempty"`
}

func specOf(t scripts.Target) spec {
	return spec{CSS: t.CSS, XPath: t.XPath, Text: t.Text, Role: t.Role, Name: t.Name, Label: t.Label, Placeholder: t.Placeholder, TestID: t.TestID}
}

// nthArg is a target's nth for the helpers: null when not given.
func nthArg(t scripts.Target) *int { return t.Nth }

// probe is clapper.probe's report (js/actionable.js).
type probe struct {
	Count      int            `json:"count"`
	Box        *timeline.Rect `json:"box"`
	Stable     bool           `json:"stable"`
	Visible    bool           `json:"visible"`
	Enabled    bool           `json:"enabled"`
	Receives   bool           `json:"receives"`
	Hit        string         `json:"hit"`
	Cursor     string         `json:"cursor"`
	InViewport bool           `json:"inViewport"`
	// Token names the element in clapper's world (js/remember.js), for
	// revalidation after a hold.
	Token int `json:"token"`
}

// needs are the actionability checks a step makes before it acts on an
// element. A target must always be attached and unique (or picked by nth).
type needs struct {
	Visible bool // clapper.visible, and stable across two frames
	Enabled bool // not disabled
	Hit     bool // its centre is in the viewport, and the pointer there reaches it
	Scroll  bool // scroll it into view first when its centre is outside
}

var (
	// forPointer: click, and the click that focuses a field to type in.
	forPointer = needs{Visible: true, Enabled: true, Hit: true, Scroll: true}
	// forHover: the pointer goes there, nothing is pressed.
	forHover = needs{Visible: true, Hit: true, Scroll: true}
	// forField: fill and select set the value without the pointer.
	forField = needs{Visible: true, Enabled: true, Scroll: true}
	// forLook: zoom, screenshots and scroll containers only look at it.
	forLook = needs{Visible: true, Scroll: true}
	// forUpload: a file input is usually hidden behind a styled label:
	// attached and enabled is enough.
	forUpload = needs{Enabled: true}
)

// ErrAmbiguous is wrapped by errors for targets matching several elements.
var ErrAmbiguous = errors.New("ambiguous target")

// verdict decides from a probe whether the target is actionable for n.
// It returns done with an error for a final failure (ambiguity), and
// otherwise what failed, as "failed check NAME: why". Pure.
func verdict(p probe, n needs, t scripts.Target) (ok bool, failed string, final error) {
	switch {
	case p.Count > 1 && t.Nth == nil:
		return false, "", fmt.Errorf("%w: %s matches %d elements; make it specific or add nth", ErrAmbiguous, t, p.Count)
	case p.Count == 0 || p.Box == nil:
		return false, "failed check attached: no element matches", nil
	case n.Visible && !p.Visible:
		return false, "failed check visible: the element is not visible", nil
	case n.Visible && !p.Stable:
		return false, "failed check stable: the element is still moving", nil
	case n.Enabled && !p.Enabled:
		return false, "failed check enabled: the element is disabled", nil
	case n.Hit && !p.InViewport:
		return false, "failed check in viewport: the element's centre is outside the viewport", nil
	case n.Hit && !p.Receives:
		return false, "failed check receives pointer: " + p.Hit + " covers the element's centre", nil
	}
	return true, "", nil
}

// Actionable is a target resolved and checked for input.
type Actionable struct {
	Box    timeline.Rect
	Cursor string
	// Token names the element observed, for revalidate.
	Token int
}

// Center returns the middle of the element's box.
func (a Actionable) Center() (float64, float64) { return a.Box.X + a.Box.W/2, a.Box.Y + a.Box.H/2 }

// waitActionable waits until the target passes the checks n, or the step's
// deadline; the error names the check that failed last. Nothing is
// dispatched by this.
func waitActionable(ctx context.Context, tab *Tab, t scripts.Target, n needs) (Actionable, error) {
	var act Actionable
	err := poll(ctx, t.String()+" not actionable", pollEvery, func(ctx context.Context) (bool, string, error) {
		p, err := callHelper[probe](ctx, tab.helpers, "probe", specOf(t), nthArg(t), n.Scroll)
		if err != nil {
			return isException(err), "", err // an exception (an invalid selector) is final
		}
		ok, failed, final := verdict(p, n, t)
		if final != nil {
			return true, "", final
		}
		if ok {
			act = Actionable{Box: *p.Box, Cursor: p.Cursor, Token: p.Token}
		}
		return ok, failed, nil
	})
	return act, err
}

// actionable waits for a target and records its box in the step.
func (r *run) actionable(ctx context.Context, tab *Tab, t scripts.Target, n needs, rec *timeline.Step) (Actionable, error) {
	act, err := waitActionable(ctx, tab, t, n)
	if err != nil {
		return act, undispatched(err)
	}
	box := act.Box
	rec.Region = &box
	r.journalStepSoFar(*rec)
	return act, nil
}
