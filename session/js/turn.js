// turn resolves once the page has had its turn after an input: the tasks
// it had already queued (0 ms timers, and the microtasks each leaves) have
// run, then an animation frame. The session waits for it between keys and
// between steps (session/pace.go).
clapper.turn = function () {
  return new Promise((res) => setTimeout(res, 0)).then(() => new Promise((res) => requestAnimationFrame(() => res(true))));
};
