// observe checks one expectation and says what it saw: {ok, seen}. e is
// {what, spec, nth, want, exact, attr, hasValue, count}. On one element
// (visible, hidden, enabled, disabled, editable, focused, attribute,
// text in an element) the target must match one element, or be picked by
// nth, as for input; count counts every match (visible: true on the
// target counts the visible ones). A field's value and a control's checked
// state are read in the page's own world (js/main/value.js, checked.js).
clapper.observe = function (e) {
  const one = () => {
    const els = clapper.find(e.spec);
    if (e.nth == null && els.length > 1) return {ambiguous: els.length};
    return {el: els[e.nth == null ? 0 : e.nth] || null};
  };
  switch (e.what) {
    case 'visible':
    case 'hidden': {
      const ok = clapper.state(e.spec, e.nth, e.what);
      return {ok, seen: ok ? '' : (e.what === 'visible' ? 'not visible' : 'visible')};
    }
    case 'text': {
      let t;
      if (e.spec) {
        const o = one();
        if (o.ambiguous) return {ok: false, ambiguous: o.ambiguous};
        if (!o.el) return {ok: false, seen: 'no element'};
        t = clapper.norm(clapper.elementText(o.el));
      } else {
        t = clapper.norm(document.body ? document.body.innerText : '');
      }
      const w = clapper.norm(e.want);
      const ok = e.exact ? t === w : t.includes(w);
      return {ok, seen: JSON.stringify(t.length > 200 ? t.slice(0, 200) + '…' : t)};
    }
    case 'url':
      return {ok: clapper.urlIs(e.want), seen: location.href};
    case 'title':
      return {ok: document.title === e.want, seen: JSON.stringify(document.title)};
    case 'count': {
      const n = clapper.find(e.spec).length;
      return {ok: n === e.count, seen: n + ' matching'};
    }
    case 'enabled':
    case 'disabled':
    case 'editable':
    case 'focused':
    case 'attribute': {
      const o = one();
      if (o.ambiguous) return {ok: false, ambiguous: o.ambiguous};
      if (!o.el) return {ok: false, seen: 'no element'};
      const el = o.el;
      switch (e.what) {
        case 'enabled': return {ok: clapper.enabled(el), seen: 'disabled'};
        case 'disabled': return {ok: !clapper.enabled(el), seen: 'enabled'};
        case 'editable': {
          const f = clapper.retarget(el, 'follow-label');
          if (!clapper.isField(f)) return {ok: false, seen: clapper.describe(f) + ', not a form field or editable element'};
          return {ok: clapper.editable(el), seen: clapper.enabled(el) ? 'read-only' : 'disabled'};
        }
        case 'focused': {
          const a = el.getRootNode().activeElement || document.activeElement;
          return {ok: clapper.focused(el), seen: 'the focus is on ' + clapper.describe(a)};
        }
        default: {
          if (!el.hasAttribute(e.attr)) return {ok: false, seen: 'no attribute ' + e.attr};
          const v = el.getAttribute(e.attr);
          return {ok: !e.hasValue || v === e.want, seen: e.attr + '=' + JSON.stringify(v)};
        }
      }
    }
  }
  return {ok: false, seen: 'unknown expectation ' + e.what};
};
