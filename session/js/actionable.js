// The actionability checks before input, Playwright's: the session asks
// probe for an element's states (and to scroll it into view), reads its
// boxes (DOM.getContentQuads) to choose the point to aim at, and asks
// hitTarget whether the pointer there reaches it.

// probe reports on a target: how many elements match, and for the chosen
// one (nth, or the only one) whether it is visible (clapper.visible),
// shows something (see-through counts as not), is enabled, is a field
// and editable, its CSS cursor, and its box, read on two animation
// frames (stable when the two are the same, as Playwright judges), or,
// when nothing matches, what the page has near the target. When
// scroll is true a visible element is scrolled into view first, in the
// way attempt asks: Playwright's cycle of alignments, for a target that
// the first way left under a sticky header (0: only when needed, to the
// middle; 1: to the end; 2: the middle; 3: the start). It remembers the
// element (js/remember.js) and returns its token.
clapper.probe = async function (spec, nth, scroll, attempt) {
  const els = clapper.find(spec);
  const out = {count: els.length};
  // A target that matches nothing says what the page has near it
  // (js/near.js), for the error at the timeout: looked for on the third
  // look, then ever further apart (clapper.nearLook), so that waiting
  // for an element to come does not keep the page's main thread busy.
  // near is '' when nothing was close, absent when not looked for.
  const near = () => { if (clapper.nearLook(attempt || 0)) out.near = clapper.nearMisses(spec); };
  if (els.length === 0) near();
  if (els.length === 0 || (nth == null && els.length > 1)) return out;
  const el = els[nth == null ? 0 : nth];
  if (!el) {
    out.count = 0;
    return out;
  }
  out.visible = clapper.visible(el);
  out.shows = clapper.showsSomething(el);
  out.enabled = clapper.enabled(el);
  out.field = clapper.isField(clapper.retarget(el, 'follow-label'));
  out.editable = out.field && clapper.editable(el);
  out.cursor = getComputedStyle(el).cursor;
  if (scroll && out.visible) {
    // Whether the page moved under the pointer: the box it left was
    // read before.
    const before = el.getBoundingClientRect();
    clapper.scrollTo(el, attempt || 0);
    const after = el.getBoundingClientRect();
    out.scrolled = before.x !== after.x || before.y !== after.y;
  }
  const steady = clapper.retarget(el, 'no-follow-label');
  const box = () => {
    const r = steady.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height};
  };
  await new Promise((res) => requestAnimationFrame(res));
  const a = box();
  await new Promise((res) => requestAnimationFrame(res));
  const b = box();
  out.stable = a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
  const r = el.getBoundingClientRect();
  out.box = {x: r.x, y: r.y, w: r.width, h: r.height};
  const cs = getComputedStyle(el);
  out.border = {x: parseFloat(cs.borderLeftWidth) || 0, y: parseFloat(cs.borderTopWidth) || 0};
  out.viewport = {w: innerWidth, h: innerHeight};
  out.token = clapper.remember(el);
  return out;
};

// scrollTo brings el into view the way attempt asks, at once (a smooth
// scroll would still be moving when the pointer aims).
clapper.scrollTo = function (el, attempt) {
  const ways = [null, 'end', 'center', 'start'];
  const way = ways[attempt % ways.length];
  if (way === null) {
    const r = el.getBoundingClientRect();
    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    if (!inside) el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    return;
  }
  el.scrollIntoView({block: way, inline: way, behavior: 'instant'});
};

// recalled returns the element remembered as token, if it is still in the
// document.
clapper.recalled = function (token) {
  const o = clapper.remembered.get(token);
  const el = o && o.ref.deref();
  return el && el.isConnected ? el : null;
};

// elementOf returns the element remembered as token (for commands that
// take a node: its boxes, files), or null.
clapper.elementOf = function (token) {
  return clapper.recalled(token);
};

// hitTarget says whether the pointer at (x, y) of this document's
// viewport reaches the element remembered as token: {ok}, or {ok: false,
// hit} naming what intercepts it. As in Playwright, the element is taken
// with the button or link it is part of, and the hit is accepted on it or
// anything inside it (looking through shadow roots and slots); clapper
// also accepts a hit on a label of the control the element is, since the
// click reaches the control through it (a styled checkbox whose input is
// see-through under its label).
clapper.hitTarget = function (token, x, y) {
  const el = clapper.recalled(token);
  if (!el) return {ok: false, gone: true, hit: 'nothing (the element was removed)'};
  const target = clapper.retarget(el, 'button-link');
  const roots = [];
  for (let p = target; p;) {
    const root = p.getRootNode();
    roots.push(root);
    if (root.nodeType === 9 || !root.host) break;
    p = root.host;
  }
  let hit = null;
  for (let i = roots.length - 1; i >= 0; i--) {
    const root = roots[i];
    const elements = root.elementsFromPoint(x, y);
    const single = root.elementFromPoint(x, y);
    if (single && elements[0] && clapper.parentOf(single) === elements[0] && getComputedStyle(single).display === 'contents') elements.unshift(single);
    if (!elements[0]) break;
    hit = elements[0];
    if (i && hit !== roots[i - 1].host) break;
  }
  if (hit && clapper.contains(target, hit)) return {ok: true};
  const control = clapper.retarget(el, 'follow-label');
  if (hit && control.labels && Array.from(control.labels).some((l) => clapper.contains(l, hit))) return {ok: true};
  // Name what intercepts: the element hit, and the top of its subtree
  // where it is not one of the target's ancestors.
  const chain = [];
  for (let n = hit; n && n !== target; n = clapper.parentOf(n)) chain.push(n);
  let desc = clapper.describe(chain[0] || document.documentElement);
  for (let a = target; a; a = clapper.parentOf(a)) {
    const i = chain.indexOf(a);
    if (i !== -1) {
      if (i > 1) desc += ' from ' + clapper.describe(chain[i - 1]) + ' subtree';
      break;
    }
  }
  return {ok: false, hit: desc};
};

// control returns the element a form step acts on: the nth element the
// spec matches (the first when nth is null), or the control of a label it
// is (Playwright's follow-label), as a remote object.
clapper.control = function (spec, nth) {
  return clapper.retarget(clapper.pick(spec, nth), 'follow-label');
};

// frameOf finds the iframe a target's frame: part names in this document:
// {count, isFrame, what, token, origin}, origin being where the top-left
// corner of the frame's viewport (inside its border and padding) is in
// this document's viewport.
clapper.frameOf = function (spec, nth) {
  const els = clapper.find(spec);
  const out = {count: els.length};
  const el = els[nth == null ? 0 : nth];
  if (!el || (nth == null && els.length > 1)) return out;
  out.isFrame = el.nodeName === 'IFRAME' || el.nodeName === 'FRAME';
  out.what = clapper.describe(el);
  out.token = clapper.remember(el);
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  out.origin = {
    x: r.left + (parseFloat(cs.borderLeftWidth) || 0) + (parseFloat(cs.paddingLeft) || 0),
    y: r.top + (parseFloat(cs.borderTopWidth) || 0) + (parseFloat(cs.paddingTop) || 0),
  };
  return out;
};

// viewport is the size of this document's viewport in CSS pixels.
clapper.viewport = function () {
  return {w: innerWidth, h: innerHeight};
};

// watchDrag watches this document for the next drag the page starts: a
// dragstart, and whether the page let it go on (drag.go).
clapper.watchDrag = function () {
  if (clapper.dragListener) removeEventListener('dragstart', clapper.dragListener, true);
  const d = {seen: false, prevented: false, settled: null};
  clapper.drag = d;
  clapper.dragListener = (ev) => {
    d.seen = true;
    // The page's own handlers run after this one: read their verdict
    // once they have.
    d.settled = new Promise((res) => setTimeout(() => {
      d.prevented = ev.defaultPrevented;
      res();
    }, 0));
  };
  addEventListener('dragstart', clapper.dragListener, true);
  return true;
};

// dragStarted says whether the page started a drag it did not cancel.
clapper.dragStarted = async function () {
  const d = clapper.drag;
  if (!d || !d.seen) return false;
  await d.settled;
  return !d.prevented;
};
