package session

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// observation is what an expectation saw on its last poll.
type observation struct {
	OK   bool   `json:"ok"`
	Seen string `json:"seen"`
}

// expectExpr builds a JS expression returning an observation for e.
func expectExpr(e scripts.Expect) string {
	els := func(t scripts.Target) string { return "(" + findJS + ")(" + jsArgs(specOf(t)) + ")" }
	pick := func(t scripts.Target) string {
		n := 0
		if t.Nth != nil {
			n = *t.Nth
		}
		return els(t) + "[" + fmt.Sprint(n) + "]"
	}
	norm := "(s => (s||'').replace(/\\s+/g,' ').trim())"
	switch e.What {
	case scripts.ExpectVisible, scripts.ExpectHidden:
		expr := targetStateExpr(*e.Target, e.What)
		return "(()=>{ const ok = " + expr + "; return {ok, seen: ok ? '' : " + jsArgs(e.What == scripts.ExpectVisible) + " ? 'not visible' : 'visible'}; })()"
	case scripts.ExpectText:
		src := "document.body ? document.body.innerText : ''"
		if e.Target != nil {
			src = "(() => { const el = " + pick(*e.Target) + "; return el ? el.innerText : ''; })()"
		}
		return "(()=>{ const t = " + norm + "(" + src + "); const w = " + norm + "(" + jsArgs(e.Want) + "); return {ok: t.includes(w), seen: t.slice(0, 200)}; })()"
	case scripts.ExpectValue:
		return "(()=>{ const el = " + pick(*e.Target) + "; if (!el) return {ok: false, seen: 'no element'}; const v = String(el.value ?? ''); return {ok: v === " + jsArgs(e.Want) + ", seen: JSON.stringify(v)}; })()"
	case scripts.ExpectURL:
		return "(()=>{ return {ok: " + globExpr("location.href", e.Want) + ", seen: location.href}; })()"
	case scripts.ExpectTitle:
		return "(()=>{ return {ok: document.title === " + jsArgs(e.Want) + ", seen: JSON.stringify(document.title)}; })()"
	case scripts.ExpectCount:
		return "(()=>{ const n = " + els(*e.Target) + ".length; return {ok: n === " + fmt.Sprint(e.Count) + ", seen: n + ' matching'}; })()"
	}
	return "({ok: false, seen: 'unknown expectation'})"
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

// expect polls an expectation until it holds or the step's deadline.
func (r *run) expect(ctx context.Context, e scripts.Expect, rec *timeline.Step) error {
	want := describe(e)
	rec.Target = r.s.Mask(want)
	expr := expectExpr(e)
	var last observation
	var lastErr error
	for {
		o, err := chromedp.Run(ctx, chromedp.Evaluate[observation](expr))
		if err == nil {
			if o.OK {
				return nil
			}
			last, lastErr = o, nil
		} else if ctx.Err() == nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			msg := fmt.Sprintf("expected %s", want)
			if lastErr != nil {
				msg += fmt.Sprintf(" (last error: %v)", lastErr)
			} else if last.Seen != "" {
				msg += fmt.Sprintf("; saw %s", last.Seen)
			}
			return undispatched(fmt.Errorf("%s: %w", r.s.Mask(msg), context.Cause(ctx)))
		case <-time.After(100 * time.Millisecond):
		}
	}
}
