package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// execMore runs the steps beyond the first subset.
func (r *run) execMore(ctx context.Context, tab *Tab, st scripts.Step, rec *timeline.Step) error {
	switch a := st.Action.(type) {
	case scripts.Back:
		return r.history(ctx, -1, rec)
	case scripts.Forward:
		return r.history(ctx, +1, rec)
	case scripts.Reload:
		return navErr(chromedp.Do(ctx, chromedp.Reload()))
	case scripts.Hover:
		rec.Target = a.Target.String()
		return r.pointAt(ctx, tab, a.Target, rec, false)
	case scripts.Move:
		return r.moveTo(ctx, tab, a.To, rec)
	case scripts.Drag:
		if err := r.moveTo(ctx, tab, a.From, rec); err != nil {
			return err
		}
		if err := tab.pointer.Down(ctx); err != nil {
			return err
		}
		if err := r.moveTo(ctx, tab, a.To, rec); err != nil {
			_ = tab.pointer.Up(ctx)
			return err
		}
		return tab.pointer.Up(ctx)
	case scripts.Fill:
		rec.Target = a.Into.String()
		if _, err := r.actionable(ctx, a.Into, rec, true, false); err != nil {
			return err
		}
		return r.onElement(ctx, a.Into, fillJS, a.Value)
	case scripts.Select:
		rec.Target = a.Into.String()
		if _, err := r.actionable(ctx, a.Into, rec, true, false); err != nil {
			return err
		}
		return r.onElement(ctx, a.Into, selectJS, a.Label, a.Value)
	case scripts.Check:
		return r.setChecked(ctx, tab, a.Target, true, rec)
	case scripts.Uncheck:
		return r.setChecked(ctx, tab, a.Target, false, rec)
	case scripts.Scroll:
		return r.scroll(ctx, tab, a, rec)
	case scripts.Upload:
		rec.Target = a.Into.String()
		return r.upload(ctx, a)
	case scripts.Chapter:
		rec.Text = a.Title
		return nil
	case scripts.Caption:
		rec.Text, rec.Duration = a.Text, a.Duration
		return nil
	case scripts.Cursor:
		switch {
		case a.Visible != nil && !*a.Visible:
			rec.Text = "hide"
		case a.Visible != nil:
			rec.Text = "show"
		}
		if a.Style != "" {
			rec.Text = strings.TrimPrefix(rec.Text+" "+a.Style, " ")
		}
		return nil
	case scripts.Zoom:
		rec.Scale, rec.Duration = a.Scale, a.Duration
		switch {
		case a.Target != nil:
			rec.Target = a.Target.String()
			act, err := waitActionable(ctx, *a.Target, false, false)
			if err != nil {
				return undispatched(err)
			}
			rec.Region = &act.Box
		case a.Region != nil:
			rec.Region = &timeline.Rect{X: a.Region.X, Y: a.Region.Y, W: a.Region.W, H: a.Region.H}
		}
		return nil
	case scripts.Hold:
		return r.hold(ctx, a.Tab, rec)
	case scripts.Resume:
		return r.resume(ctx, a.Tab, rec)
	case scripts.Tab:
		return r.tabOp(a, rec)
	case scripts.Expect:
		return r.expect(ctx, a, rec)
	case scripts.Screenshot:
		rec.Target = a.File
		return r.screenshot(ctx, a)
	case scripts.Eval:
		if !a.Secret {
			rec.Target = truncate(a.JS, 200)
		}
		_, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void]("(async()=>{ "+a.JS+"\n})()", chromedp.EvalAwaitPromise))
		if err != nil {
			return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("eval: %s", r.s.Mask(err.Error()))}
		}
		return nil
	}
	return undispatched(fmt.Errorf("step %q is not supported", st.Kind))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// actionable waits for a target and records its box.
func (r *run) actionable(ctx context.Context, t scripts.Target, rec *timeline.Step, enabled, hit bool) (Actionable, error) {
	act, err := waitActionable(ctx, t, enabled, hit)
	if err != nil {
		return act, undispatched(err)
	}
	box := act.Box
	rec.Region = &box
	return act, nil
}

func (r *run) moveTo(ctx context.Context, tab *Tab, p scripts.Place, rec *timeline.Step) error {
	if p.Target != nil {
		rec.Target = p.Target.String()
		return r.pointAt(ctx, tab, *p.Target, rec, false)
	}
	if p.Point == nil {
		return undispatched(errors.New("move: no place"))
	}
	return tab.pointer.MoveTo(ctx, p.Point.X, p.Point.Y)
}

// onElement calls fn(el, args...) in the page on the target element. A
// false or string result from fn is an error it reports.
func (r *run) onElement(ctx context.Context, t scripts.Target, fn string, args ...any) error {
	nth := 0
	if t.Nth != nil {
		nth = *t.Nth
	}
	expr := "(()=>{ const el = (" + findJS + ")(" + jsArgs(specOf(t)) + ")[" + fmt.Sprint(nth) + "]; if (!el) return 'element gone'; return (" + fn + ")(el" + argList(args) + "); })()"
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	if res != "" {
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("%s: %s", t, res)}
	}
	return nil
}

func argList(args []any) string {
	if len(args) == 0 {
		return ""
	}
	return "," + jsArgs(args...)
}

const fillJS = `function(el, v){
  if (!('value' in el) && !el.isContentEditable) return 'not a form field';
  el.focus();
  if (el.isContentEditable) { el.textContent = v; }
  else { const proto = Object.getPrototypeOf(el); const d = Object.getOwnPropertyDescriptor(proto, 'value');
    if (d && d.set) d.set.call(el, v); else el.value = v; }
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}`

const selectJS = `function(el, label, value){
  if (el.tagName !== 'SELECT') return 'not a <select>';
  const norm = s => (s||'').replace(/\s+/g,' ').trim();
  const opt = Array.from(el.options).find(o => label ? norm(o.label || o.text) === norm(label) : o.value === value);
  if (!opt) return 'no option ' + (label ? 'labelled "' + label + '"' : 'with value "' + value + '"') + '; options: ' + Array.from(el.options).map(o => '"' + norm(o.label||o.text) + '"').join(', ');
  el.focus(); opt.selected = true;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}`

func (r *run) setChecked(ctx context.Context, tab *Tab, t scripts.Target, want bool, rec *timeline.Step) error {
	rec.Target = t.String()
	nth := 0
	if t.Nth != nil {
		nth = *t.Nth
	}
	state := "(()=>{ const el = (" + findJS + ")(" + jsArgs(specOf(t)) + ")[" + fmt.Sprint(nth) + "]; return !!(el && el.checked); })()"
	cur, err := chromedp.Run(ctx, chromedp.Evaluate[bool](state))
	if err != nil {
		return undispatched(err)
	}
	if cur == want {
		if _, err := r.actionable(ctx, t, rec, false, false); err != nil {
			return err
		}
		return nil
	}
	if err := r.pointAt(ctx, tab, t, rec, true); err != nil {
		return err
	}
	if err := tab.pointer.Click(ctx, "left", 1, 0); err != nil {
		return err
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[bool](state))
	if err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	if got != want {
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("%s: clicked, but it is still %s", t, map[bool]string{true: "checked", false: "unchecked"}[got])}
	}
	return nil
}

// scrollState is the page's (or an element's) scroll geometry.
type scrollState struct {
	X, Y, MaxX, MaxY float64
	// For ToTarget: how far to scroll to centre the target.
	DX, DY float64
}

// scroll scrolls with real wheel events, spread over the duration so the
// video shows a smooth scroll.
func (r *run) scroll(ctx context.Context, tab *Tab, a scripts.Scroll, rec *timeline.Step) error {
	dur := a.Duration
	if dur <= 0 {
		dur = 600 * time.Millisecond
	}
	rec.Duration = dur
	scroller := "document.scrollingElement"
	if a.In != nil {
		rec.Target = a.In.String()
		if err := r.pointAt(ctx, tab, *a.In, rec, false); err != nil {
			return err
		}
		nth := 0
		if a.In.Nth != nil {
			nth = *a.In.Nth
		}
		scroller = "(" + findJS + ")(" + jsArgs(specOf(*a.In)) + ")[" + fmt.Sprint(nth) + "]"
	}
	target := "null"
	if a.ToTarget != nil {
		rec.Target = a.ToTarget.String()
		target = "(" + findJS + ")(" + jsArgs(specOf(*a.ToTarget)) + ")[0]"
	}
	stateExpr := "(()=>{ const s = " + scroller + "; const t = " + target + "; const o = {x: s.scrollLeft, y: s.scrollTop, maxX: s.scrollWidth - s.clientWidth, maxY: s.scrollHeight - s.clientHeight, dx: 0, dy: 0};" +
		" if (t) { const r = t.getBoundingClientRect(); o.dx = 0; o.dy = r.top + r.height/2 - innerHeight/2; } return o; })()"
	st, err := chromedp.Run(ctx, chromedp.Evaluate[scrollState](stateExpr))
	if err != nil {
		return undispatched(err)
	}
	var dx, dy float64
	switch {
	case a.By != nil:
		dx, dy = a.By.X, a.By.Y
	case a.ToTarget != nil:
		dx, dy = st.DX, st.DY
	case a.ToPoint != nil:
		dx, dy = a.ToPoint.X-st.X, a.ToPoint.Y-st.Y
	case a.ToEdge == "top":
		dy = -st.Y
	case a.ToEdge == "bottom":
		dy = st.MaxY - st.Y
	}
	// Clamp to what can scroll, so the wheel does not push past an edge.
	dx = math.Max(-st.X, math.Min(dx, st.MaxX-st.X))
	dy = math.Max(-st.Y, math.Min(dy, st.MaxY-st.Y))
	if math.Abs(dx) < 1 && math.Abs(dy) < 1 {
		return nil
	}
	n := max(1, int(dur/(time.Second/60)))
	start := time.Now()
	var sentX, sentY float64
	for i := 1; i <= n; i++ {
		e := easeInOut(float64(i) / float64(n))
		wx, wy := math.Round(dx*e-sentX), math.Round(dy*e-sentY)
		if i == n {
			wx, wy = dx-sentX, dy-sentY
		}
		if wx != 0 || wy != 0 {
			if err := tab.pointer.Wheel(ctx, wx, wy); err != nil {
				return err
			}
			sentX, sentY = sentX+wx, sentY+wy
		}
		if d := time.Until(start.Add(time.Duration(i) * dur / time.Duration(n))); d > 0 {
			time.Sleep(d)
		}
	}
	// Let the scroll settle, then check it moved.
	settle := "new Promise(res => { const s = " + scroller + "; let last = -1, same = 0; (function f(){ const y = s.scrollTop + s.scrollLeft; same = (y === last) ? same + 1 : 0; last = y; if (same >= 3) res(true); else requestAnimationFrame(f); })(); })"
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](settle, chromedp.EvalAwaitPromise)); err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	return nil
}

func (r *run) upload(ctx context.Context, a scripts.Upload) error {
	if _, err := waitActionable(ctx, a.Into, true, false); err != nil {
		// File inputs are often hidden behind a styled label: attached is enough.
		if !strings.Contains(err.Error(), "visible") {
			return undispatched(err)
		}
	}
	nth := 0
	if a.Into.Nth != nil {
		nth = *a.Into.Nth
	}
	expr := "(" + findJS + ")(" + jsArgs(specOf(a.Into)) + ")[" + fmt.Sprint(nth) + "]"
	obj, err := chromedp.Run(ctx, chromedp.Evaluate[*runtime.RemoteObject](expr))
	if err != nil || obj == nil || obj.ObjectID == "" {
		return undispatched(fmt.Errorf("upload: %s not found: %v", a.Into, err))
	}
	if _, err := chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: a.Files, ObjectID: obj.ObjectID}); err != nil {
		return dispatchErr(fmt.Errorf("upload to %s: %w", a.Into, err))
	}
	return nil
}

func (r *run) tabOp(a scripts.Tab, rec *timeline.Step) error {
	rec.Target = a.Name
	switch a.Op {
	case scripts.TabOpen:
		if _, ok := r.tabs[a.Name]; ok {
			return undispatched(fmt.Errorf("tab %q is already open", a.Name))
		}
		t, err := r.openTab(a.Name)
		if err != nil {
			return err
		}
		r.current = t
		if a.URL != "" {
			if err := navErr(chromedp.Do(t.ctx, chromedp.Navigate(a.URL))); err != nil {
				return err
			}
		}
		return undispatched(r.film(t, r.urlOf(t)))
	case scripts.TabSwitch:
		t, ok := r.tabs[a.Name]
		if !ok {
			return undispatched(fmt.Errorf("no tab %q is open", a.Name))
		}
		r.current = t
		return undispatched(r.film(t, r.urlOf(t)))
	case scripts.TabClose:
		t, ok := r.tabs[a.Name]
		if !ok || a.Name == "main" {
			return undispatched(fmt.Errorf("tab %q cannot be closed", a.Name))
		}
		if r.current == t {
			r.current = r.tabs["main"]
		}
		// Film the tab that is current now before this one goes away.
		if err := r.film(r.current, r.urlOf(r.current)); err != nil {
			return undispatched(err)
		}
		t.cancel()
		delete(r.tabs, a.Name)
	}
	return nil
}

func (r *run) screenshot(ctx context.Context, a scripts.Screenshot) error {
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	if a.Target != nil {
		act, err := waitActionable(ctx, *a.Target, false, false)
		if err != nil {
			return undispatched(err)
		}
		params.Clip = &page.Viewport{X: act.Box.X, Y: act.Box.Y, Width: act.Box.W, Height: act.Box.H, Scale: 1}
	}
	shot, err := chromedp.Call(ctx, page.CaptureScreenshot, params)
	if err != nil {
		return dispatchErr(err)
	}
	path := a.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.outDir(), path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return undispatched(err)
	}
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		return undispatched(fmt.Errorf("save screenshot: %w", err))
	}
	return nil
}

// outDir is where screenshots and videos go: beside the take.
func (r *run) outDir() string {
	if r.o.OutDir != "" {
		return r.o.OutDir
	}
	return filepath.Dir(filepath.Clean(r.o.TakeDir))
}

// history moves through the tab's history by delta and waits until the
// entry's document is current and loaded. (A page restored from the
// back/forward cache fires no load event, so that is not waited for.)
func (r *run) history(ctx context.Context, delta int, rec *timeline.Step) error {
	h, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return undispatched(err)
	}
	i := int(h.CurrentIndex) + delta
	if i < 0 || i >= len(h.Entries) {
		word := map[int]string{-1: "back", 1: "forward"}[delta]
		return undispatched(fmt.Errorf("cannot go %s: the history has no entry there", word))
	}
	e := h.Entries[i]
	rec.Target = r.s.Mask(e.URL)
	if _, err := chromedp.Call(ctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: e.ID}); err != nil {
		return dispatchErr(err)
	}
	err = poll(ctx, "location.href === "+jsArgs(e.URL)+" && document.readyState === 'complete'", "history navigation to "+e.URL)
	if err != nil {
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
	}
	return nil
}

// urlOf returns the address a tab shows, "" when it cannot be read.
func (r *run) urlOf(t *Tab) string {
	ctx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
	defer cancel()
	u, err := chromedp.Run(ctx, chromedp.Evaluate[string]("location.href"))
	if err != nil {
		return ""
	}
	return u
}
