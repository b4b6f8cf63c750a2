// choose selects options of this <select> (or the control of a label),
// Playwright's way: the options are matched in document order, by label
// (white space folded), by value or by index, and the select's options
// are then exactly those, with input and change events. Its JSON
// arguments are [labels, values, index]. It returns {done: true}, {wait:
// why} when an option is not there yet or is disabled (the step waits for
// it), or {error: why}.
function (json) {
  const [labels, values, index] = JSON.parse(json);
  const el = this;
  if (el.nodeName !== 'SELECT') return {error: 'the element is not a <select>'};
  const norm = (s) => String(s == null ? '' : s).replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
  const reqs = (labels || []).map((l) => ({label: l})).concat((values || []).map((v) => ({value: v})));
  if (index != null) reqs.push({index});
  if (reqs.length > 1 && !el.multiple) return {error: 'this <select> takes one option, and ' + reqs.length + ' were given'};
  const opts = Array.from(el.options);
  const matches = (o, i, r) => r.label != null ? (o.label === r.label || norm(o.label) === norm(r.label)) :
    r.value != null ? o.value === r.value : i === r.index;
  const says = (r) => r.label != null ? 'labelled ' + JSON.stringify(r.label) : r.value != null ? 'with value ' + JSON.stringify(r.value) : 'at index ' + r.index;
  let left = reqs.slice();
  const picked = [];
  for (let i = 0; i < opts.length && left.length; i++) {
    const o = opts[i];
    const hit = left.filter((r) => matches(o, i, r));
    if (!hit.length) continue;
    const fs = o.closest('fieldset[disabled]');
    if (o.disabled || (o.parentElement && o.parentElement.nodeName === 'OPTGROUP' && o.parentElement.disabled) || fs) {
      return {wait: 'the option ' + says(hit[0]) + ' is disabled'};
    }
    picked.push(o);
    left = left.filter((r) => !hit.includes(r));
  }
  if (left.length) {
    return {wait: 'no option ' + says(left[0]) + '; options: ' + opts.map((o) => JSON.stringify(norm(o.label))).join(', ')};
  }
  for (const o of opts) o.selected = picked.includes(o);
  el.focus();
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {done: true};
}
