package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// exec runs one step's action on tab. Errors are classified: nothing sent
// (undispatched), refused (rejected), or sent with an unknown result.
func (r *run) exec(ctx context.Context, tab *Tab, st scripts.Step, rec *timeline.Step) error {
	if tab.held != "" && !isPresentation(st.Action) {
		return undispatched(fmt.Errorf("tab %q is held (receipt %s): resume it before input or reads", tab.Name, tab.held))
	}
	switch a := st.Action.(type) {
	case scripts.Goto:
		rec.Target = r.s.Mask(a.URL)
		return navErr(chromedp.Do(ctx, chromedp.Navigate(a.URL)))
	case scripts.Click:
		rec.Target = a.Target.String()
		mods, err := ModifierMask(a.Modifiers)
		if err != nil {
			return undispatched(err)
		}
		if err := r.pointAt(ctx, tab, a.Target, rec, true); err != nil {
			return err
		}
		return tab.pointer.Click(ctx, a.Button, a.Count, mods)
	case scripts.Type:
		if a.Into != nil {
			rec.Target = a.Into.String()
			if err := r.focus(ctx, tab, *a.Into, rec); err != nil {
				return err
			}
		}
		delay := a.Delay
		if delay <= 0 {
			delay = r.s.Defaults.TypeDelay
		}
		return tab.keyboard.TypeText(ctx, a.Text, delay, a.Secret)
	case scripts.Press:
		rec.Target = a.Key
		if a.Into != nil {
			if err := r.focus(ctx, tab, *a.Into, rec); err != nil {
				return err
			}
		}
		return tab.keyboard.Press(ctx, a.Key)
	case scripts.Wait:
		return undispatched(r.wait(ctx, a))
	case scripts.Pause:
		rec.Duration = a.Duration
		select {
		case <-ctx.Done():
			return undispatched(context.Cause(ctx))
		case <-time.After(a.Duration):
			return nil
		}
	}
	return r.execMore(ctx, tab, st, rec)
}

// pointAt waits for the target to be actionable and moves the pointer to
// its centre, recording the target's box in the step.
func (r *run) pointAt(ctx context.Context, tab *Tab, t scripts.Target, rec *timeline.Step, needEnabled bool) error {
	act, err := waitActionable(ctx, t, needEnabled, true)
	if err != nil {
		return undispatched(err)
	}
	box := act.Box
	rec.Region = &box
	x, y := act.Center()
	return tab.pointer.MoveToAs(ctx, x, y, act.Cursor)
}

// focus brings an input into focus the way a person does: by clicking it.
func (r *run) focus(ctx context.Context, tab *Tab, t scripts.Target, rec *timeline.Step) error {
	if err := r.pointAt(ctx, tab, t, rec, true); err != nil {
		return err
	}
	return tab.pointer.Click(ctx, "left", 1, 0)
}

func (r *run) wait(ctx context.Context, a scripts.Wait) error {
	switch {
	case a.Target != nil:
		state := a.State
		if state == "" {
			state = "visible"
		}
		return poll(ctx, targetStateExpr(*a.Target, state), fmt.Sprintf("wait for %s to be %s", a.Target, state))
	case a.Text != "":
		return poll(ctx, textPresentExpr(a.Text), fmt.Sprintf("wait for text %q", a.Text))
	case a.URL != "":
		return poll(ctx, globExpr("location.href", a.URL), fmt.Sprintf("wait for URL %q", a.URL))
	case a.JS != "":
		return poll(ctx, "(()=>{ return !!("+a.JS+"); })()", "wait for js")
	case a.NetworkIdle:
		return poll(ctx, networkIdleExpr, "wait for network idle")
	}
	return errors.New("wait: nothing to wait for")
}

// globExpr is a JS expression testing value against a glob where * matches
// any run of characters and ? one character.
func globExpr(value, glob string) string {
	return "(()=>{ const g = " + jsArgs(glob) + "; const re = new RegExp('^' + g.split('').map(c => c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\\]\\\\]/g, '\\\\$&')).join('') + '$'); return re.test(" + value + "); })()"
}

// networkIdleExpr is true when no resource finished loading in the last
// 500 ms and the document is complete.
const networkIdleExpr = `(()=>{ if (document.readyState !== 'complete') return false;
  const e = performance.getEntriesByType('resource'); const now = performance.now();
  return !e.some(r => r.responseEnd === 0 || now - r.responseEnd < 500); })()`

// navErr classifies a navigation failure: a browser error reply is a
// rejection; a timeout leaves the navigation's effect unknown.
func navErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	return &StepError{Outcome: timeline.OutcomeRejected, Err: err}
}

// isPresentation reports whether an action only shapes the video and may
// run while its tab is held.
func isPresentation(a scripts.Action) bool { return presentationKinds[a.Kind()] }

var presentationKinds = map[string]bool{"pause": true, "chapter": true, "caption": true, "cursor": true, "zoom": true, "resume": true, "hold": true, "tab": true}
