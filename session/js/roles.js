// ARIA roles and accessible names, as Playwright's getByRole reads them
// (a condensed form of the HTML-AAM role mappings and the accessible
// name computation).

// roleOf is an element's role: the first valid token of role=, else the
// role its tag implies, or '' for none.
clapper.roleOf = function (el) {
  const explicit = (el.getAttribute('role') || '').split(/\s+/).filter(Boolean);
  for (const r of explicit) {
    if ((r === 'none' || r === 'presentation') && (el.tabIndex >= 0 && el.hasAttribute('tabindex') || clapper.hasGlobalAria(el))) continue;
    if (clapper.knownRoles.has(r)) return r;
  }
  return clapper.implicitRole(el);
};

clapper.knownRoles = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code ' +
  'columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form ' +
  'generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee math meter menu ' +
  'menubar menuitem menuitemcheckbox menuitemradio navigation none note option paragraph presentation progressbar radio ' +
  'radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript ' +
  'superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));

clapper.hasGlobalAria = function (el) {
  return Array.from(el.attributes).some((a) => ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby',
    'aria-details', 'aria-disabled', 'aria-dropeffect', 'aria-errormessage', 'aria-flowto', 'aria-grabbed', 'aria-haspopup',
    'aria-hidden', 'aria-invalid', 'aria-keyshortcuts', 'aria-label', 'aria-labelledby', 'aria-live', 'aria-owns',
    'aria-relevant', 'aria-roledescription'].includes(a.name));
};

// implicitRole is the role HTML gives an element without role=.
clapper.implicitRole = function (el) {
  const tag = el.nodeName;
  const inside = (sel) => !!(el.parentElement && el.parentElement.closest(sel));
  switch (tag) {
    case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : '';
    case 'ARTICLE': return 'article';
    case 'ASIDE': return 'complementary';
    case 'BLOCKQUOTE': return 'blockquote';
    case 'BUTTON': return 'button';
    case 'CAPTION': return 'caption';
    case 'CODE': return 'code';
    case 'DATALIST': return 'listbox';
    case 'DD': return 'definition';
    case 'DEL': return 'deletion';
    case 'DETAILS': return 'group';
    case 'DFN': case 'DT': return 'term';
    case 'DIALOG': return 'dialog';
    case 'EM': return 'emphasis';
    case 'FIELDSET': return 'group';
    case 'FIGURE': return 'figure';
    case 'FOOTER': return inside('article,aside,main,nav,section') ? '' : 'contentinfo';
    case 'FORM': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'form' : '';
    case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
    case 'HEADER': return inside('article,aside,main,nav,section') ? '' : 'banner';
    case 'HR': return 'separator';
    case 'HTML': return 'document';
    case 'IMG': return el.getAttribute('alt') === '' && !el.getAttribute('title') && !clapper.hasGlobalAria(el) && !el.hasAttribute('tabindex') ? 'presentation' : 'img';
    case 'INPUT': {
      const t = (el.type || 'text').toLowerCase();
      if (['button', 'submit', 'reset', 'image', 'file'].includes(t)) return 'button';
      if (t === 'checkbox') return 'checkbox';
      if (t === 'radio') return 'radio';
      if (t === 'number') return 'spinbutton';
      if (t === 'range') return 'slider';
      if (t === 'hidden') return '';
      const list = el.list;
      if (list && list.nodeName === 'DATALIST') return 'combobox';
      return t === 'search' ? 'searchbox' : 'textbox';
    }
    case 'INS': return 'insertion';
    case 'LI': return 'listitem';
    case 'MAIN': return 'main';
    case 'MARK': return 'mark';
    case 'MATH': case 'math': return 'math';
    case 'MENU': case 'OL': case 'UL': return 'list';
    case 'METER': return 'meter';
    case 'NAV': return 'navigation';
    case 'OPTGROUP': return 'group';
    case 'OPTION': return 'option';
    case 'OUTPUT': return 'status';
    case 'P': return 'paragraph';
    case 'PROGRESS': return 'progressbar';
    case 'SEARCH': return 'search';
    case 'SECTION': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
    case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'STRONG': return 'strong';
    case 'SUB': return 'subscript';
    case 'SUP': return 'superscript';
    case 'SVG': case 'svg': return 'img';
    case 'TABLE': return 'table';
    case 'TBODY': case 'THEAD': case 'TFOOT': return 'rowgroup';
    case 'TD': return inside('table[role=grid],table[role=treegrid]') ? 'gridcell' : 'cell';
    case 'TEXTAREA': return 'textbox';
    case 'TH': return clapper.headerRole(el);
    case 'TIME': return 'time';
    case 'TR': return 'row';
  }
  return '';
};

// headerRole is a <th>'s role as Chromium (and Playwright) give it: its
// scope when it has one; none when it is a table's only cell; a row
// header beside a data cell that holds something (<tr><th>Name</th>
// <td>Ada</td></tr>), else a column header.
clapper.headerRole = function (th) {
  const scope = (th.getAttribute('scope') || '').toLowerCase();
  if (scope === 'col' || scope === 'colgroup') return 'columnheader';
  if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
  const next = th.nextElementSibling, prev = th.previousElementSibling;
  const row = th.parentElement && th.parentElement.nodeName === 'TR' ? th.parentElement : null;
  if (!next && !prev) {
    const table = row && row.closest('table');
    return table && table.rows.length <= 1 ? '' : 'columnheader';
  }
  const isTH = (e) => !!e && e.nodeName === 'TH';
  const filledTD = (e) => !!e && e.nodeName === 'TD' && !!((e.textContent || '').trim() || e.children.length);
  if (isTH(next) && isTH(prev)) return 'columnheader';
  if (filledTD(next) || filledTD(prev)) return 'rowheader';
  return 'columnheader';
};

// hiddenForAria: what assistive technology does not see (getByRole leaves
// it out): display: none or aria-hidden="true" on it or an ancestor,
// visibility other than visible, and script, style and template. Unlike
// visible, a zero-size element is not hidden.
clapper.hiddenForAria = function (el) {
  if (['STYLE', 'SCRIPT', 'NOSCRIPT', 'TEMPLATE'].includes(el.nodeName)) return true;
  const style = getComputedStyle(el);
  if (style.display === 'contents' && el.nodeName !== 'SLOT') {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && !clapper.hiddenForAria(c)) return false;
      if (c.nodeType === 3 && clapper.textNodeShows(c)) return false;
    }
    return true;
  }
  const isOption = el.nodeName === 'OPTION' && !!el.closest('select');
  if (!isOption && el.nodeName !== 'SLOT' && (!el.checkVisibility() || style.visibility !== 'visible')) return true;
  for (let n = el; n; n = clapper.parentOf(n)) {
    if ((n.getAttribute('aria-hidden') || '').toLowerCase() === 'true') return true;
    if (getComputedStyle(n).display === 'none') return true;
  }
  return false;
};

// nameFromContent are the roles whose name comes from their content.
clapper.nameFromContent = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);

// contentAsDescendant are the roles, besides nameFromContent, whose
// content counts inside the name of an element named by its content, as
// Playwright reads them ('' is no role: a div, a span).
clapper.contentAsDescendant = new Set(['', 'caption', 'code', 'contentinfo', 'definition', 'deletion', 'emphasis', 'insertion',
  'list', 'listitem', 'mark', 'none', 'paragraph', 'presentation', 'region', 'rowgroup', 'section', 'strong',
  'subscript', 'superscript', 'table', 'term', 'time']);

// noName are the roles that are never named.
clapper.noName = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic', 'insertion', 'mark', 'paragraph',
  'presentation', 'strong', 'subscript', 'suggestion', 'superscript', 'term', 'time']);

// accessibleName is an element's accessible name, white space folded.
clapper.accessibleName = function (el) {
  return clapper.norm(clapper.textAlternative(el, {labelledBy: false, inside: false, visited: new Set(), target: el}));
};

// textAlternative is the accessible name computation, condensed:
// aria-labelledby, the value of an embedded control, aria-label, the
// native sources (labels, alt, legend, caption, value of a button-like
// input, title, placeholder), the content for roles named by it. Each
// element counts once in a computation (ctx.visited): a control inside
// its own <label> adds nothing to its name, as in Playwright and the
// spec, instead of naming itself through the label for ever.
clapper.textAlternative = function (el, ctx) {
  if (ctx.visited.has(el)) return '';
  // The name of an element referenced for el's (a label, an
  // aria-labelledby target, a native text alternative): any role's
  // content counts there (free).
  const ref = (x, labelledBy) => clapper.textAlternative(x, {labelledBy, inside: true, referenced: true, free: true,
    hiddenRef: clapper.hiddenForAria(x), visited: ctx.visited, target: ctx.target});
  const role = clapper.roleOf(el);
  if (!ctx.inside && clapper.noName.has(role)) return '';
  // A hidden element counts only where it was referenced, or is inside
  // a hidden element that was (ctx.hiddenRef).
  if (ctx.inside && clapper.hiddenForAria(el) && !ctx.referenced && !ctx.hiddenRef) return '';
  if (!ctx.labelledBy) {
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids) {
      const referred = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      if (referred) parts.push(ref(referred, true));
    }
    const s = parts.join(' ').trim();
    if (s) return s;
  }
  // Counted from here, after its aria-labelledby: an element that names
  // itself there (aria-labelledby="self other") still gives its own name.
  ctx.visited.add(el);
  // An embedded control gives its value; the element being named, met
  // again through its own aria-labelledby, gives its name instead.
  if (ctx.inside && el !== ctx.target) {
    if (role === 'menu') return '';
    if (role === 'textbox') return el.nodeName === 'INPUT' || el.nodeName === 'TEXTAREA' ? el.value : el.textContent;
    if (role === 'combobox' || role === 'listbox') {
      // The selected options (a <select>'s, or the aria-selected options
      // of an ARIA listbox, a combobox's own), else an input's value.
      if (el.nodeName === 'SELECT') return Array.from(el.selectedOptions).map((o) => o.text).join(' ');
      const list = role === 'listbox' ? el : Array.from(el.querySelectorAll('*')).find((e) => clapper.roleOf(e) === 'listbox');
      const chosen = list ? Array.from(list.querySelectorAll('[aria-selected="true"]')).filter((e) => clapper.roleOf(e) === 'option') : [];
      if (!chosen.length && el.nodeName === 'INPUT') return el.value;
      return chosen.map((o) => clapper.textAlternative(o, {labelledBy: ctx.labelledBy, inside: true, free: ctx.free, hiddenRef: ctx.hiddenRef, visited: ctx.visited, target: ctx.target})).join(' ');
    }
    if (['slider', 'spinbutton', 'scrollbar', 'progressbar', 'meter'].includes(role)) {
      return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || el.value || '';
    }
  }
  const aria = (el.getAttribute('aria-label') || '').trim();
  if (aria) return aria;
  if (role !== 'presentation' && role !== 'none') {
    const tag = el.nodeName;
    const type = (el.type || '').toLowerCase();
    const labels = () => el.labels ? Array.from(el.labels).map((l) => ref(l, true)).join(' ').trim() : '';
    if (tag === 'INPUT' && ['button', 'submit', 'reset'].includes(type)) {
      return el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '') || el.title || '';
    }
    if (tag === 'INPUT' && type === 'image') return labels() || el.alt || el.title || 'Submit';
    // A file input is named by its labels, else by what its button says
    // in Chromium; browsers ignore its title.
    if (tag === 'INPUT' && type === 'file') return labels() || 'Choose File';
    if (['INPUT', 'TEXTAREA', 'SELECT', 'METER', 'PROGRESS', 'OUTPUT'].includes(tag) || (tag === 'BUTTON' && el.labels && el.labels.length)) {
      const l = labels();
      if (l) return l;
      if (tag !== 'BUTTON') return el.title || el.getAttribute('placeholder') || '';
    }
    if (tag === 'FIELDSET') {
      const lg = Array.from(el.children).find((c) => c.nodeName === 'LEGEND');
      if (lg) return ref(lg, ctx.labelledBy);
    }
    if (tag === 'FIGURE') {
      const fc = Array.from(el.children).find((c) => c.nodeName === 'FIGCAPTION');
      if (fc) return ref(fc, ctx.labelledBy);
    }
    if (tag === 'IMG' || tag === 'AREA') return el.getAttribute('alt') || el.title || '';
    if (tag === 'TABLE') {
      const cap = el.caption;
      if (cap) return ref(cap, ctx.labelledBy);
    }
    if (tag === 'svg' || tag === 'SVG') {
      const t = Array.from(el.children).find((c) => c.nodeName.toLowerCase() === 'title');
      if (t) return t.textContent;
    }
  }
  // Inside another element's name, content counts for the roles
  // Playwright allows it from (allowsNameFromContent), and for any role
  // inside a label, an aria-labelledby reference or a native text
  // alternative (ctx.free): a <button><span role="group">…</span> Save
  // </button> is named "Save".
  const fromContent = ctx.inside
    ? ctx.free || el.nodeName === 'LABEL' || clapper.nameFromContent.has(role) || clapper.contentAsDescendant.has(role)
    : clapper.nameFromContent.has(role) || el.nodeName === 'SUMMARY';
  if (fromContent) {
    // Inside another's name, white space is kept as it is (a space in a
    // span of its own still parts two words); the name itself is trimmed.
    const s = clapper.contentText(el, ctx);
    if (ctx.inside ? s : s.trim()) return ctx.inside ? s : s.trim();
  }
  return role === 'presentation' || role === 'none' ? '' : el.title || '';
};

// contentText is the name an element's content gives: ::before, each
// child's text alternative (blocks and <br> set apart by spaces),
// ::after.
clapper.contentText = function (el, ctx) {
  const pseudo = (p) => {
    const st = getComputedStyle(el, p);
    if (st.display === 'none' || st.visibility === 'hidden') return '';
    const c = clapper.cssContentText(el, st.content);
    return c && st.display !== 'inline' ? ' ' + c + ' ' : c;
  };
  let s = pseudo('::before');
  const kids = [...(el.shadowRoot ? el.shadowRoot.childNodes : (el.nodeName === 'SLOT' ? el.assignedNodes({flatten: true}) : el.childNodes))];
  // Then the elements it owns (aria-owns), as Playwright reads them: each
  // id's first element in its tree, once, unless a slot shows it.
  const root = el.getRootNode();
  for (const id of (el.getAttribute('aria-owns') || '').split(/\s+/).filter(Boolean)) {
    const owned = root.querySelector ? root.querySelector('#' + CSS.escape(id)) : null;
    if (owned && !owned.assignedSlot) kids.push(owned); // once: ctx.visited
  }
  for (const c of kids) {
    if (c.nodeType === 3) {
      s += c.nodeValue;
    } else if (c.nodeType === 1) {
      const inner = clapper.textAlternative(c, {labelledBy: ctx.labelledBy, inside: true, referenced: false, free: ctx.free, hiddenRef: ctx.hiddenRef, visited: ctx.visited, target: ctx.target});
      const block = c.nodeName === 'BR' || getComputedStyle(c).display !== 'inline';
      s += block ? ' ' + inner + ' ' : inner;
    }
  }
  return s + pseudo('::after');
};

// cssContentText is the text a pseudo-element's CSS content gives: its
// strings and attr() values, or those after "/" (its alternative text,
// content: "→" / "next") when it has one; '' for content of any other
// kind (an image, a counter). Pure.
clapper.cssContentText = function (el, content) {
  if (!content || content === 'none' || content === 'normal') return '';
  const tokens = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(\/)|attr\(\s*([\w-]+)\s*\)|(\S+))/gy;
  const unescape = (raw) => raw.replace(/\\(?:([0-9a-fA-F]{1,6})\s?|([\s\S]))/g, (_, h, c) => (h ? String.fromCodePoint(parseInt(h, 16)) : c));
  let m;
  while (re.lastIndex < content.length && (m = re.exec(content))) {
    if (m[1] !== undefined || m[2] !== undefined) tokens.push({text: unescape(m[1] !== undefined ? m[1] : m[2])});
    else if (m[3]) tokens.push({slash: true});
    else if (m[4]) tokens.push({text: el.getAttribute(m[4]) || ''});
    else tokens.push({other: m[5]});
  }
  // The alternative text after "/" when there is one, else the content;
  // a part of another kind (an image, a counter) in what is used gives
  // nothing.
  const slash = tokens.findIndex((t) => t.slash);
  const used = slash >= 0 ? tokens.slice(slash + 1) : tokens;
  if (used.some((t) => t.other !== undefined || t.slash)) return '';
  return used.map((t) => t.text).join('');
};

// byRole returns the elements with the role (hidden ones left out, as
// Playwright), and with a name when one is given: a case-insensitive
// substring of the accessible name, or with exact the whole name.
clapper.byRole = function (role, name, exact) {
  let els = clapper.all(document).filter((e) => clapper.roleOf(e) === role && !clapper.hiddenForAria(e));
  if (name != null && name !== '') {
    const match = clapper.textMatcher(name, exact);
    els = els.filter((e) => match(clapper.accessibleName(e)));
  }
  return els;
};
