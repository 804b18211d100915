// diff.js -- highlights a diff page's code with diff2html's UI (its bundle,
// diff2html-ui-slim.min.js, loaded before this). The diff itself is already
// in the page twice, side by side and line by line, rendered when the book
// was built; this only adds colour, the file list's show/hide toggle and
// synchronised scrolling of the two sides; and as long lines wrap (book.css),
// it keeps each row of a side-by-side file as tall in both panes.
(function () {
  function level() {
    document.querySelectorAll('#diff .d2h-files-diff').forEach(function (pair) {
      var sides = pair.querySelectorAll('.d2h-file-side-diff tbody');
      if (sides.length !== 2) return;
      var a = sides[0].rows, b = sides[1].rows, n = Math.min(a.length, b.length), i, h = [];
      for (i = 0; i < n; i++) { a[i].style.height = ''; b[i].style.height = ''; }
      for (i = 0; i < n; i++) h.push(Math.max(a[i].getBoundingClientRect().height, b[i].getBoundingClientRect().height));
      for (i = 0; i < n; i++) { a[i].style.height = h[i] + 'px'; b[i].style.height = h[i] + 'px'; }
    });
  }
  var timer = null;
  window.addEventListener('resize', function () { clearTimeout(timer); timer = setTimeout(level, 150); });
  if (typeof Diff2HtmlUI === 'undefined') { level(); return; }
  ['diff', 'diff-lines'].forEach(function (id) {
    var target = document.getElementById(id);
    if (!target) return;
    new Diff2HtmlUI(target, undefined, {
      drawFileList: true,
      colorScheme: 'light',
      fileListStartVisible: true,
      fileContentToggle: true,
      highlight: true,
    }).draw();
  });
  level();
})();
