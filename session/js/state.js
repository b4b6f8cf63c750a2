// Element states, Playwright's definitions, shared by wait, expect and
// the actionability checks.

// retarget is the element a state or an action is about when a target
// names a part of a control (Playwright's rule): a node inside a button,
// link, checkbox or radio role is judged by that control ('button-link'
// takes buttons and links, the others buttons, checkboxes and radios),
// and with 'follow-label' a label (or what is in one) by its control.
// Form fields and editable content are never climbed.
clapper.retarget = function (el, how) {
  if (!el) return null;
  if (el.nodeType !== 1) el = el.parentElement;
  if (!el || how === 'none') return el;
  if (!el.matches('input, textarea, select') && !el.isContentEditable) {
    if (how === 'button-link') el = el.closest('button, [role=button], a, [role=link]') || el;
    else el = el.closest('button, [role=button], [role=checkbox], [role=radio]') || el;
  }
  if (how === 'follow-label' && !el.matches('a, input, textarea, button, select, [role=link], [role=button], [role=checkbox], [role=switch], [role=radio]') && !el.isContentEditable) {
    const label = el.closest('label');
    if (label && label.control) el = label.control;
  }
  return el;
};

clapper.ariaDisabledRoles = new Set(['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link', 'menuitem',
  'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox', 'menu', 'menubar',
  'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row', 'rowheader', 'searchbox', 'select', 'slider',
  'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar', 'tree', 'treegrid', 'treeitem']);

// disabled is Playwright's: a native control (button, input, select,
// textarea, option, optgroup) with disabled, in a disabled optgroup, or
// in a disabled fieldset outside its first legend; or an element whose
// role can be disabled, with aria-disabled="true" on it or on the nearest
// ancestor that says either way.
clapper.disabled = function (el) {
  const native = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'].includes(el.nodeName);
  if (native && (el.hasAttribute('disabled') || (el.nodeName === 'OPTION' && !!el.closest('optgroup[disabled]')) || clapper.inDisabledFieldset(el))) return true;
  if (!clapper.ariaDisabledRoles.has(clapper.roleOf(el))) return false;
  for (let n = el; n; n = clapper.parentOf(n)) {
    const a = (n.getAttribute('aria-disabled') || '').toLowerCase();
    if (a === 'true') return true;
    if (a === 'false') return false;
  }
  return false;
};

clapper.inDisabledFieldset = function (el) {
  const fs = el.parentElement && el.parentElement.closest('fieldset[disabled]');
  if (!fs) return false;
  const legend = Array.from(fs.children).find((c) => c.nodeName === 'LEGEND');
  return !(legend && legend.contains(el));
};

// enabled is not disabled, judged on the control a target is part of.
clapper.enabled = function (el) {
  return !clapper.disabled(clapper.retarget(el, 'follow-label'));
};

clapper.readonlyRoles = new Set(['checkbox', 'combobox', 'grid', 'gridcell', 'listbox', 'radiogroup', 'slider', 'spinbutton',
  'textbox', 'columnheader', 'rowheader', 'searchbox', 'switch', 'treegrid']);

// isField reports whether an element is one whose editing state means
// something: a form field, editable content, or a role that can be read
// only.
clapper.isField = function (el) {
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.nodeName) || el.isContentEditable || clapper.readonlyRoles.has(clapper.roleOf(el));
};

// editable is enabled and not read-only (readonly on a form field,
// aria-readonly="true" on a role that allows it). An element that is not
// a field is not editable.
clapper.editable = function (el) {
  el = clapper.retarget(el, 'follow-label');
  if (clapper.disabled(el)) return false;
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.nodeName)) return !el.hasAttribute('readonly');
  if (clapper.readonlyRoles.has(clapper.roleOf(el))) return el.getAttribute('aria-readonly') !== 'true';
  return el.isContentEditable;
};

// focused reports whether el has the focus (in its shadow root, or its
// document).
clapper.focused = function (el) {
  const root = el.getRootNode();
  return (root.activeElement || document.activeElement) === el;
};

// state reports whether a target is in a state: visible, hidden (not
// visible, or absent), attached (in the document) or detached (absent).
// Visibility is clapper.visible, the same definition the actionability
// checks use.
clapper.state = function (spec, nth, state) {
  const el = clapper.pick(spec, nth);
  switch (state) {
    case 'attached': return !!el;
    case 'detached': return !el;
    case 'hidden': return !clapper.visible(el);
    default: return clapper.visible(el);
  }
};

// hasText reports whether the page's visible text contains s (white space
// folded on both sides).
clapper.hasText = function (s) {
  return clapper.norm(document.body ? document.body.innerText : '').includes(clapper.norm(s));
};

// doc is the current document's address, load state, and whether it is
// hidden (behind another page in its window: it paints nothing).
clapper.doc = function () {
  return {url: location.href, ready: document.readyState, hidden: document.visibilityState === 'hidden'};
};
