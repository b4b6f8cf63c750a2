// state reports whether a target is in a state: visible, hidden (not
// visible, or absent), attached (in the document) or detached (absent).
// Visibility is clapper.visible, the same definition the actionability
// checks use.
clapper.state = function (spec, nth, state) {
  const el = clapper.pick(spec, nth);
  switch (state) {
    case 'attached': return !!el;
    case 'detached': return !el;
    case 'hidden': return !clapper.visible(el);
    default: return clapper.visible(el);
  }
};

// hasText reports whether the page's visible text contains s (white space
// folded on both sides).
clapper.hasText = function (s) {
  return clapper.norm(document.body ? document.body.innerText : '').includes(clapper.norm(s));
};

// doc is the current document's address and load state.
clapper.doc = function () {
  return {url: location.href, ready: document.readyState};
};
