// fill sets this element's value at once, the way frameworks see a change:
// through the value setter its class defines (a custom element's too,
// since this runs in the page's own world), then input and change events.
// Its JSON arguments are [value]. It returns '' or what is wrong.
function (json) {
  const [value] = JSON.parse(json);
  const el = this;
  if (!('value' in el) && !el.isContentEditable) return 'not a form field';
  el.focus();
  if (el.isContentEditable && !('value' in el)) {
    el.textContent = value;
  } else {
    let d = null;
    for (let p = Object.getPrototypeOf(el); p && !d; p = Object.getPrototypeOf(p)) d = Object.getOwnPropertyDescriptor(p, 'value');
    if (d && d.set) d.set.call(el, value); else el.value = value;
  }
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}
