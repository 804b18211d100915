#!/usr/bin/env python3
"""excerpts.py -- the code shown in the chapters is the code in the steps.

A fenced block whose info string names a file after the language,

    ```c steps/05-active-sampling/active_expire.c
    static int fast_cycle_wanted(...)
    ...
    ```

must appear, line for line, in that file: each run of lines between two
`...` lines is found in the file as consecutive lines, in order, after the
previous run. Trailing spaces do not count; indentation does. Blocks without
a file name (shell sessions, pseudo-code) are not checked. A block indented
inside a list item is compared without its indentation.

    excerpts.py [FILE.md...]   check the chapters (default: docs/*.md);
                               print each excerpt that is not in its file
                               and exit 1, else print how many were checked
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^( *)```(\w+) +(\S+)\s*$")
ELISION = "..."


def excerpts(md):
    """(line number, file named, lines) for each tagged block of md."""
    lines = md.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = m.group(1) # a block inside a list item is indented
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i] != indent + "```":
            line = lines[i].rstrip()
            body.append(line[len(indent):] if line.startswith(indent) else line)
            i += 1
        yield start, m.group(3), body
        i += 1


def runs(body):
    """The block split at its `...` lines, empty runs dropped."""
    out, cur = [], []
    for line in body:
        if line.strip() == ELISION:
            out.append(cur)
            cur = []
        else:
            cur.append(line)
    out.append(cur)
    return [r for r in out if r]


def find_run(src, run, start):
    """The index in src after run's first occurrence at or after start, or -1."""
    n = len(run)
    for i in range(start, len(src) - n + 1):
        if src[i:i + n] == run:
            return i + n
    return -1


def check_excerpt(md, lineno, name, body):
    """An error message, or None when the excerpt is in its file."""
    path = ROOT / name
    where = "%s:%d" % (md.relative_to(ROOT), lineno)
    if not path.is_file():
        return "%s: the excerpt names %s, which does not exist" % (where, name)
    src = [line.rstrip() for line in path.read_text().splitlines()]
    at = 0
    for run in runs(body):
        nxt = find_run(src, run, at)
        if nxt < 0:
            first = next((line for line in run if line.strip()), run[0])
            return ("%s: these %d lines are not, in this order, in %s (first: %r)"
                    % (where, len(run), name, first.strip()))
        at = nxt
    return None


def main():
    files = [pathlib.Path(a).resolve() for a in sys.argv[1:]] or sorted((ROOT / "docs").glob("*.md"))
    checked, errors, absent = 0, [], 0
    for md in files:
        for lineno, name, body in excerpts(md):
            parts = pathlib.Path(name).parts
            home = ROOT.joinpath(*parts[:2]) if parts[0] == "steps" else ROOT / parts[0]
            if len(parts) > 1 and parts[0] in ("steps", "common") and not home.is_dir():
                absent += 1  # a starter repository has the chapter but not its step (01: common/)
                continue
            checked += 1
            err = check_excerpt(md, lineno, name, body)
            if err:
                errors.append(err)
    for err in errors:
        print(err)
    print("%d excerpts checked against the steps, %d not found" % (checked, len(errors))
          + (", %d skipped: their step is not here" % absent if absent else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
