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
// and what was seen.
type observation struct {
	OK   bool   `json:"ok"`
	Seen string `json:"seen"`
}

// expectation is the JSON form of an expect step for clapper.observe.
type expectation struct {
	What  string `json:"what"`
	Spec  *spec  `json:"spec"`
	Nth   *int   `json:"nth"`
	Want  string `json:"want"`
	Count int    `json:"count"`
}

func expectationOf(e scripts.Expect) expectation {
	x := expectation{What: e.What, Want: e.Want, Count: e.Count}
	if e.Target != nil {
		s := specOf(*e.Target)
		x.Spec, x.Nth = &s, nthArg(*e.Target)
	}
	return x
}

// describe says what an expectation wants, for messages.
func describe(e scripts.Expect) string {
	switch e.What {
	case scripts.ExpectVisible, scripts.ExpectHidden:
		return fmt.Sprintf("%s to be %s", e.Target, e.What)
	case scripts.ExpectText:
		if e.Target != nil {
			return fmt.Sprintf("text %q in %s", e.Want, e.Target)
		}
		return fmt.Sprintf("text %q on the page", e.Want)
	case scripts.ExpectValue:
		return fmt.Sprintf("%s to have value %q", e.Target, e.Want)
	case scripts.ExpectURL:
		return fmt.Sprintf("URL to match %q", e.Want)
	case scripts.ExpectTitle:
		return fmt.Sprintf("title %q", e.Want)
	case scripts.ExpectCount:
		return fmt.Sprintf("%d elements matching %s", e.Count, e.Target)
	}
	return e.What
}

// expect looks until the expectation holds or the step's deadline.
func (r *run) expect(ctx context.Context, tab *Tab, e scripts.Expect, rec *timeline.Step) error {
	want := describe(e)
	rec.Target = r.s.Mask(want)
	x := expectationOf(e)
	err := poll(ctx, "expected "+want, pollEvery, func(ctx context.Context) (bool, string, error) {
		var o observation
		var err error
		if e.What == scripts.ExpectValue {
			o, err = observeValue(ctx, tab, *e.Target, e.Want)
		} else {
			o, err = callHelper[observation](ctx, tab.helpers, "observe", x)
		}
		if err != nil {
			return isException(err), "", err
		}
		return o.OK, "saw " + o.Seen, nil
	})
	return undispatched(err)
}

// observeValue reads a field's value in the page's own world, where a
// custom element's value property is defined.
func observeValue(ctx context.Context, tab *Tab, t scripts.Target, want string) (observation, error) {
	v, err := callOnElement[string](ctx, tab.helpers, t, "value")
	if errors.Is(err, errGone) {
		return observation{Seen: "no element"}, nil
	}
	if err != nil {
		return observation{}, err
	}
	return observation{OK: v == want, Seen: strconv.Quote(v)}, nil
}
