// Holds (session/hold.go).

// nextFrame resolves at the next animation frame. A resume waits for it
// with the page's animations still at rate 0, so the page's animation
// clock has moved past the hold before they run again.
clapper.nextFrame = function () {
  return new Promise((res) => requestAnimationFrame(() => res(true)));
};

// nudge runs a trivial timer in clapper's world every 10 ms for about a
// second, so a pause the debugger was asked for is reached at once even on
// a page whose own scripts are idle.
clapper.nudge = function () {
  let n = 0;
  const id = setInterval(() => {
    if (++n >= 100) clearInterval(id);
  }, 10);
  return true;
};
