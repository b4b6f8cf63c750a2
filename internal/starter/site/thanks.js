// The thanks page greets the name the form sent.
const name = new URLSearchParams(location.search).get('name');
if (name) document.getElementById('thanks').textContent = `Thanks, ${name}!`;
