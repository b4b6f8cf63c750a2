// Shared by the behaviour pages: log(...) appends a line to #log.
function log(...parts) {
  const li = document.createElement('li');
  li.textContent = parts.join(' ');
  document.getElementById('log').appendChild(li);
}
