// glob reports whether value matches a glob where * stands for any run of
// characters and ? for one character; everything else is literal.
clapper.glob = function (value, glob) {
  const re = Array.from(glob).map((c) => c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('');
  return new RegExp('^' + re + '$', 's').test(value);
};

// urlIs reports whether the document's address matches the glob.
clapper.urlIs = function (glob) {
  return clapper.glob(location.href, glob);
};
