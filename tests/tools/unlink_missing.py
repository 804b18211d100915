#!/usr/bin/env python3
"""unlink_missing.py -- in a starter's chapters, links to files it does not hold become plain text.

    unlink_missing.py DOCS_DIR      rewrite DOCS_DIR/*.md in place

A starter for chapter NN holds the chapters up to NN, and neither the later
chapters nor docs/benchmarks.md nor the solutions (starter.sh). Their text
still links to those: a student would follow a link to nothing. Each
Markdown link [text](target) whose target is a relative path to a file that
is not there (an #anchor in a file that is there is left alone) is replaced
by its text. Prints how many links it took out of how many files.
"""
import pathlib
import re
import sys

# [text](target), text without brackets inside; an image ![..](..) too, but
# a picture the starter lacks would be a starter.sh bug, so images are kept.
LINK = re.compile(r"(?<!!)\[([^\]\[]+)\]\(([^)\s]+)\)")


def is_missing(docs, target):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
        return False  # a URL, or an anchor in the same page
    path = target.split("#", 1)[0]
    return not (docs / path).exists()


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    docs = pathlib.Path(sys.argv[1])
    removed = files = 0
    for md in sorted(docs.glob("*.md")):
        text = md.read_text()
        count = 0

        def plain(m):
            nonlocal count
            if is_missing(md.parent, m.group(2)):
                count += 1
                return m.group(1)
            return m.group(0)

        new = LINK.sub(plain, text)
        if count:
            md.write_text(new)
            removed += count
            files += 1
    print("unlink_missing: %d links to files not here made plain text, in %d files" % (removed, files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
