// checked reads this element's checked state as assistive technology
// does (Playwright's rule): a native checkbox or radio by its checked
// property; an element whose role can be checked (checkbox,
// menuitemcheckbox, option, radio, switch, menuitemradio, treeitem) by
// aria-checked="true"; and a custom element by its own checked property
// (defined by the page's class, which is why this runs in the page's
// world). It returns "true", "false", "radio" (a checked native radio
// button, which a click cannot clear) or "error" (nothing here can be
// checked). It takes no arguments.
function (json) {
  const el = this;
  if (el.nodeName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) {
    return el.type === 'radio' && el.checked ? 'radio' : String(el.checked);
  }
  const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
  if (['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem'].includes(role)) {
    return String(el.getAttribute('aria-checked') === 'true');
  }
  if (typeof el.checked === 'boolean') return String(el.checked);
  return 'error';
}
