// Observations (session/revalidate.go): an element a step resolved is
// kept by reference, with a fingerprint of what it was, so that after a
// hold of its tab it can be checked to be the same element, unchanged,
// without searching for it again.

clapper.remembered = new Map(); // token -> {ref: WeakRef, print}
clapper.lastToken = 0;

// fingerprint is what an element is, for people and for revalidate.
clapper.fingerprint = function (el) {
  const r = el.getBoundingClientRect();
  return {
    what: clapper.identify(el),
    text: clapper.norm(el.textContent).slice(0, 200),
    box: [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)].join(','),
  };
};

// remember keeps el and returns its token. Only the last 64 are kept.
clapper.remember = function (el) {
  const token = ++clapper.lastToken;
  clapper.remembered.set(token, {ref: new WeakRef(el), print: clapper.fingerprint(el)});
  if (clapper.remembered.size > 64) clapper.remembered.delete(clapper.remembered.keys().next().value);
  return token;
};

// revalidate says whether the element remembered as token is still in the
// document and unchanged: {ok: true}, or {ok: false, why}. It never looks
// for another element.
clapper.revalidate = function (token) {
  const o = clapper.remembered.get(token);
  if (!o) return {ok: false, why: 'it was observed in a document that is gone'};
  const el = o.ref.deref();
  if (!el || !el.isConnected) return {ok: false, why: 'it was removed or replaced'};
  const now = clapper.fingerprint(el);
  for (const k of ['what', 'text', 'box']) {
    if (now[k] !== o.print[k]) return {ok: false, why: 'it changed: its ' + k + ' was ' + JSON.stringify(o.print[k]) + ', is ' + JSON.stringify(now[k])};
  }
  return {ok: true};
};
