// value is this element's value as its class reports it, as a string.
// It takes no arguments.
function (json) {
  return String(this.value == null ? '' : this.value);
}
