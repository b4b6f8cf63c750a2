// scroller is the element a scroll moves: the target in, or the page.
clapper.scroller = function (inSpec, inNth) {
  return inSpec ? clapper.pick(inSpec, inNth) : document.scrollingElement;
};

// scrollState reports the scroll offsets and their limits, and, when to is
// a target, how far down to scroll to bring it to the middle of the
// viewport. null when the scrolling element is gone.
clapper.scrollState = function (inSpec, inNth, to) {
  const s = clapper.scroller(inSpec, inNth);
  if (!s) return null;
  const o = {x: s.scrollLeft, y: s.scrollTop, maxX: s.scrollWidth - s.clientWidth, maxY: s.scrollHeight - s.clientHeight, dx: 0, dy: 0};
  const t = to ? clapper.pick(to, null) : null;
  if (t) {
    const r = t.getBoundingClientRect();
    o.dy = r.top + r.height / 2 - innerHeight / 2;
  }
  return o;
};

// scrollSettled resolves once the scroll offsets have stayed the same for
// three animation frames (smooth scrolling has finished).
clapper.scrollSettled = function (inSpec, inNth) {
  const s = clapper.scroller(inSpec, inNth);
  if (!s) return Promise.resolve(true);
  return new Promise((res) => {
    let last = -1, same = 0;
    const f = () => {
      const y = s.scrollTop + s.scrollLeft;
      same = y === last ? same + 1 : 0;
      last = y;
      if (same >= 3) res(true); else requestAnimationFrame(f);
    };
    f();
  });
};
