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
// from an element at the top of a shadow root to its host. So do those
// inside :is(), :where(), :not() and :has(), whose arguments clapper
// matches itself when they cross (splitCompound): "button:is(my-card *)"
// finds the component's button, and "my-card:has(button)" the component.
// The rest of each compound selector is matched by the browser; only the
// combinators are walked here. A page without open shadow roots has one
// tree, where the browser's own query gives the same elements in the same
// order. A selector the browser cannot parse throws the browser's error.
// A selector with :scope or & (outside quoted values) keeps the
// browser's own meaning (the root element, as in Playwright), in one
// tree.
clapper.byCSS = function (css) {
  document.createDocumentFragment().querySelector(css); // the browser's own check, and its error
  if (/:scope\b|&/i.test(clapper.unquoted(css)) || !clapper.anyShadow(document)) return [...document.querySelectorAll(css)];
  const els = clapper.all(document);
  const list = clapper.splitSelector(css).filter((parts) => parts);
  // For each complex selector, part -> element -> whether it matches
  // there: each element is judged once per part.
  const ctx = {memo: new Map(), compounds: new Map()};
  return els.filter((e) => list.some((parts) => clapper.matchesPierced(e, parts, parts.length - 1, ctx)));
};

// anyShadow says whether root holds an element with an open shadow root.
clapper.anyShadow = function (root) {
  for (const el of root.querySelectorAll('*')) if (el.shadowRoot) return true;
  return false;
};

// splitSelector splits a selector list into its complex selectors, each a
// list of [combinator, compound] from the left (the first combinator is
// "", or the one a relative selector of :has() begins with): "nav a.x,
// ul > li" gives [["", "nav"], [" ", "a.x"]] and [["", "ul"], [">",
// "li"]], and "> p" gives [[">", "p"]]. A complex selector with a
// combinator doubled or at its end is null (an item of the forgiving list
// of an :is() or :where() the browser leaves out; elsewhere the browser's
// check refused it first). Brackets, parentheses, quotes and escapes are
// kept whole. Pure.
clapper.splitSelector = function (css) {
  const list = [];
  let parts = [], cur = '', comb = '', depth = 0, quote = '', bad = false;
  const end = () => { list.push(bad || comb ? null : parts); parts = []; comb = ''; bad = false; };
  const flush = () => { if (cur.trim()) { parts.push([parts.length ? comb || ' ' : comb, cur.trim()]); comb = ''; } cur = ''; };
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
    if (ch === ',') { flush(); end(); continue; }
    if (ch === '>' || ch === '+' || ch === '~') { flush(); if (comb) bad = true; comb = ch; continue; }
    if (/\s/.test(ch)) { flush(); continue; }
    cur += ch;
  }
  flush();
  end();
  return list.filter((p) => !p || p.length);
};

// matchesPierced says whether el matches parts[0..i], ancestors and
// parents taken across shadow roots (a root's host is its top elements'
// parent), siblings within el's own tree.
// ctx.memo keeps each (parts, part, element) judged, so that a selector
// of many descendant steps over a deep page is not tried again and again.
clapper.matchesPierced = function (el, parts, i, ctx) {
  return clapper.kept(ctx, parts, i, el, () => clapper.matchesPiercedOnce(el, parts, i, ctx));
};

clapper.matchesPiercedOnce = function (el, parts, i, ctx) {
  const [comb, compound] = parts[i];
  if (!clapper.matchesCompound(el, compound, ctx)) return false;
  if (i === 0) return true;
  switch (comb) {
    case '>': {
      const p = clapper.parentOf(el);
      return !!p && clapper.matchesPierced(p, parts, i - 1, ctx);
    }
    case '+': {
      const p = el.previousElementSibling;
      return !!p && clapper.matchesPierced(p, parts, i - 1, ctx);
    }
    case '~':
      return clapper.earlierMatches(el, parts, i - 1, ctx);
    default:
      for (let p = clapper.parentOf(el); p; p = clapper.parentOf(p)) {
        if (clapper.matchesPierced(p, parts, i - 1, ctx)) return true;
      }
      return false;
  }
};

// earlierMatches says whether an earlier sibling of el matches
// parts[0..i] (siblingRun): "h ~ li" over a list of any length costs one
// pass over it.
clapper.earlierMatches = function (el, parts, i, ctx) {
  return clapper.siblingRun(el, 'previousElementSibling', clapper.memoOf(ctx, parts, 'e' + i),
    (s) => clapper.matchesPierced(s, parts, i, ctx));
};

// siblingRun says whether test holds for a sibling of el on the side
// step walks to (previousElementSibling or nextElementSibling). memo
// keeps that answer for each sibling looked at, walked without
// recursion: a run of any length.
clapper.siblingRun = function (el, step, memo, test) {
  if (memo.has(el)) return memo.get(el);
  const path = [];
  let ok = false;
  for (let s = el; s; s = s[step]) {
    if (memo.has(s)) { ok = memo.get(s) || test(s); break; }
    path.push(s);
  }
  // Back from the last one looked at: whether one beyond path[j] holds.
  for (let j = path.length - 1; j >= 0; j--) {
    memo.set(path[j], ok);
    ok = ok || test(path[j]);
  }
  return memo.get(el);
};

// memoOf is the call's map of answers for (parts, what), made on first
// use.
clapper.memoOf = function (ctx, parts, what) {
  let byParts = ctx.memo.get(parts);
  if (!byParts) ctx.memo.set(parts, byParts = new Map());
  let m = byParts.get(what);
  if (!m) byParts.set(what, m = new Map());
  return m;
};

// matchesCompound says whether el matches a compound selector: the
// browser matches what stays in one tree, and clapper the :is(), :where()
// and :not() that hold a combinator and every :has() (splitCompound),
// across shadow roots as Playwright does.
clapper.matchesCompound = function (el, compound, ctx) {
  let c = ctx.compounds.get(compound);
  if (!c) ctx.compounds.set(compound, c = clapper.splitCompound(compound));
  if (c.css && !clapper.matchesOrNot(el, c.css)) return false;
  return c.fns.every(({name, list}) => {
    if (name === 'has') return list.some((parts) => clapper.relFrom(el, parts, 0, ctx));
    const any = list.some((parts) => clapper.matchesPierced(el, parts, parts.length - 1, ctx));
    return name === 'not' ? !any : any;
  });
};

// matchesOrNot is el.matches(css), false where the browser cannot parse
// css: the whole selector passed its check, so that is a part of the
// forgiving list of an :is() or :where() ("button:is(my-card *,
// :nonsense)"), which matches nothing.
clapper.matchesOrNot = function (el, css) {
  try {
    return el.matches(css);
  } catch (e) {
    return false;
  }
};

// relFrom says whether an element related to el by parts[k]'s combinator
// starts parts[k..] (startsAt). From k = 0 it is whether el has what a
// relative selector of :has() matches: an element below el (in its
// shadow root too) for " " and ">", the next sibling for "+", a later
// sibling for "~", from which the rest of parts goes on left to right, as
// Playwright's engine reads it (make versus-playwright-locators compares
// the two). Every answer is kept for the call, per element, so a list
// whose every item asks costs one pass over it.
clapper.relFrom = function (el, parts, k, ctx) {
  const comb = parts[k][0] || ' ';
  switch (comb) {
    case '+': {
      const s = el.nextElementSibling;
      return !!s && clapper.startsAt(s, parts, k, ctx);
    }
    case '~':
      return clapper.laterStarts(el, parts, k, ctx);
    case '>':
      return clapper.childrenOf(el).some((c) => clapper.startsAt(c, parts, k, ctx));
    default:
      return clapper.belowStarts(el, parts, k, ctx);
  }
};

// belowStarts says whether an element below el (in shadow roots too)
// starts parts[k..]. The answer is kept for every element of el's
// subtree, filled children first without recursion: a tree of any depth.
clapper.belowStarts = function (el, parts, k, ctx) {
  const below = clapper.memoOf(ctx, parts, 'd' + k);
  const stack = [[el, null]]; // an element, and its children once they are read
  while (stack.length) {
    const [n, kids] = stack.pop();
    if (below.has(n)) continue;
    if (!kids) {
      const read = clapper.childrenOf(n);
      stack.push([n, read]);
      for (const c of read) if (!below.has(c)) stack.push([c, null]);
      continue;
    }
    below.set(n, kids.some((c) => below.get(c) || clapper.startsAt(c, parts, k, ctx)));
  }
  return below.get(el);
};

// laterStarts says whether a later sibling of el starts parts[k..]
// (siblingRun).
clapper.laterStarts = function (el, parts, k, ctx) {
  return clapper.siblingRun(el, 'nextElementSibling', clapper.memoOf(ctx, parts, 'l' + k),
    (s) => clapper.startsAt(s, parts, k, ctx));
};

// startsAt says whether parts[k..] match from el on: el matches the
// compound of part k, and an element related to it by the next part's
// combinator starts the rest.
clapper.startsAt = function (el, parts, k, ctx) {
  return clapper.kept(ctx, parts, 's' + k, el, () =>
    clapper.matchesCompound(el, parts[k][1], ctx) && (k === parts.length - 1 || clapper.relFrom(el, parts, k + 1, ctx)));
};

// childrenOf are el's children, those at the top of its shadow root too
// (whose parent is el, as parentOf says).
clapper.childrenOf = function (el) {
  const kids = [...el.children];
  if (el.shadowRoot) kids.push(...el.shadowRoot.children);
  return kids;
};

// kept answers f() once per (parts, what, el) in the call's ctx.
clapper.kept = function (ctx, parts, what, el, f) {
  const m = clapper.memoOf(ctx, parts, what);
  if (m.has(el)) return m.get(el);
  const ok = f();
  m.set(el, ok);
  return ok;
};

// splitCompound splits a compound selector into what the browser matches
// (css: "" when nothing) and the functional pseudo-classes clapper matches
// itself (fns: {name, list}, list as splitSelector gives it): every
// :has(), whose argument looks down into components, and the :is(),
// :where() and :not() whose argument holds a combinator or such a :has()
// (without one they judge el alone, and the browser's answer is the
// same). "button.x:is(my-card *):hover" gives css "button.x:hover" and
// one fn. Pure.
clapper.splitCompound = function (compound) {
  let css = '', i = 0;
  const fns = [];
  while (i < compound.length) {
    const m = /^:(is|where|not|has)\(/i.exec(compound.slice(i));
    if (m) {
      const start = i + m[0].length;
      const end = clapper.closingParen(compound, start);
      const arg = compound.slice(start, end);
      const name = m[1].toLowerCase();
      // An item the browser leaves out of a forgiving list (a combinator
      // doubled, at its end, or at its start outside :has()) matches
      // nothing.
      let list = clapper.splitSelector(arg).filter((parts) => parts && (name === 'has' || !parts[0][0]));
      if (name === 'has') list = list.map((parts) => parts.map(([c, x]) => [c, clapper.withoutNestedHas(x)]));
      const own = name === 'has' || list.some((parts) => parts.length > 1 ||
        parts.some(([, c]) => clapper.splitCompound(c).fns.length > 0));
      if (own) fns.push({name, list});
      else css += compound.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const ch = compound[i];
    if (ch === '\\') { // an escape goes whole (its next character, at least)
      css += compound.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '[' || ch === '(') {
      const end = ch === '[' || ch === '(' ? clapper.closingParen(compound, i + 1, ch) : clapper.closingQuote(compound, i + 1, ch);
      css += compound.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    css += ch;
    i++;
  }
  return {css, fns};
};

// withoutNestedHas is a selector from the argument of a :has() as the
// browser reads it there: an item of an :is() or :where() list that holds
// a :has() is left out (the lists are forgiving; a :has() in a :has() is
// not allowed), and a list left empty matches nothing (":not(*)").
// ":is(.a, :has(b))" gives ":is(.a)", ":not(:is(:has(b)))"
// ":not(:not(*))". Pure.
clapper.withoutNestedHas = function (sel) {
  let out = '', i = 0;
  while (i < sel.length) {
    const m = /^:(is|where|not)\(/i.exec(sel.slice(i));
    if (m) {
      const start = i + m[0].length;
      const end = clapper.closingParen(sel, start);
      const arg = sel.slice(start, end);
      if (m[1].toLowerCase() === 'not') {
        out += sel.slice(i, start) + clapper.withoutNestedHas(arg) + ')';
      } else {
        const kept = clapper.splitItems(arg).filter((item) => !/:has\(/i.test(clapper.unquoted(item))).map(clapper.withoutNestedHas);
        out += kept.length ? sel.slice(i, start) + kept.join(', ') + ')' : ':not(*)';
      }
      i = end + 1;
      continue;
    }
    const ch = sel[i];
    if (ch === '\\') { out += sel.slice(i, i + 2); i += 2; continue; }
    if (ch === '"' || ch === "'") {
      const end = clapper.closingQuote(sel, i + 1, ch);
      out += sel.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
};

// splitItems splits a selector list at its top-level commas, each item as
// written (trimmed). Pure.
clapper.splitItems = function (list) {
  const items = [];
  let from = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === '\\') { i++; continue; }
    if (ch === '"' || ch === "'") { i = clapper.closingQuote(list, i + 1, ch); continue; }
    if (ch === '(' || ch === '[') { i = clapper.closingParen(list, i + 1, ch); continue; }
    if (ch === ',') { items.push(list.slice(from, i)); from = i + 1; }
  }
  items.push(list.slice(from));
  return items.map((x) => x.trim()).filter((x) => x);
};

// unquoted is s with its quoted values blanked. Pure.
clapper.unquoted = function (s) {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\') { out += '  '; i++; continue; }
    if (ch === '"' || ch === "'") {
      const end = clapper.closingQuote(s, i + 1, ch);
      out += ' '.repeat(end + 1 - i);
      i = end;
      continue;
    }
    out += ch;
  }
  return out;
};

// closingParen is the index of the bracket that closes the one opened
// just before start ("(" or "["), quotes and escapes skipped. Pure.
clapper.closingParen = function (s, start, open = '(') {
  const close = open === '[' ? ']' : ')';
  let depth = 1;
  for (let i = start; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\') { i++; continue; }
    if (ch === '"' || ch === "'") { i = clapper.closingQuote(s, i + 1, ch); continue; }
    if (ch === open) depth++;
    else if (ch === close && --depth === 0) return i;
  }
  return s.length;
};

// closingQuote is the index of the quote that ends a string begun just
// before start. Pure.
clapper.closingQuote = function (s, start, quote) {
  for (let i = start; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === quote) return i;
  }
  return s.length;
};
