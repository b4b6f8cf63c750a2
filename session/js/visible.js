// visible is clapper's one definition of a visible element, Playwright's:
// shared by wait (state visible and hidden), expect (visible, hidden,
// and targets with visible: true) and the actionability checks before
// input. An element is visible when it is rendered (no display: none on
// it or an ancestor, not inside a closed <details> or content-visibility:
// hidden), its visibility is visible, and its box has a non-zero width and
// height. opacity: 0 does not hide an element (a see-through native input
// under a styled label is still there to click), nor does being off
// screen or covered: the actionability checks say those apart. An element
// with display: contents has no box: it is visible when a child is.
clapper.visible = function (el) {
  if (!el || !el.isConnected) return false;
  const style = getComputedStyle(el);
  if (!style) return true;
  if (style.display === 'contents') {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && clapper.visible(c)) return true;
      if (c.nodeType === 3 && clapper.textNodeShows(c)) return true;
    }
    return false;
  }
  if (!el.checkVisibility()) return false;
  if (style.visibility !== 'visible') return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};

// textNodeShows reports whether a text node has a box of its own.
clapper.textNodeShows = function (node) {
  const range = node.ownerDocument.createRange();
  range.selectNode(node);
  const r = range.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};

// showsSomething is stricter than visible, for where a video needs more
// than Playwright's rule: the cursor aimed at an element that is
// see-through (opacity 0 on it or an ancestor) is drawn over whatever
// shows there, so the session aims at what covers it instead (its label).
clapper.showsSomething = function (el) {
  return clapper.visible(el) && el.checkVisibility({opacityProperty: true});
};
