package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// fill sets a field's value at once, Playwright's way: once the field is
// visible, enabled and editable, its text is selected and the value
// inserted as an input method would (the page sees trusted input events,
// no keys); a date, colour or range has its value set. A field that
// cannot take the value is refused with the reason.
func (r *run) fill(ctx context.Context, tab *Tab, a scripts.Fill, rec *timeline.Step) error {
	rec.Target = a.Into.String()
	if _, err := r.actionable(ctx, tab, a.Into, forField, rec); err != nil {
		return err
	}
	d, err := tab.docOf(ctx, a.Into)
	if err != nil {
		return undispatched(err)
	}
	res, err := callOnElement[string](ctx, d, a.Into, "fill", a.Value)
	switch {
	case err != nil:
		return undispatched(err)
	case res == "done":
		return nil
	case res != "input":
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("%s: %s", a.Into, trimError(res))}
	}
	tab.pace.focus(d)
	if a.Value == "" {
		return dispatched(tab.keyboard.Press(ctx, scripts.Chord{Key: "Delete"}, "Delete"))
	}
	name := a.Value
	if a.Secret {
		name = "•"
	}
	return tab.keyboard.insert(ctx, a.Value, name, insertedValue)
}

// trimError drops the "error: " a page function's answer starts with.
func trimError(s string) string {
	if len(s) > 7 && s[:7] == "error: " {
		return s[7:]
	}
	return s
}

// chosen is js/main/choose.js's answer.
type chosen struct {
	Done  bool   `json:"done"`
	Wait  string `json:"wait"`
	Error string `json:"error"`
}

// choose picks options of a <select>, waiting for them to be there and
// enabled (Playwright's rule), and refusing what cannot be picked.
func (r *run) choose(ctx context.Context, tab *Tab, a scripts.Select, rec *timeline.Step) error {
	rec.Target = a.Into.String()
	if _, err := r.actionable(ctx, tab, a.Into, forSelect, rec); err != nil {
		return err
	}
	var refused error
	err := poll(ctx, "select in "+a.Into.String(), pollEvery, func(ctx context.Context) (bool, string, error) {
		d, err := tab.docOf(ctx, a.Into)
		if err != nil {
			return isFinal(err), "", err
		}
		c, err := callOnElement[chosen](ctx, d, a.Into, "choose", a.Labels, a.Values, a.Index)
		switch {
		case errors.Is(err, errGone):
			return false, "no element", nil
		case err != nil:
			return isException(err), "", err
		case c.Error != "":
			refused = errors.New(c.Error)
			return true, "", nil
		}
		return c.Done, c.Wait, nil
	})
	if refused != nil {
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("%s: %w", a.Into, refused)}
	}
	return undispatched(err)
}

// checkState reads a control's checked state (js/main/checked.js),
// waiting for the target to be there. radio says it is a checked native
// radio button.
func checkState(ctx context.Context, tab *Tab, t scripts.Target) (checked, radio bool, err error) {
	var state string
	looks, near := 0, ""
	err = poll(ctx, "read whether "+t.String()+" is checked", pollEvery, func(ctx context.Context) (bool, string, error) {
		d, err := tab.docOf(ctx, t)
		if err != nil {
			return isFinal(err), "", err
		}
		s, err := callOnElement[string](ctx, d, t, "checked")
		if errors.Is(err, errGone) {
			// The error says what the page has near the target
			// (js/near.js), looked for on the looks the probe looks on.
			if looks++; nearLook(looks - 1) {
				if n, nerr := docCall[string](ctx, d, "nearMisses", specOf(t)); nerr == nil {
					near = n
				}
			}
			if near != "" {
				return false, "no element matches; " + near, nil
			}
			return false, "no element matches", nil
		}
		state = s
		return err == nil || isException(err), "", err
	})
	if looks > 2 {
		freshNear(ctx, tab, t, err, "no element matches")
	}
	switch {
	case err != nil:
		return false, false, err
	case state == "error":
		return false, false, &finalError{fmt.Errorf("%s is not a checkbox or radio button (nor a role that is checked: checkbox, radio, switch, menuitemcheckbox, menuitemradio, option, treeitem)", t)}
	}
	return state == "true" || state == "radio", state == "radio", nil
}

// setChecked ticks or clears a checkbox, radio button or an element whose
// role is checked (aria-checked), Playwright's way: its state is read as
// assistive technology reads it; nothing is done when it is already as
// wanted; else the target is clicked, and the state must then have
// changed.
func (r *run) setChecked(ctx context.Context, tab *Tab, t scripts.Target, want bool, rec *timeline.Step) error {
	rec.Target = t.String()
	cur, radio, err := checkState(ctx, tab, t)
	switch {
	case err != nil:
		var f *finalError
		if errors.As(err, &f) {
			return &StepError{Outcome: timeline.OutcomeRejected, Err: f.err}
		}
		return undispatched(err)
	case cur == want:
		return nil
	case radio && !want:
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("%s is a radio button: it is cleared by checking another of its group, not by uncheck", t)}
	}
	if err := r.pointAt(ctx, tab, t, forPointer, nil, rec); err != nil {
		return err
	}
	if err := tab.pointer.Click(ctx, "left", 1); err != nil {
		return err
	}
	got, _, err := checkState(ctx, tab, t)
	if err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	if got != want {
		state := map[bool]string{true: "checked", false: "unchecked"}[got]
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("%s: clicked, but it is still %s", t, state)}
	}
	return nil
}

// upload sets the files of a file input. The input only has to be
// attached and enabled: file inputs are usually hidden behind a styled
// label (which may be the target: its control takes the files).
func (r *run) upload(ctx context.Context, tab *Tab, a scripts.Upload, rec *timeline.Step) error {
	rec.Target = a.Into.String()
	if _, err := waitActionable(ctx, tab, a.Into, forUpload); err != nil {
		return undispatched(err)
	}
	d, err := tab.docOf(ctx, a.Into)
	if err != nil {
		return undispatched(err)
	}
	c, stop := d.on(ctx)
	defer stop()
	obj, err := callHelper[*runtime.RemoteObject](c, d.helpers, "control", specOf(a.Into), nthArg(a.Into))
	if err != nil || obj == nil || obj.ObjectID == "" {
		return undispatched(fmt.Errorf("upload: %s is gone (%v)", a.Into, err))
	}
	defer release(c, obj.ObjectID)
	if _, err := chromedp.Call(c, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: a.Files, ObjectID: obj.ObjectID}); err != nil {
		return dispatchErr(fmt.Errorf("upload to %s: %w", a.Into, err))
	}
	return nil
}
