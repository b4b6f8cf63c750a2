// clapper's page helpers. They live in an isolated world of each document,
// where the page's own scripts can neither see nor change them, and are
// installed once per document. Each file of js/ adds the functions of one
// concern to the clapper object; the session calls them by name with JSON
// arguments (session/pagejs.go). This file is installed first.
var clapper = {};

// norm folds white space the way Playwright's matchers do: zero-width
// spaces and soft hyphens dropped, runs of white space (no-break spaces
// too) made one space, the ends trimmed.
clapper.norm = function (s) {
  return String(s == null ? '' : s).replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
};

// parentOf is an element's parent in the composed tree: its parent
// element, or the host of the shadow root it is in.
clapper.parentOf = function (el) {
  if (el.parentElement) return el.parentElement;
  const p = el.parentNode;
  return p && p.nodeType === 11 && p.host ? p.host : null;
};

// contains reports whether node is el or inside it, looking through shadow
// roots and slots (a component's insides, and what is slotted into it,
// belong to it).
clapper.contains = function (el, node) {
  for (let n = node; n; n = n.assignedSlot || n.parentNode || n.host) {
    if (n === el) return true;
  }
  return false;
};

// describe names an element for messages the way Playwright previews it:
// its tag, its attributes (shortest first, style left out) and a short
// text, like <div id="blocker" class="overlay">Sign up</div>.
clapper.describe = function (el) {
  if (!el) return 'nothing';
  if (el.nodeType !== 1) return clapper.describe(el.parentElement);
  const tag = el.tagName.toLowerCase();
  const attrs = Array.from(el.attributes).filter((a) => a.name !== 'style')
    .map((a) => (a.value === '' && ['checked', 'selected', 'disabled', 'readonly', 'multiple', 'hidden'].includes(a.name)) ? a.name : a.name + '="' + a.value.slice(0, 100) + '"')
    .sort((a, b) => a.length - b.length);
  const open = '<' + tag + (attrs.length ? ' ' + attrs.join(' ') : '');
  if (['input', 'img', 'br', 'hr', 'area', 'embed', 'source', 'track', 'wbr', 'col', 'meta', 'link'].includes(tag)) return open + '/>';
  let inner = '';
  const kids = Array.from(el.childNodes);
  if (kids.length && kids.length <= 5 && kids.every((n) => n.nodeType === 3)) {
    const t = clapper.norm(el.textContent);
    inner = t.length > 50 ? t.slice(0, 49) + '…' : t;
  } else if (kids.length) {
    inner = '…';
  }
  return (open + '>' + inner + '</' + tag + '>').replace(/\n/g, '↵').replace(/\t/g, '⇆');
};

// identify names an element by its tag, id and classes: what it is,
// whatever its text (revalidation compares the text apart).
clapper.identify = function (el) {
  let s = el.tagName.toLowerCase();
  if (el.id) s += '#' + el.id;
  if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).join('.');
  return s;
};

// cursorAt is the CSS cursor of the element at (x, y) of the viewport,
// "auto" where there is none: what the pointer shows there.
clapper.cursorAt = function (x, y) {
  const el = document.elementFromPoint(x, y);
  return el ? getComputedStyle(el).cursor : 'auto';
};
