#!/usr/bin/env python3
"""hide_excerpts.py -- a chapter's text without the code the student is to
write: for a starter made with `make starter STEP=NN DEST=dir EXCERPTS=hide`
(tests/tools/starter.sh).

    hide_excerpts.py DOC PREFIX...   rewrite DOC in place

Each code excerpt of DOC (a fenced block naming its file, as
tests/tools/excerpts.py reads them) whose file starts with one of the
PREFIXes (the chapter's own step, `steps/NN-name/`, and for chapter 01
`common/` too) becomes a note, indented as the block was:

    > **Code left out of this starter** (`active_expire.c`), for you to write:
    >
    > - `sample_round()`: One round: look at up to keys_per_loop random keys ...

The note names each function the excerpt shows, or "part of" the function
whose body it shows a piece of, with the function's contract: the comment
right above its definition, or else the one above its declaration in a
header of the same directory (where the project states the contract of a
function other files call). An excerpt of a table or a type names it.
Excerpts of other files (an earlier step) stay: the student has those.

The files are read from the project this tool belongs to, which has the
chapter's step (the starter does not). The excerpts are found in them the
way the excerpt check finds them, and the functions the way skeleton.py
finds them; an excerpt that is not in its file, or a file skeleton.py
cannot read, stops it with a message naming the place, and DOC is left as
it was. Prints how many excerpts it replaced.
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import excerpts  # noqa: E402  (the same reading of the blocks as the excerpt check)
import skeleton  # noqa: E402  (the same reading of the C files as the skeletons)

ROOT = excerpts.ROOT
NO_CONTRACT = "no comment states its contract; the text around this note says what it does."
DATA_NAME = re.compile(r"([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)=\s*$")


class HideError(Exception):
    pass


# ---- Where an excerpt is in its file -------------------------------------------------
def excerpt_lines(src_lines, body, where):
    """The set of line numbers (1-based) of the file that the excerpt shows,
    blank lines left out (they belong to no function)."""
    shown, at = set(), 0
    for run in excerpts.runs(body):
        nxt = excerpts.find_run(src_lines, run, at)
        if nxt < 0:
            raise HideError("%s: the excerpt is not in its file (python3 tests/tools/excerpts.py says more)" % where)
        shown.update(n for n in range(nxt - len(run) + 1, nxt + 1) if src_lines[n - 1].strip())
        at = nxt
    return shown


# ---- Contracts: the comment right above a line ----------------------------------------
def comment_above(lines, first):
    """The text of the /* */ comment that ends on the line just above line
    `first` (1-based), without its markers, or None."""
    end = first - 2  # index of the line above
    if end < 0 or not lines[end].rstrip().endswith("*/"):
        return None
    start = end
    while start >= 0 and not lines[start].lstrip().startswith("/*"):
        start -= 1
    if start < 0:
        return None
    text = []
    for line in lines[start:end + 1]:
        line = line.strip()
        line = re.sub(r"^/\*+", "", line)
        line = re.sub(r"\*+/$", "", line)
        line = re.sub(r"^\*(?!/)", "", line)
        text.append(line.strip())
    return " ".join(" ".join(text).split()) or None


def signature_start(lines, line):
    """The first line (1-based) of the declaration that reaches line `line`:
    up over the lines that continue it (clang-format breaks long ones)."""
    while line > 1:
        above = lines[line - 2].rstrip()
        if not above.strip() or above.endswith(("*/", ";", "}", "{")) or above.lstrip().startswith("#"):
            break
        line -= 1
    return line


def header_contract(c_file, name):
    """The comment above NAME's declaration in a header of c_file's directory."""
    for h in sorted(c_file.parent.glob("*.h")):
        lines = h.read_text().splitlines()
        for i, line in enumerate(lines, 1):
            if re.match(r"^[A-Za-z_].*\b%s\(" % re.escape(name), line) and not line.startswith("#"):
                return comment_above(lines, signature_start(lines, i)), h.name
    return None, None


def contract(c_file, lines, name, open_line):
    """(the contract's text, the header it is from or None)."""
    text = comment_above(lines, signature_start(lines, open_line))
    if text:
        return text, None
    return header_contract(c_file, name)


# ---- What an excerpt shows ------------------------------------------------------------
def markdown(text):
    """A comment's text as Markdown prose: its `code` spans kept, a bare `*`
    (a C pointer, "*existed") kept from starting emphasis, a `<` before a
    letter from starting a tag."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") else re.sub(r"<(?=[A-Za-z/!?])", "&lt;", p.replace("*", "\\*"))
                   for p in parts)


def n_lines(n):
    return "%d line%s" % (n, "" if n == 1 else "s")


def data_name(decl):
    """`commands[]` for "static const command commands[] =", else the
    declaration itself."""
    m = DATA_NAME.search(decl)
    if m:
        return m.group(1) + ("[]" if m.group(2) else "")
    return " ".join(decl.split())


def function_item(c_file, lines, name, open_line, shown_in_it):
    """The note's line for a function the excerpt shows all or part of."""
    text, header = contract(c_file, lines, name, open_line)
    if open_line in shown_in_it:
        label = "`%s()`" % name
    else:
        label = "part of `%s()` (%s of its body)" % (name, n_lines(len(shown_in_it)))
    if not text:
        return "%s: %s" % (label, NO_CONTRACT)
    if header:
        return "%s, as `%s` states it: %s" % (label, header, markdown(text))
    return "%s: %s" % (label, markdown(text))


def describe(c_file, name, body, where):
    """The note's items: one line for each function, table or type shown."""
    src = c_file.read_text()
    lines = src.splitlines()
    shown = excerpt_lines([line.rstrip() for line in lines], body, where)
    data = []
    try:
        functions = skeleton.find_functions(src, name, data)
    except skeleton.SkeletonError as e:
        raise HideError("%s: %s" % (where, e))
    items, covered = [], set()
    for fname, open_at, close_at in functions:
        open_line = skeleton.line_of(src, open_at)
        span = set(range(signature_start(lines, open_line), skeleton.line_of(src, close_at) + 1))
        if shown & span:
            covered |= span
            items.append(function_item(c_file, lines, fname, open_line, shown & span))
    for decl, open_at, close_at in data:
        span = set(range(signature_start(lines, skeleton.line_of(src, open_at)), skeleton.line_of(src, close_at) + 1))
        if shown & span:
            covered |= span
            items.append("%s of `%s`" % (n_lines(len(shown & span)), data_name(decl)))
    if shown - covered:
        items.append("%s of declarations" % n_lines(len(shown - covered)))
    return items


def note(indent, file_name, items):
    out = ["> **Code left out of this starter** (`%s`), for you to write:" % file_name, ">"]
    out += ["> - " + item for item in items]
    return [indent + line for line in out]


def hide(doc, prefixes):
    """DOC's lines with its own excerpts replaced, and how many."""
    lines = doc.read_text().splitlines()
    replaced, out, at = 0, [], 0
    for start, name, body in excerpts.excerpts(doc):
        if not name.startswith(tuple(prefixes)):
            continue
        fence = start - 1  # the opening fence's index; the closing one follows the body
        indent = excerpts.FENCE.match(lines[fence]).group(1)
        where = "%s:%d" % (doc, start)
        c_file = ROOT / name
        if not c_file.is_file():
            raise HideError("%s: the excerpt names %s, which does not exist" % (where, name))
        out += lines[at:fence] + note(indent, c_file.name, describe(c_file, name, body, where))
        at = start + len(body) + 1
        replaced += 1
    out += lines[at:]
    return out, replaced


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    doc = pathlib.Path(argv[1])
    try:
        lines, replaced = hide(doc, argv[2:])
    except HideError as e:
        sys.exit("hide_excerpts.py: %s" % e)
    doc.write_text("\n".join(lines) + "\n")
    print("%s: %d excerpts of %s replaced by notes" % (doc, replaced, " and ".join(argv[2:])))


if __name__ == "__main__":
    main(sys.argv)
