package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// findJS resolves a target spec to elements in the page. It is evaluated
// fresh on every probe: nothing observed earlier is trusted later.
const findJS = `(function(spec){
  const norm = s => (s||'').replace(/\s+/g,' ').trim();
  const visible = el => { const r = el.getBoundingClientRect(); const cs = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && parseFloat(cs.opacity||'1') > 0; };
  const all = (root) => Array.from(root.querySelectorAll('*'));
  let els = [];
  if (spec.css) { els = Array.from(document.querySelectorAll(spec.css)); }
  else if (spec.xpath) { const r = document.evaluate(spec.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i=0;i<r.snapshotLength;i++) { const n=r.snapshotItem(i); if (n.nodeType===1) els.push(n); } }
  else if (spec.testid) { els = Array.from(document.querySelectorAll('[data-testid="'+CSS.escape(spec.testid)+'"]')); }
  else if (spec.placeholder) { els = all(document).filter(e => norm(e.getAttribute('placeholder')) === norm(spec.placeholder)); }
  else if (spec.label) { const want = norm(spec.label);
    for (const l of document.querySelectorAll('label')) { if (norm(l.textContent) === want && l.control) els.push(l.control); }
    for (const e of all(document)) { if (norm(e.getAttribute('aria-label')) === want && !els.includes(e)) els.push(e); } }
  else if (spec.text) { const want = norm(spec.text);
    const cands = all(document.body||document).filter(e => !['SCRIPT','STYLE','HEAD'].includes(e.tagName) && norm(e.innerText||e.value) === want);
    els = cands.filter(e => !cands.some(o => o !== e && e.contains(o)));
    if (!els.length) { const c2 = all(document.body||document).filter(e => !['SCRIPT','STYLE','HEAD','HTML','BODY'].includes(e.tagName) && norm(e.innerText).includes(want));
      els = c2.filter(e => !c2.some(o => o !== e && e.contains(o))); } }
  else if (spec.role) { const implicit = {button:'button,input[type=button],input[type=submit],input[type=reset]', link:'a[href]', textbox:'input:not([type]),input[type=text],input[type=email],input[type=password],input[type=search],input[type=tel],input[type=url],textarea', checkbox:'input[type=checkbox]', radio:'input[type=radio]', combobox:'select', heading:'h1,h2,h3,h4,h5,h6', listitem:'li', list:'ul,ol', img:'img', option:'option'};
    const set = new Set(Array.from(document.querySelectorAll('[role="'+spec.role+'"]')));
    if (implicit[spec.role]) for (const e of document.querySelectorAll(implicit[spec.role])) if (!e.hasAttribute('role')) set.add(e);
    els = Array.from(set);
    if (spec.name) { const want = norm(spec.name); els = els.filter(e => { const n = norm(e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].textContent) || e.innerText || e.value || e.getAttribute('alt') || e.getAttribute('title')); return n === want; }); } }
  if (spec.visibleOnly) els = els.filter(visible);
  return els;
})`

// probeJS reports on the target for actionability checks.
const probeJS = `(async function(spec, nth, scroll){
  const els = (` + findJS + `)(spec);
  const out = {count: els.length};
  if (els.length === 0) return out;
  if (nth === null && els.length > 1) return out;
  const el = els[nth === null ? 0 : nth];
  if (!el) { out.count = 0; return out; }
  if (scroll) { const r = el.getBoundingClientRect();
    if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) el.scrollIntoView({block:'center', inline:'center'}); }
  const box = () => { const r = el.getBoundingClientRect(); return {x:r.x, y:r.y, w:r.width, h:r.height}; };
  const a = box();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const b = box();
  const cs = getComputedStyle(el);
  out.box = b;
  out.stable = a.x===b.x && a.y===b.y && a.w===b.w && a.h===b.h;
  out.visible = b.w > 0 && b.h > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && parseFloat(cs.opacity||'1') > 0;
  out.enabled = !(el.disabled || el.closest('fieldset[disabled]') || el.getAttribute('aria-disabled') === 'true');
  const cx = b.x + b.w/2, cy = b.y + b.h/2;
  const hit = document.elementFromPoint(cx, cy);
  out.receives = !!hit && (hit === el || el.contains(hit) || (el.labels && Array.from(el.labels).some(l => l.contains(hit))));
  out.hitDesc = hit ? (hit.tagName.toLowerCase() + (hit.id ? '#'+hit.id : '') + (hit.className && typeof hit.className === 'string' ? '.'+hit.className.trim().split(/\s+/).join('.') : '')) : 'nothing';
  out.cursor = cs.cursor;
  out.inViewport = cx >= 0 && cy >= 0 && cx <= innerWidth && cy <= innerHeight;
  return out;
})`

// spec is the JSON form of a target for findJS.
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

// probe is the result of probeJS.
type probe struct {
	Count      int            `json:"count"`
	Box        *timeline.Rect `json:"box"`
	Stable     bool           `json:"stable"`
	Visible    bool           `json:"visible"`
	Enabled    bool           `json:"enabled"`
	Receives   bool           `json:"receives"`
	HitDesc    string         `json:"hitDesc"`
	Cursor     string         `json:"cursor"`
	InViewport bool           `json:"inViewport"`
}

func jsArgs(vals ...any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ",")
}

func nthArg(t scripts.Target) any {
	if t.Nth == nil {
		return nil
	}
	return *t.Nth
}

// ErrAmbiguous is wrapped by errors for targets matching several elements.
var ErrAmbiguous = errors.New("ambiguous target")

// Actionable is a target resolved and checked for input.
type Actionable struct {
	Box    timeline.Rect
	Cursor string
}

// Center returns the middle of the element's box.
func (a Actionable) Center() (float64, float64) { return a.Box.X + a.Box.W/2, a.Box.Y + a.Box.H/2 }

// waitActionable polls until the target is attached, unique (or nth
// given), visible, stable, enabled (when needEnabled) and receives the
// pointer at its centre, or the deadline passes; the error names the check
// that failed last. Nothing is dispatched by this.
func waitActionable(ctx context.Context, t scripts.Target, needEnabled, needHit bool) (Actionable, error) {
	expr := "(" + probeJS + ")(" + jsArgs(specOf(t), nthArg(t), true) + ")"
	var last string
	for {
		p, err := chromedp.Run(ctx, chromedp.Evaluate[probe](expr, chromedp.EvalAwaitPromise))
		if err != nil {
			if ctx.Err() != nil {
				return Actionable{}, timeoutErr(ctx, t, last)
			}
			return Actionable{}, fmt.Errorf("check %s: %w", t, err)
		}
		switch {
		case p.Count == 0:
			last = "attached: no element matches"
		case p.Count > 1 && t.Nth == nil:
			return Actionable{}, fmt.Errorf("%w: %s matches %d elements; make it specific or add nth", ErrAmbiguous, t, p.Count)
		case !p.Visible:
			last = "visible: the element is not visible"
		case !p.Stable:
			last = "stable: the element is still moving"
		case needEnabled && !p.Enabled:
			last = "enabled: the element is disabled"
		case needHit && !p.Receives:
			last = "receives pointer: " + p.HitDesc + " covers the element's centre"
		default:
			return Actionable{Box: *p.Box, Cursor: p.Cursor}, nil
		}
		select {
		case <-ctx.Done():
			return Actionable{}, timeoutErr(ctx, t, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func timeoutErr(ctx context.Context, t scripts.Target, last string) error {
	if last == "" {
		last = "no answer from the page"
	}
	return fmt.Errorf("%s not actionable before the timeout: failed check %s: %w", t, last, context.Cause(ctx))
}

// poll evaluates a JavaScript boolean expression until it is true or ctx
// ends.
func poll(ctx context.Context, expr, what string) error {
	var lastErr error
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr, chromedp.EvalAwaitPromise))
		if err == nil && ok {
			return nil
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if lastErr != nil && !errors.Is(lastErr, context.DeadlineExceeded) && !errors.Is(lastErr, context.Canceled) {
				return fmt.Errorf("%s: not true before the timeout (last error: %v): %w", what, lastErr, context.Cause(ctx))
			}
			return fmt.Errorf("%s: not true before the timeout: %w", what, context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// targetStateExpr is a JS expression true when the target is in state
// (visible, hidden, attached, detached).
func targetStateExpr(t scripts.Target, state string) string {
	els := "(" + findJS + ")(" + jsArgs(specOf(t)) + ")"
	pick := "const els = " + els + "; const el = " + func() string {
		if t.Nth != nil {
			return fmt.Sprintf("els[%d]", *t.Nth)
		}
		return "els[0]"
	}() + ";"
	vis := "(el && (()=>{const r=el.getBoundingClientRect(); const cs=getComputedStyle(el); return r.width>0&&r.height>0&&cs.visibility!=='hidden'&&cs.display!=='none';})())"
	switch state {
	case "hidden":
		return "(()=>{" + pick + " return !" + vis + ";})()"
	case "attached":
		return "(()=>{" + pick + " return !!el;})()"
	case "detached":
		return "(()=>{" + pick + " return !el;})()"
	default:
		return "(()=>{" + pick + " return !!" + vis + ";})()"
	}
}

// textPresentExpr is true when the page's visible text contains s.
func textPresentExpr(s string) string {
	return "(document.body ? document.body.innerText : '').replace(/\\s+/g,' ').includes(" + jsArgs(strings.Join(strings.Fields(s), " ")) + ")"
}
