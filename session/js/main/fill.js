// fill prepares this element (a form field, or the control of a label)
// to be filled with a value, Playwright's way, and says what comes next:
// 'input' (its whole text is selected and focused: the session inserts
// the value as an input method would, or deletes the selection for ''),
// 'done' (the value was set, with input and change events: the input
// types people pick a value in, a date, a colour, a range; and a custom
// element's own value property, defined by the page's class, since this
// runs in the page's own world), or 'error: why'. Its JSON arguments are
// [value].
function (json) {
  let [value] = JSON.parse(json);
  const el = this;
  const fire = () => {
    el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
  };
  if (el.nodeName === 'INPUT') {
    const type = el.type.toLowerCase();
    const typed = ['', 'email', 'number', 'password', 'search', 'tel', 'text', 'url'];
    const picked = ['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week'];
    if (!typed.includes(type) && !picked.includes(type)) {
      const use = {checkbox: 'check or uncheck', radio: 'check', file: 'upload', submit: 'click', button: 'click', reset: 'click', image: 'click'}[type];
      return 'error: an input of type ' + type + ' cannot be filled' + (use ? '; use ' + use : '');
    }
    if (type === 'number') {
      value = value.trim();
      if (isNaN(Number(value))) return 'error: cannot type ' + JSON.stringify(value) + ' into a number input (input[type=number]): give a number';
    }
    if (picked.includes(type)) {
      value = value.trim();
      if (type === 'color') value = value.toLowerCase();
      el.focus();
      el.value = value;
      if (el.value !== value) {
        return 'error: ' + JSON.stringify(value) + ' is not a value an input of type ' + type + ' takes (it read back as ' + JSON.stringify(el.value) + ')';
      }
      fire();
      return 'done';
    }
    // Focused first: a page that moves the caret when the field is
    // focused does not undo the selection.
    el.focus();
    el.select();
    return 'input';
  }
  if (el.nodeName === 'TEXTAREA') {
    el.focus();
    el.selectionStart = 0;
    el.selectionEnd = el.value.length;
    return 'input';
  }
  if (el.isContentEditable) {
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return 'input';
  }
  if (el.nodeName === 'SELECT') return 'error: a <select> is not filled; use select';
  if (el.nodeName.includes('-') && 'value' in el) {
    el.focus();
    let d = null;
    for (let p = Object.getPrototypeOf(el); p && !d; p = Object.getPrototypeOf(p)) d = Object.getOwnPropertyDescriptor(p, 'value');
    if (d && d.set) d.set.call(el, value); else el.value = value;
    fire();
    return 'done';
  }
  return 'error: the element is not an <input>, <textarea> or [contenteditable] element';
}
