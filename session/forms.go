package session

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// fill sets a field's value at once.
func (r *run) fill(ctx context.Context, tab *Tab, a scripts.Fill, rec *timeline.Step) error {
	rec.Target = a.Into.String()
	if _, err := r.actionable(ctx, tab, a.Into, forField, rec); err != nil {
		return err
	}
	return onElement(ctx, tab, a.Into, "fill", a.Value)
}

// choose picks an option of a <select>.
func (r *run) choose(ctx context.Context, tab *Tab, a scripts.Select, rec *timeline.Step) error {
	rec.Target = a.Into.String()
	if _, err := r.actionable(ctx, tab, a.Into, forField, rec); err != nil {
		return err
	}
	return onElement(ctx, tab, a.Into, "choose", a.Label, a.Value)
}

// onElement calls a js/main function that acts on the target in the
// page's own world and returns "" or what is wrong.
func onElement(ctx context.Context, tab *Tab, t scripts.Target, name string, args ...any) error {
	res, err := callOnElement[string](ctx, tab.helpers, t, name, args...)
	if err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	if res != "" {
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("%s: %s", t, res)}
	}
	return nil
}

// setChecked ticks or clears a checkbox by clicking it when it is not in
// the state wanted, and checks that the click changed it.
func (r *run) setChecked(ctx context.Context, tab *Tab, t scripts.Target, want bool, rec *timeline.Step) error {
	rec.Target = t.String()
	if _, err := r.actionable(ctx, tab, t, forLook, rec); err != nil {
		return err
	}
	cur, err := callOnElement[bool](ctx, tab.helpers, t, "checked")
	if err != nil {
		return undispatched(err)
	}
	if cur == want {
		return nil
	}
	if err := r.pointAt(ctx, tab, t, forPointer, rec); err != nil {
		return err
	}
	if err := tab.pointer.Click(ctx, "left", 1, 0); err != nil {
		return err
	}
	got, err := callOnElement[bool](ctx, tab.helpers, t, "checked")
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
// label.
func (r *run) upload(ctx context.Context, tab *Tab, a scripts.Upload, rec *timeline.Step) error {
	rec.Target = a.Into.String()
	if _, err := waitActionable(ctx, tab, a.Into, forUpload); err != nil {
		return undispatched(err)
	}
	obj, err := callHelper[*runtime.RemoteObject](ctx, tab.helpers, "element", specOf(a.Into), nthArg(a.Into))
	if err != nil || obj == nil || obj.ObjectID == "" {
		return undispatched(fmt.Errorf("upload: %s is gone (%v)", a.Into, err))
	}
	defer func() {
		_, _ = chromedp.Call(ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.ObjectID})
	}()
	if _, err := chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: a.Files, ObjectID: obj.ObjectID}); err != nil {
		return dispatchErr(fmt.Errorf("upload to %s: %w", a.Into, err))
	}
	return nil
}
