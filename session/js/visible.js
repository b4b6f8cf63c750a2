// visible is clapper's one definition of a visible element, shared by
// wait (state visible and hidden), expect (visible and hidden) and the
// actionability checks before input. An element is visible when it is
// attached, its box has a non-zero width and height, and it is rendered and
// not see-through: no display: none on it or an ancestor, not inside
// content-visibility: hidden, not visibility: hidden or collapse, and no
// opacity: 0 on it or on an ancestor. Being covered by another element is
// not a matter of visibility: the actionability check says so apart.
clapper.visible = function (el) {
  if (!el || !el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  return el.checkVisibility({opacityProperty: true, visibilityProperty: true});
};
