// turn resolves once the page has had its turn after an input: the tasks
// it had already queued (0 ms timers, and the microtasks each leaves) have
// run, then an animation frame. The session waits for it between steps,
// and between keys in studio capture (session/pace.go).
clapper.turn = function () {
  return clapper.tasks().then(() => new Promise((res) => requestAnimationFrame(() => res(true))));
};

// tasks resolves once the tasks the page had already queued have run: the
// turn between keys filmed live, which does not wait for a frame.
clapper.tasks = function () {
  return new Promise((res) => setTimeout(() => res(true), 0));
};
