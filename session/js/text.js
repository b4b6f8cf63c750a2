// Text matching, Playwright's rules (its getByText, getByLabel,
// getByPlaceholder and toHaveText): an element's text is its text
// content (open shadow roots included; script, style and the head left
// out; a button-like <input> counts its value), white space folded with
// clapper.norm. A matcher is a case-insensitive substring match by
// default, and with exact the whole text, case-sensitively.

clapper.skipForText = function (el) {
  return el.nodeName === 'SCRIPT' || el.nodeName === 'NOSCRIPT' || el.nodeName === 'STYLE' ||
    (document.head && document.head.contains(el));
};

// elementText is el's full text; cache (a Map) keeps each element's text
// for one search.
clapper.elementText = function (el, cache) {
  if (cache && cache.has(el)) return cache.get(el);
  let t = '';
  if (el.nodeType === 1 && clapper.skipForText(el)) {
    t = '';
  } else if (el.nodeName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) {
    t = el.value;
  } else {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) t += c.nodeValue;
      else if (c.nodeType === 1) t += clapper.elementText(c, cache);
    }
    if (el.shadowRoot) t += clapper.elementText(el.shadowRoot, cache);
  }
  if (cache) cache.set(el, t);
  return t;
};

// textMatcher returns a function telling whether a text matches want.
clapper.textMatcher = function (want, exact) {
  const w = clapper.norm(want);
  if (exact) return (s) => clapper.norm(s) === w;
  const lw = w.toLowerCase();
  return (s) => clapper.norm(s).toLowerCase().includes(lw);
};

// attrMatcher is textMatcher for an attribute's value (a placeholder):
// as Playwright, white space is not folded.
clapper.attrMatcher = function (want, exact) {
  if (exact) return (s) => s === want;
  const lw = String(want).toLowerCase();
  return (s) => String(s).toLowerCase().includes(lw);
};

// byText returns the elements whose text matches, innermost only: an
// element is left out when one of its child elements (or its shadow
// root) matches by itself, so "Hello <b>world</b>" matched on world is
// the <b>, and on "Hello world" the parent. Hidden elements count, as in
// Playwright: a target that must be acted on waits for it to be visible.
clapper.byText = function (want, exact) {
  const match = clapper.textMatcher(want, exact);
  const cache = new Map();
  const out = [];
  for (const el of clapper.all(document)) {
    if (clapper.skipForText(el)) continue;
    if (!match(clapper.elementText(el, cache))) continue;
    let child = false;
    for (let c = el.firstElementChild; c && !child; c = c.nextElementSibling) {
      child = match(clapper.elementText(c, cache));
    }
    if (!child && el.shadowRoot) child = match(clapper.elementText(el.shadowRoot, cache));
    if (!child) out.push(el);
  }
  return out;
};

// labelsOf are the texts that label a form element, Playwright's way:
// the elements aria-labelledby names, else aria-label, else its <label>s.
clapper.labelsOf = function (el, cache) {
  const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
  const root = el.getRootNode();
  const byId = [];
  for (const id of ids) {
    const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
    if (ref && !byId.includes(ref)) byId.push(ref);
  }
  if (byId.length) return byId.map((r) => clapper.elementText(r, cache));
  const aria = (el.getAttribute('aria-label') || '').trim();
  if (aria) return [aria];
  const labelable = ['BUTTON', 'METER', 'OUTPUT', 'PROGRESS', 'SELECT', 'TEXTAREA'].includes(el.nodeName) ||
    (el.nodeName === 'INPUT' && el.type !== 'hidden');
  if (labelable && el.labels) return Array.from(el.labels).map((l) => clapper.elementText(l, cache));
  return [];
};

// byLabel returns the elements one of whose labels matches.
clapper.byLabel = function (want, exact) {
  const match = clapper.textMatcher(want, exact);
  const cache = new Map();
  return clapper.all(document).filter((el) => clapper.labelsOf(el, cache).some(match));
};
