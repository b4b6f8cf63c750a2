// fill sets a form field's (or an editable element's) value at once, the
// way frameworks see a change: through the native value setter, then input
// and change events. It returns '' or what is wrong.
clapper.fill = function (spec, nth, value) {
  const el = clapper.pick(spec, nth);
  if (!el) return 'element gone';
  if (!('value' in el) && !el.isContentEditable) return 'not a form field';
  el.focus();
  if (el.isContentEditable) {
    el.textContent = value;
  } else {
    const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value');
    if (d && d.set) d.set.call(el, value); else el.value = value;
  }
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
};

// choose picks the option of a <select> with this label (or, when label is
// empty, this value), with input and change events. It returns '' or what
// is wrong, listing the options there are.
clapper.choose = function (spec, nth, label, value) {
  const el = clapper.pick(spec, nth);
  if (!el) return 'element gone';
  if (el.tagName !== 'SELECT') return 'not a <select>';
  const norm = clapper.norm;
  const opts = Array.from(el.options);
  const opt = opts.find((o) => label ? norm(o.label || o.text) === norm(label) : o.value === value);
  if (!opt) {
    return 'no option ' + (label ? 'labelled "' + label + '"' : 'with value "' + value + '"') +
      '; options: ' + opts.map((o) => '"' + norm(o.label || o.text) + '"').join(', ');
  }
  el.focus();
  opt.selected = true;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
};

// checked reports whether the target (a checkbox or radio) is checked.
clapper.checked = function (spec, nth) {
  const el = clapper.pick(spec, nth);
  return !!(el && el.checked);
};
