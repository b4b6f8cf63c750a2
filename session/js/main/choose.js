// choose picks the option of this <select> with a label (or, when the
// label is empty, a value), with input and change events. Its JSON
// arguments are [label, value]. It returns '' or what is wrong, listing
// the options there are.
function (json) {
  const [label, value] = JSON.parse(json);
  const el = this;
  if (el.tagName !== 'SELECT') return 'not a <select>';
  const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
  const opts = Array.from(el.options);
  const opt = opts.find((o) => label ? norm(o.label || o.text) === norm(label) : o.value === value);
  if (!opt) {
    return 'no option ' + (label ? 'labelled "' + label + '"' : 'with value "' + value + '"') +
      '; options: ' + opts.map((o) => '"' + norm(o.label || o.text) + '"').join(', ');
  }
  el.focus();
  opt.selected = true;
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}
