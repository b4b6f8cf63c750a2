// observe checks one expectation and says what it saw: {ok, seen}. e is
// {what, spec, nth, want, count}: what is visible, hidden, text (on the
// page, or in spec's element), url, title or count. (A field's value is
// read in the page's own world: js/main/value.js.)
clapper.observe = function (e) {
  const norm = clapper.norm;
  switch (e.what) {
    case 'visible':
    case 'hidden': {
      const ok = clapper.state(e.spec, e.nth, e.what);
      return {ok, seen: ok ? '' : (e.what === 'visible' ? 'not visible' : 'visible')};
    }
    case 'text': {
      let t;
      if (e.spec) {
        const el = clapper.pick(e.spec, e.nth);
        t = el ? el.innerText : '';
      } else {
        t = document.body ? document.body.innerText : '';
      }
      t = norm(t);
      return {ok: t.includes(norm(e.want)), seen: JSON.stringify(t.slice(0, 200))};
    }
    case 'url':
      return {ok: clapper.urlIs(e.want), seen: location.href};
    case 'title':
      return {ok: document.title === e.want, seen: JSON.stringify(document.title)};
    case 'count': {
      const n = clapper.find(e.spec).length;
      return {ok: n === e.count, seen: n + ' matching'};
    }
  }
  return {ok: false, seen: 'unknown expectation ' + e.what};
};
