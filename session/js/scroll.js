// scroller is the element a scroll moves: the target in, or the page.
clapper.scroller = function (inSpec, inNth) {
  return inSpec ? clapper.pick(inSpec, inNth) : document.scrollingElement;
};

// scrollState reports the scroll offsets and their limits, and, when to
// is a target (picked by toNth), how far to scroll to bring it to the
// middle of the scrolling element's view (the viewport for the page).
// null when the scrolling element is gone.
clapper.scrollState = function (inSpec, inNth, to, toNth) {
  const s = clapper.scroller(inSpec, inNth);
  if (!s) return null;
  const o = {x: s.scrollLeft, y: s.scrollTop, maxX: s.scrollWidth - s.clientWidth, maxY: s.scrollHeight - s.clientHeight, dx: 0, dy: 0};
  const t = to ? clapper.pick(to, toNth) : null;
  if (t) {
    const r = t.getBoundingClientRect();
    let cx = innerWidth / 2, cy = innerHeight / 2;
    if (s !== document.scrollingElement) {
      const v = s.getBoundingClientRect();
      cx = v.left + s.clientLeft + s.clientWidth / 2;
      cy = v.top + s.clientTop + s.clientHeight / 2;
    }
    o.dx = r.left + r.width / 2 - cx;
    o.dy = r.top + r.height / 2 - cy;
  }
  return o;
};

// scrollSettled resolves once the scroll offsets have stayed the same for
// three animation frames (smooth scrolling has finished).
clapper.scrollSettled = function (inSpec, inNth) {
  const s = clapper.scroller(inSpec, inNth);
  if (!s) return Promise.resolve(true);
  return new Promise((res) => {
    let lastX = NaN, lastY = NaN, same = 0;
    const f = () => {
      const x = s.scrollLeft, y = s.scrollTop;
      same = x === lastX && y === lastY ? same + 1 : 0;
      lastX = x;
      lastY = y;
      if (same >= 3) res(true); else requestAnimationFrame(f);
    };
    f();
  });
};
