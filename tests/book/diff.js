// diff.js -- highlights a diff page's code with diff2html's UI (its bundle,
// diff2html-ui-slim.min.js, loaded before this). The diff itself is already
// in the page twice, side by side and line by line, rendered when the book
// was built; this only adds colour, the file list's show/hide toggle and
// synchronised scrolling of the two sides.
(function () {
  if (typeof Diff2HtmlUI === 'undefined') return;
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
})();
