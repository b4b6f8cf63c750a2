// Holds (session/hold.go).

// nextFrame resolves at the next animation frame. A resume waits for it
// with the page's animations still at rate 0, so the page's animation
// clock has moved past the hold before they run again.
clapper.nextFrame = function () {
  return new Promise((res) => requestAnimationFrame(() => res(true)));
};
