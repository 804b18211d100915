// diffpage.mjs -- one diff page's body, rendered by diff2html.
//
//   node diffpage.mjs DIFF2HTML_DIR < job.json > fragment.html
//
// job.json: {"diff": the text of `git diff`, "order": [file names, in the
// chapter's reading order], "links": {file name: href of its source page},
// "whole": true when every file is new (step 01), which then is shown line
// by line at every width: a side-by-side view would be half empty}.
// diff2html parses the diff and renders it twice, each with a file list:
// side by side for a wide screen (a new or deleted file line by line, across
// the width), line by line for a narrow one (the page's stylesheet shows
// one); each file's name becomes a link to its whole
// source. Prints {"sides": html, "lines": html}. The page highlights
// the code when it loads (assets/diff.js, with diff2html's own UI bundle):
// diff2html's highlighting works on the page's DOM, not here.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const { parse, html } = require(process.argv[2]);
const job = JSON.parse(readFileSync(0, 'utf8'));

const config = {
  drawFileList: true,
  matching: 'lines',
  colorScheme: 'light',
};
const files = parse(job.diff, config);
const nameOf = (f) => (f.newName === '/dev/null' ? f.oldName : f.newName);
const rank = (f) => {
  const i = job.order.indexOf(nameOf(f));
  return i < 0 ? job.order.length : i;
};
files.sort((x, y) => rank(x) - rank(y) || nameOf(x).localeCompare(nameOf(y)));

const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
// A file's header names it in a <span class="d2h-file-name">: make it a link.
const linked = (out) =>
  out.replace(/<span class="d2h-file-name">([^<]*)<\/span>/g, (whole, name) => {
    const href = job.links[name.replace(/&#x2F;/g, '/').replace(/&amp;/g, '&')];
    return href ? `<a class="d2h-file-name" href="${escape(href)}">${name}</a>` : whole;
  });
// Side by side, except a new or deleted file: one side of it would be
// empty, so it is shown line by line, across the whole width.
const wholeFile = (f) => job.whole || f.isNew || f.isDeleted;
const fileList = html(files, { ...config, outputFormat: 'line-by-line' }).split('<div class="d2h-wrapper')[0];
const oneFile = (f) =>
  html([f], { ...config, drawFileList: false, outputFormat: wholeFile(f) ? 'line-by-line' : 'side-by-side' })
    .replace(/^\s*<div class="d2h-wrapper[^"]*">/, '')
    .replace(/<\/div>\s*$/, '');
const wrapper = html([], { ...config, drawFileList: false }).match(/<div class="d2h-wrapper[^"]*">/)[0];
const sides = linked(fileList + wrapper + files.map(oneFile).join('\n') + '</div>\n');
// The same files' ids (d2h-NNNNNN, from their names) would be in the page
// twice: the narrow copy's get a prefix, and its file list follows them.
const lines = linked(html(files, { ...config, outputFormat: 'line-by-line' }))
  .replace(/id="d2h-/g, 'id="n-d2h-')
  .replace(/href="#d2h-/g, 'href="#n-d2h-');
process.stdout.write(JSON.stringify({ sides, lines }));
