// all returns every element under root in document order, descending into
// open shadow roots (a component's insides are on the page a person sees).
// An iframe holds another document: its elements are not searched.
clapper.all = function (root) {
  const out = [];
  const walk = (r) => {
    for (const el of r.querySelectorAll('*')) {
      out.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(root);
  return out;
};

// innermost keeps the elements that hold no other element of the list.
clapper.innermost = function (els) {
  return els.filter((e) => !els.some((o) => o !== e && clapper.contains(e, o)));
};

// implicitRoles are the elements that have an ARIA role without saying so.
clapper.implicitRoles = {
  button: 'button,input[type=button],input[type=submit],input[type=reset]',
  link: 'a[href]',
  textbox: 'input:not([type]),input[type=text],input[type=email],input[type=password],input[type=search],input[type=tel],input[type=url],textarea',
  checkbox: 'input[type=checkbox]',
  radio: 'input[type=radio]',
  combobox: 'select',
  heading: 'h1,h2,h3,h4,h5,h6',
  listitem: 'li',
  list: 'ul,ol',
  img: 'img',
  option: 'option',
};

// accessibleName is a simple accessible name: aria-label, the first label,
// the text, the value, alt or title.
clapper.accessibleName = function (e) {
  return clapper.norm(e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].textContent) ||
    e.innerText || e.value || e.getAttribute('alt') || e.getAttribute('title'));
};

// find resolves a target spec ({css}, {xpath}, {text}, {role, name},
// {label}, {placeholder} or {testid}) to the elements it matches, in
// document order. It runs afresh on every call: nothing seen earlier is
// trusted later. CSS, text, role, label, placeholder and testid look into
// open shadow roots; XPath does not.
clapper.find = function (spec) {
  const norm = clapper.norm;
  const skip = ['SCRIPT', 'STYLE', 'HEAD', 'TEMPLATE', 'NOSCRIPT'];
  if (spec.css) return clapper.all(document).filter((e) => e.matches(spec.css));
  if (spec.xpath) {
    const r = document.evaluate(spec.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < r.snapshotLength; i++) {
      const n = r.snapshotItem(i);
      if (n.nodeType === 1) out.push(n);
    }
    return out;
  }
  if (spec.testid) return clapper.all(document).filter((e) => e.getAttribute('data-testid') === spec.testid);
  if (spec.placeholder) {
    const want = norm(spec.placeholder);
    return clapper.all(document).filter((e) => e.hasAttribute('placeholder') && norm(e.getAttribute('placeholder')) === want);
  }
  if (spec.label) {
    const want = norm(spec.label);
    const out = [];
    for (const e of clapper.all(document)) {
      if (e.tagName === 'LABEL' && norm(e.textContent) === want && e.control && !out.includes(e.control)) out.push(e.control);
    }
    for (const e of clapper.all(document)) {
      if (e.hasAttribute('aria-label') && norm(e.getAttribute('aria-label')) === want && !out.includes(e)) out.push(e);
    }
    return out;
  }
  if (spec.text) {
    const want = norm(spec.text);
    const cands = clapper.all(document.body || document).filter((e) => !skip.includes(e.tagName));
    const exact = clapper.innermost(cands.filter((e) => norm(e.innerText || e.value) === want));
    if (exact.length) return exact;
    return clapper.innermost(cands.filter((e) => !['HTML', 'BODY'].includes(e.tagName) && norm(e.innerText).includes(want)));
  }
  if (spec.role) {
    const implicit = clapper.implicitRoles[spec.role];
    let els = clapper.all(document).filter((e) =>
      e.getAttribute('role') === spec.role || (implicit && !e.hasAttribute('role') && e.matches(implicit)));
    if (spec.name) {
      const want = norm(spec.name);
      els = els.filter((e) => clapper.accessibleName(e) === want);
    }
    return els;
  }
  return [];
};

// pick returns the nth element the spec matches (the first when nth is
// null), or null.
clapper.pick = function (spec, nth) {
  return clapper.find(spec)[nth == null ? 0 : nth] || null;
};
