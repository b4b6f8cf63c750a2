package session

import (
	"context"
	"fmt"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// exec runs one step's action on tab, under the step's context. What a
// step is (whether it may run on a held tab, changes the page...) comes
// from the language's table (st.Traits); how it runs is its executor,
// named here. Errors are classified: nothing sent (undispatched), refused
// (rejected), or sent with an unknown result.
func (r *run) exec(ctx context.Context, tab *Tab, st scripts.Step, rec *timeline.Step) error {
	// A step names its tab as it starts, and the hold rules are asked
	// before anything is sent (holdrules.go).
	if err := r.refusal(tab, st.Traits.Presentation); err != nil {
		return undispatched(err)
	}
	switch a := st.Action.(type) {
	// Navigation (navigation.go).
	case scripts.Goto:
		return r.gotoURL(ctx, a, rec)
	case scripts.Back:
		return r.history(ctx, tab, -1, rec)
	case scripts.Forward:
		return r.history(ctx, tab, +1, rec)
	case scripts.Reload:
		return r.reload(ctx)
	// The pointer (pointer.go).
	case scripts.Click:
		return r.click(ctx, tab, a, rec)
	case scripts.Hover:
		rec.Target = a.Target.String()
		return r.pointAt(ctx, tab, a.Target, forHover, nil, rec)
	case scripts.Move:
		return r.moveTo(ctx, tab, a.To, rec)
	case scripts.Drag:
		return r.drag(ctx, tab, a, rec)
	case scripts.Scroll: // scroll.go
		return r.scroll(ctx, tab, a, rec)
	// The keyboard (keyboard.go).
	case scripts.Type:
		return r.typeText(ctx, tab, a, rec)
	case scripts.Press:
		return r.press(ctx, tab, a, rec)
	case scripts.KeyDown:
		return r.keyDown(ctx, tab, a, rec)
	case scripts.KeyUp:
		return r.keyUp(ctx, tab, a, rec)
	// Forms (forms.go).
	case scripts.Fill:
		return r.fill(ctx, tab, a, rec)
	case scripts.Select:
		return r.choose(ctx, tab, a, rec)
	case scripts.Check:
		return r.setChecked(ctx, tab, a.Target, true, rec)
	case scripts.Uncheck:
		return r.setChecked(ctx, tab, a.Target, false, rec)
	case scripts.Upload:
		return r.upload(ctx, tab, a, rec)
	// Waits and expectations (waits.go, expect.go).
	case scripts.Wait:
		return undispatched(r.wait(ctx, tab, a))
	case scripts.Expect:
		return r.expect(ctx, tab, a, rec)
	// Presentation (presentation.go, hold.go).
	case scripts.Pause:
		return r.pause(ctx, a, rec)
	case scripts.Chapter:
		return r.chapter(a, rec)
	case scripts.Caption:
		return r.caption(a, rec)
	case scripts.Cursor:
		return r.cursor(a, rec)
	case scripts.Zoom:
		return r.zoom(ctx, tab, a, rec)
	case scripts.Hold:
		return r.hold(ctx, a.Tab, a.Max, rec)
	case scripts.Resume:
		return r.resume(ctx, a.Tab, rec)
	case scripts.Film:
		return r.filmStep(ctx, a, rec)
	case scripts.Handoff: // handoff.go
		return r.handoff(ctx, tab, a, rec)
	// Tabs (tabs.go).
	case scripts.Tab:
		return r.tabStep(ctx, a, rec)
	// Evidence and scripting (evidence.go).
	case scripts.Screenshot:
		return r.screenshot(ctx, tab, a, rec)
	case scripts.Eval:
		return r.eval(ctx, a, rec)
	case scripts.Dialog: // dialogs.go
		return r.dialogStep(a, rec)
	}
	return undispatched(fmt.Errorf("step %q is not supported", st.Kind))
}
