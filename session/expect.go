package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// observation is clapper.observe's answer: whether the expectation holds,
// and what was seen; Ambiguous counts the matches of a target that had to
// name one element.
type observation struct {
	OK        bool   `json:"ok"`
	Seen      string `json:"seen"`
	Ambiguous int    `json:"ambiguous"`
}

// expectation is the JSON form of an expect step for clapper.observe.
type expectation struct {
	What     string `json:"what"`
	Spec     *spec  `json:"spec"`
	Nth      *int   `json:"nth"`
	Want     string `json:"want"`
	Exact    bool   `json:"exact"`
	Attr     string `json:"attr"`
	HasValue bool   `json:"hasValue"`
	Count    int    `json:"count"`
}

func expectationOf(e scripts.Expect) expectation {
	x := expectation{What: e.What, Want: e.Want, Exact: e.Exact, Attr: e.Attribute, HasValue: e.HasValue, Count: e.Count}
	if e.Target != nil {
		s := specOf(*e.Target)
		x.Spec, x.Nth = &s, nthArg(*e.Target)
	}
	return x
}

// describe says what an expectation wants, for messages.
func describe(e scripts.Expect) string {
	switch e.What {
	case scripts.ExpectVisible, scripts.ExpectHidden, scripts.ExpectChecked, scripts.ExpectUnchecked,
		scripts.ExpectEnabled, scripts.ExpectDisabled, scripts.ExpectEditable, scripts.ExpectFocused:
		return fmt.Sprintf("%s to be %s", e.Target, e.What)
	case scripts.ExpectText:
		how := "text %q"
		if e.Exact {
			how = "exactly the text %q"
		}
		if e.Target != nil {
			return fmt.Sprintf(how+" in %s", e.Want, e.Target)
		}
		return fmt.Sprintf(how+" on the page", e.Want)
	case scripts.ExpectValue:
		return fmt.Sprintf("%s to have value %q", e.Target, e.Want)
	case scripts.ExpectURL:
		return fmt.Sprintf("URL to match %q", e.Want)
	case scripts.ExpectTitle:
		return fmt.Sprintf("title %q", e.Want)
	case scripts.ExpectCount:
		return fmt.Sprintf("%d elements matching %s", e.Count, e.Target)
	case scripts.ExpectAttribute:
		if e.HasValue {
			return fmt.Sprintf("%s to have %s=%q", e.Target, e.Attribute, e.Want)
		}
		return fmt.Sprintf("%s to have the attribute %s", e.Target, e.Attribute)
	case scripts.ExpectJS:
		return "the JavaScript expression to be truthy"
	}
	return e.What
}

// expect looks until the expectation holds or the step's deadline. Every
// condition is one of the definitions the waits and the actionability
// checks use (visible, enabled, editable, checked, the matching of
// targets and text).
func (r *run) expect(ctx context.Context, tab *Tab, e scripts.Expect, rec *timeline.Step) error {
	want := describe(e)
	rec.Target = r.s.Mask(want)
	x := expectationOf(e)
	err := poll(ctx, "expected "+want, pollEvery, func(ctx context.Context) (bool, string, error) {
		var o observation
		var err error
		switch e.What {
		case scripts.ExpectJS:
			var ok bool
			ok, err = evalTruthy(ctx, e.Want)
			o = observation{OK: ok, Seen: "a falsy value"}
		case scripts.ExpectValue, scripts.ExpectChecked, scripts.ExpectUnchecked:
			o, err = observeControl(ctx, tab, e)
		default:
			d, derr := r.docFor(ctx, tab, e.Target)
			if derr != nil {
				return isFinal(derr), "", derr
			}
			o, err = docCall[observation](ctx, d, "observe", x)
		}
		if err != nil {
			return isException(err), "", err
		}
		if o.Ambiguous > 0 {
			return true, "", fmt.Errorf("%w: %s matches %d elements; make it specific or add nth", ErrAmbiguous, e.Target, o.Ambiguous)
		}
		return o.OK, "saw " + o.Seen, nil
	})
	return undispatched(err)
}

// docFor is the document of a target, the tab's own without one.
func (r *run) docFor(ctx context.Context, tab *Tab, t *scripts.Target) (*doc, error) {
	if t == nil {
		return tab.mainDoc(), nil
	}
	return tab.docOf(ctx, *t)
}

// observeControl reads a field's value or a control's checked state in
// the page's own world, where a custom element's properties are defined.
func observeControl(ctx context.Context, tab *Tab, e scripts.Expect) (observation, error) {
	d, err := tab.docOf(ctx, *e.Target)
	if err != nil {
		return observation{}, err
	}
	if e.What == scripts.ExpectValue {
		v, err := callOnElement[string](ctx, d, *e.Target, "value")
		if errors.Is(err, errGone) {
			return observation{Seen: "no element"}, nil
		}
		if err != nil {
			return observation{}, err
		}
		return observation{OK: v == e.Want, Seen: strconv.Quote(v)}, nil
	}
	s, err := callOnElement[string](ctx, d, *e.Target, "checked")
	switch {
	case errors.Is(err, errGone):
		return observation{Seen: "no element"}, nil
	case err != nil:
		return observation{}, err
	case s == "error":
		return observation{Seen: "an element that is not a checkbox or radio button"}, nil
	}
	checked := s == "true" || s == "radio"
	seen := map[bool]string{true: "checked", false: "unchecked"}[checked]
	return observation{OK: checked == (e.What == scripts.ExpectChecked), Seen: seen}, nil
}
