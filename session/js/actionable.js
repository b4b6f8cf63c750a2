// hitAt returns the element that receives the pointer at (x, y), looking
// into open shadow roots for the innermost one.
clapper.hitAt = function (x, y) {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
};

// enabled reports whether an element takes input: neither it nor the
// control it is part of (a text target inside a <button>) matches
// :disabled (which knows a disabled fieldset's rules, and custom form
// elements), and no ancestor says aria-disabled="true".
clapper.enabled = function (el) {
  const control = el.closest('button,input,select,textarea,option,optgroup') || el;
  return !control.matches(':disabled') && !el.matches(':disabled') && !el.closest('[aria-disabled="true"]');
};

// probe reports on a target for the actionability checks before input:
// how many elements match, and for the chosen one (nth, or the only one)
// its box after two animation frames, whether it was stable across them,
// visible (clapper.visible), enabled, and whether the pointer at its centre
// reaches it (not covered by another element), with what is there and its
// CSS cursor. When scroll is true an element outside the viewport is
// scrolled into view first. The session decides which checks a step needs.
clapper.probe = async function (spec, nth, scroll) {
  const els = clapper.find(spec);
  const out = {count: els.length};
  if (els.length === 0 || (nth == null && els.length > 1)) return out;
  const el = els[nth == null ? 0 : nth];
  if (!el) {
    out.count = 0;
    return out;
  }
  if (scroll && clapper.visible(el)) {
    // Scrolled when its centre is outside the viewport: the pointer aims there.
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) el.scrollIntoView({block: 'center', inline: 'center'});
  }
  const box = () => {
    const r = el.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height};
  };
  const a = box();
  await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
  const b = box();
  out.box = b;
  out.stable = a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
  out.visible = clapper.visible(el);
  out.enabled = clapper.enabled(el);
  const cx = b.x + b.w / 2, cy = b.y + b.h / 2;
  const hit = clapper.hitAt(cx, cy);
  out.receives = !!hit && (clapper.contains(el, hit) || (!!el.labels && Array.from(el.labels).some((l) => clapper.contains(l, hit))));
  out.hit = clapper.describe(hit);
  out.cursor = getComputedStyle(el).cursor;
  out.inViewport = cx >= 0 && cy >= 0 && cx <= innerWidth && cy <= innerHeight;
  out.token = clapper.remember(el);
  return out;
};

// element returns the nth element the spec matches (the first when nth is
// null) as a remote object, for commands that take a node (file uploads).
clapper.element = function (spec, nth) {
  return clapper.pick(spec, nth);
};
