// checked reports whether this element (a checkbox, a radio, or a custom
// element with a checked property) is checked. It takes no arguments.
function (json) {
  return !!this.checked;
}
