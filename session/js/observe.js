// Observations (session/revalidate.go): an element a step resolved is
// kept by reference, with a fingerprint of what it was, so that after a
// hold of its tab it can be checked to be the same element, unchanged,
// without searching for it again.

clapper.observations = new Map(); // token -> {ref: WeakRef, print}
clapper.lastToken = 0;

// fingerprint is what an element is, for people and for revalidate.
clapper.fingerprint = function (el) {
  const r = el.getBoundingClientRect();
  return {
    what: clapper.describe(el),
    text: clapper.norm(el.textContent).slice(0, 200),
    box: [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)].join(','),
  };
};

// observe keeps el and returns its token. Only the last 64 are kept.
clapper.observe = function (el) {
  const token = ++clapper.lastToken;
  clapper.observations.set(token, {ref: new WeakRef(el), print: clapper.fingerprint(el)});
  if (clapper.observations.size > 64) clapper.observations.delete(clapper.observations.keys().next().value);
  return token;
};

// revalidate says whether the element observed as token is still in the
// document and unchanged: {ok: true}, or {ok: false, why}. It never looks
// for another element.
clapper.revalidate = function (token) {
  const o = clapper.observations.get(token);
  if (!o) return {ok: false, why: 'it was observed in a document that is gone'};
  const el = o.ref.deref();
  if (!el || !el.isConnected) return {ok: false, why: 'it was removed or replaced'};
  const now = clapper.fingerprint(el);
  for (const k of ['what', 'text', 'box']) {
    if (now[k] !== o.print[k]) return {ok: false, why: 'it changed: its ' + k + ' was ' + JSON.stringify(o.print[k]) + ', is ' + JSON.stringify(now[k])};
  }
  return {ok: true};
};
