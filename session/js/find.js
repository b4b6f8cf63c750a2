// all returns every element under root, descending into open shadow
// roots (a component's insides are on the page a person sees), in
// Playwright's order, which decides what nth picks: a root's own elements
// in document order, then the insides of each shadow root in it, hosts in
// document order. An iframe holds another document: its elements are
// searched only when a target names the frame (the session then calls
// these helpers in that frame's document).
clapper.all = function (root) {
  const out = [];
  const walk = (r) => {
    const els = r.querySelectorAll('*');
    for (const el of els) out.push(el);
    for (const el of els) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(root);
  return out;
};

// find resolves a target spec ({css}, {xpath}, {text}, {role, name},
// {label}, {placeholder}, {alt}, {title} or {testid}, with exact and
// visible) to the elements it matches, in clapper.all's order, by Playwright's
// rules: text, a role's name, a label, a placeholder, alt text and a
// title match a case-insensitive substring (white space folded in text,
// names and labels, not in attributes) unless exact
// asks for the whole text; a role leaves out elements hidden from
// assistive technology; visible keeps only the visible matches. It runs
// afresh on every call: nothing seen earlier is trusted later. CSS, text,
// role, label, placeholder and testid look into open shadow roots; XPath
// does not.
clapper.find = function (spec) {
  let els = [];
  if (spec.css) {
    els = clapper.byCSS(spec.css);
  } else if (spec.xpath) {
    const r = document.evaluate(spec.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i = 0; i < r.snapshotLength; i++) {
      const n = r.snapshotItem(i);
      if (n.nodeType === 1) els.push(n);
    }
  } else if (spec.testid) {
    els = clapper.all(document).filter((e) => e.getAttribute('data-testid') === spec.testid);
  } else if (spec.placeholder || spec.alt || spec.title) {
    const attr = spec.placeholder ? 'placeholder' : spec.alt ? 'alt' : 'title';
    const match = clapper.attrMatcher(spec[attr], spec.exact);
    els = clapper.all(document).filter((e) => e.hasAttribute(attr) && match(e.getAttribute(attr)));
  } else if (spec.label) {
    els = clapper.byLabel(spec.label, spec.exact);
  } else if (spec.text) {
    els = clapper.byText(spec.text, spec.exact);
  } else if (spec.role) {
    els = clapper.byRole(spec.role, spec.name, spec.exact);
  }
  if (spec.visible) els = els.filter((e) => clapper.visible(e));
  return els;
};

// pick returns the nth element the spec matches (the first when nth is
// null), or null.
clapper.pick = function (spec, nth) {
  return clapper.find(spec)[nth == null ? 0 : nth] || null;
};

// boxes are the boxes of the visible elements the spec matches, in this
// document's viewport (what a comparison of takes leaves out).
clapper.boxes = function (spec) {
  return clapper.find(spec).filter((e) => clapper.visible(e)).map((e) => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height};
  });
};

// byCSS returns the elements a CSS selector matches, its combinators
// crossing into open shadow roots as Playwright's do: "my-dialog button"
// finds the button inside the component's shadow root, and ">" steps
// from an element at the top of a shadow root to its host. Each compound
// selector is matched by the browser; only the combinators are walked
// here. A selector the browser cannot parse throws the browser's error.
// A selector with :scope keeps the browser's own meaning, in one tree.
// Combinators inside :is(), :where(), :not() and :has() stay in one tree.
clapper.byCSS = function (css) {
  document.createDocumentFragment().querySelector(css); // the browser's own check, and its error
  if (/:scope\b/i.test(css)) return clapper.all(document).filter((e) => e.matches(css));
  const list = clapper.splitSelector(css);
  // For each complex selector, part -> element -> whether it matches
  // there: each element is judged once per part.
  const memos = list.map(() => new Map());
  return clapper.all(document).filter((e) => list.some((parts, j) => clapper.matchesPierced(e, parts, parts.length - 1, memos[j])));
};

// splitSelector splits a selector list into its complex selectors, each a
// list of [combinator, compound] from the left (the first combinator is
// ""): "nav a.x, ul > li" gives [["", "nav"], [" ", "a.x"]] and
// [["", "ul"], [">", "li"]]. Brackets, parentheses, quotes and escapes
// are kept whole. Pure.
clapper.splitSelector = function (css) {
  const list = [];
  let parts = [], cur = '', comb = '', depth = 0, quote = '';
  const flush = () => { if (cur.trim()) { parts.push([parts.length ? comb || ' ' : '', cur.trim()]); comb = ''; } cur = ''; };
  for (let i = 0; i < css.length; i++) {
    const ch = css[i];
    if (quote) {
      cur += ch;
      if (ch === '\\' && i + 1 < css.length) cur += css[++i];
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '/' && css[i + 1] === '*') { // a comment
      const end = css.indexOf('*/', i + 2);
      i = end < 0 ? css.length : end + 1;
      continue;
    }
    if (ch === '\\' && i + 1 < css.length) {
      // An escape: a character, or up to six hex digits and the one
      // white space that may end them (#\31 23 is the id "123").
      const hex = /^[0-9a-fA-F]{1,6}\s?/.exec(css.slice(i + 1));
      const n = hex ? hex[0].length : 1;
      cur += css.slice(i, i + 1 + n);
      i += n;
      continue;
    }
    if (ch === '"' || ch === "'") { quote = ch; cur += ch; continue; }
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    if (depth > 0) { cur += ch; continue; }
    if (ch === ',') { flush(); list.push(parts); parts = []; comb = ''; continue; }
    if (ch === '>' || ch === '+' || ch === '~') { flush(); comb = ch; continue; }
    if (/\s/.test(ch)) { flush(); continue; }
    cur += ch;
  }
  flush();
  list.push(parts);
  return list.filter((p) => p.length);
};

// matchesPierced says whether el matches parts[0..i], ancestors and
// parents taken across shadow roots (a root's host is its top elements'
// parent), siblings within el's own tree.
// memo keeps each (element, part) judged, so that a selector of many
// descendant steps over a deep page is not tried again and again.
clapper.matchesPierced = function (el, parts, i, memo) {
  let m = memo.get(i);
  if (!m) memo.set(i, m = new Map());
  if (m.has(el)) return m.get(el);
  const ok = clapper.matchesPiercedOnce(el, parts, i, memo);
  m.set(el, ok);
  return ok;
};

clapper.matchesPiercedOnce = function (el, parts, i, memo) {
  const [comb, compound] = parts[i];
  if (!el.matches(compound)) return false;
  if (i === 0) return true;
  switch (comb) {
    case '>': {
      const p = clapper.parentOf(el);
      return !!p && clapper.matchesPierced(p, parts, i - 1, memo);
    }
    case '+': {
      const p = el.previousElementSibling;
      return !!p && clapper.matchesPierced(p, parts, i - 1, memo);
    }
    case '~':
      for (let p = el.previousElementSibling; p; p = p.previousElementSibling) {
        if (clapper.matchesPierced(p, parts, i - 1, memo)) return true;
      }
      return false;
    default:
      for (let p = clapper.parentOf(el); p; p = clapper.parentOf(p)) {
        if (clapper.matchesPierced(p, parts, i - 1, memo)) return true;
      }
      return false;
  }
};
