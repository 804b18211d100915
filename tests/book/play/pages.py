#!/usr/bin/env python3
"""pages.py -- the playground in the book: a live console in every chapter.

    pages.py BOOK MODULES

BOOK is the book tests/book/build.py wrote (build/book), MODULES the
directory tests/book/play/build.sh wrote the steps' modules into
(build/play/NN-name.js). This copies the modules into BOOK/play/, and the
page code (play.js, play.css) into BOOK/assets/, then:

  - in each chapter page, docs/NN-name.html whose step has a module, puts a
    console, the clock and the chapter's drawing (an <aside id="play">,
    filled in by play.js) after the text, with a link to it under the title,
    and marks the page (body.play-docked) so that on a wide screen play.css
    docks it beside the text; play.js adds the "Try it here" buttons and
    turns the chapter's ```play blocks into buttons;
  - writes one page per step, BOOK/play/NN-name.html: the same, alone.

Without modules (no emcc) it says so and leaves the book as it is.
"""
import html
import os
import pathlib
import re
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def aside(step, page_kind):
    return ('<aside id="play" class="play" data-step="%s" data-page="%s" aria-label="Step %s, running">\n'
            '<noscript><p>The live server needs JavaScript.</p></noscript>\n</aside>'
            % (html.escape(step), page_kind, html.escape(step)))


def head(rel):
    return ('<link rel="stylesheet" href="%sassets/play.css">\n'
            '<script src="%splay/%%s.js" defer></script>\n'
            '<script src="%sassets/play.js" defer></script>\n' % (rel, rel, rel))


def chapter_page(path, step):
    text = path.read_text()
    if 'id="play"' in text:
        return False
    text = text.replace("</head>", head("../") % step + "</head>", 1)
    # On a wide screen the console is docked beside the text (play.css).
    text = text.replace('<body class="chapter">', '<body class="chapter play-docked">', 1)
    # The reader who wants to try first finds the console from the title.
    link = ('<p class="play-link"><a href="#play">Try it: step %s\'s server runs in this page</a> '
            '(<a href="../play/%s.html">on its own page</a>)</p>' % (step[:2], step))
    text = re.sub(r"(</h1>)", r"\1\n" + link.replace("\\", "\\\\"), text, count=1)
    text = text.replace("</main>", "</main>\n" + aside(step, "chapter"), 1)
    path.write_text(text)
    return True


def step_page(book, step, chapter):
    back = ('<p>The server of <a href="../%s">chapter %s</a>, compiled to WebAssembly from '
            'steps/%s and common/, running in this page.</p>' % (chapter, step[:2], step)) if chapter else ""
    doc = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
           '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
           '<title>Step %s, live</title>\n<link rel="stylesheet" href="../assets/book.css">\n%s</head>\n'
           '<body class="playpage">\n<nav class="bar"><a href="../index.html">Home</a> '
           '<a href="../docs/README.html">Chapters</a></nav>\n<div class="page">\n<main>\n'
           '<h1>Step %s, live</h1>\n%s\n</main>\n%s\n</div>\n</body>\n</html>\n'
           % (html.escape(step), head("../") % step, html.escape(step), back, aside(step, "step")))
    (book / "play" / (step + ".html")).write_text(doc)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    book, modules = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if not (book / "index.html").is_file():
        return 0  # no book (no pandoc): build.py has said why
    steps = sorted(p.name for p in (ROOT / "steps").iterdir() if (p / "main.c").is_file())
    built = [s for s in steps if (modules / (s + ".js")).is_file()]
    if not built:
        print("play: no step's module in %s (emcc is needed), so the chapters have no live console"
              % os.path.relpath(modules))
        return 0
    (book / "play").mkdir(exist_ok=True)
    for name in ("play.js", "play.css"):
        shutil.copyfile(HERE / name, book / "assets" / name)
    consoles = 0
    for step in built:
        shutil.copyfile(modules / (step + ".js"), book / "play" / (step + ".js"))
        pages = sorted(p for p in (book / "docs").glob(step[:2] + "-*.html") if not p.name.endswith("-table.html"))
        chapter = "docs/" + pages[0].name if pages else None
        for p in pages:
            consoles += chapter_page(p, step)
        step_page(book, step, chapter)
    print("play: %d chapter pages with a live console, %d step pages in %s"
          % (consoles, len(built), os.path.relpath(book / "play")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
