// Say hello opens the form.
document.getElementById('hello').addEventListener('click', () => {
  document.getElementById('form').hidden = false;
  document.getElementById('name').focus();
});
