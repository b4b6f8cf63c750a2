// nearMisses says what the page has that is close to a target matching
// nothing, for the step's error: a name, text, label or attribute a few
// letters away or in another case, or the name on an element of another
// role ({role: switch, name: Dark mode} where the page has a checkbox of
// that name). '' when nothing is close. It only reads the page.
clapper.nearMisses = function (spec) {
  const quote = (s) => JSON.stringify(s);
  const list = (xs) => xs.map(quote).join(', ');
  if (spec.role) {
    if (!spec.name) return '';
    const same = clapper.byRole(spec.role, null).map((e) => clapper.accessibleName(e));
    const near = clapper.closest(spec.name, same, spec.exact);
    if (near.length) return `the page has a ${spec.role} named ${list(near)}`;
    // Another control or heading of that name: only those (a row or a
    // group holding it would name it too), at most 300 looked at.
    const match = clapper.textMatcher(spec.name, spec.exact);
    const word = clapper.norm(spec.name).toLowerCase().split(' ')[0];
    const labelable = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'METER', 'OUTPUT', 'PROGRESS']);
    let looked = 0;
    for (const e of clapper.all(document)) {
      const role = clapper.roleOf(e);
      if (!clapper.nearRoles.has(role) || role === spec.role) continue;
      const labels = labelable.has(e.nodeName) && e.labels ? Array.from(e.labels).map((l) => l.textContent).join(' ') : '';
      const said = [e.getAttribute('aria-label'), e.getAttribute('aria-labelledby') ? word : '', e.textContent, labels, e.getAttribute('title'), e.getAttribute('alt')].join(' ').toLowerCase();
      if (!said.includes(word)) continue;
      if (looked++ >= 300) break;
      if (!clapper.hiddenForAria(e) && match(clapper.accessibleName(e))) return `a ${role} has that name, not a ${spec.role}`;
    }
    return '';
  }
  let what = '', cands = [];
  if (spec.text) {
    what = 'the text';
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(), i = 0; n && i < 3000; n = walker.nextNode(), i++) {
      const p = n.parentElement;
      if (p && !clapper.skipForText(p) && n.nodeValue.trim()) cands.push(clapper.elementText(p));
    }
  } else if (spec.label) {
    what = 'a label';
    const cache = new Map();
    for (const e of clapper.all(document)) cands.push(...clapper.labelsOf(e, cache));
  } else {
    const attr = ['placeholder', 'alt', 'title'].find((a) => spec[a]);
    if (!attr) return '';
    what = `the ${attr}`;
    for (const e of clapper.all(document)) if (e.hasAttribute(attr)) cands.push(e.getAttribute(attr));
    const near = clapper.closest(spec[attr], cands, spec.exact);
    return near.length ? `the page has ${what} ${list(near)}` : '';
  }
  const near = clapper.closest(spec.text || spec.label, cands, spec.exact);
  return near.length ? `the page has ${what} ${list(near)}` : '';
};

// nearLook says whether look number n (0 the first) looks for what is
// near: the 3rd, 13th, 63rd and 313th looks, about 0.1, 0.6, 3.1 and
// 15.6 s into a wait (targets.go's nearLook is the same). Pure.
clapper.nearLook = function (n) {
  for (let k = 2, step = 10; k <= n; k += step, step *= 5) if (k === n) return true;
  return false;
};

// nearRoles are the roles a misnamed role target is looked for among.
clapper.nearRoles = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'combobox', 'listbox', 'option',
  'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'slider', 'spinbutton', 'treeitem', 'heading', 'img', 'dialog']);

// closest returns up to three of cands (white space folded) that are near
// want: equal but for case, where exact asks for the case; or a few
// letters away, at most a quarter of want's length (two at least), the
// nearest first. Pure.
clapper.closest = function (want, cands, exact) {
  const w = clapper.norm(want);
  const lw = w.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 4));
  const found = new Map();
  for (const c of cands) {
    const n = clapper.norm(c);
    if (!n || n.length > 120 || found.has(n) || n === w) continue;
    const ln = n.toLowerCase();
    if (ln === lw) {
      if (exact) found.set(n, 0);
      continue;
    }
    const d = clapper.editDistance(lw, ln, limit);
    if (d <= limit) found.set(n, d);
  }
  return [...found.entries()].sort((a, b) => a[1] - b[1]).slice(0, 3).map((e) => e[0]);
};

// editDistance is the Levenshtein distance between a and b, or limit+1
// once it must exceed limit. Pure.
clapper.editDistance = function (a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({length: b.length + 1}, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let low = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      low = Math.min(low, cur[j]);
    }
    if (low > limit) return limit + 1;
    prev = cur;
  }
  return prev[b.length];
};
