// clapper's page helpers. They live in an isolated world of each document,
// where the page's own scripts can neither see nor change them, and are
// installed once per document. Each file of js/ adds the functions of one
// concern to the clapper object; the session calls them by name with JSON
// arguments (session/pagejs.go). This file is installed first.
var clapper = {};

// norm folds white space the way people read text.
clapper.norm = function (s) {
  return String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
};

// contains reports whether node is el or inside it, looking through shadow
// roots (a component's insides belong to the component).
clapper.contains = function (el, node) {
  for (let n = node; n; n = n.parentNode || n.host) {
    if (n === el) return true;
  }
  return false;
};

// describe names an element for messages: tag, id and classes.
clapper.describe = function (el) {
  if (!el) return 'nothing';
  let s = el.tagName.toLowerCase();
  if (el.id) s += '#' + el.id;
  if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).join('.');
  return s;
};
