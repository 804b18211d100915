#!/usr/bin/env python3
"""starter_text.py -- a chapter's text as a starter of it reads it: only
commands that work there (tests/tools/starter.sh runs it on the chapter).

    starter_text.py DOC NN-name [PREV-name]

A starter of chapter NN has no steps/NN-name (that is the answer), so three
commands of the chapter's text fail there with "unknown step":
  - "run `make workspace STEP=NN`: it creates" the workspace becomes the
    workspace the starter holds, which that command made;
  - `make diff STEP=NN`, the chapter's diff (from chapter 02 on, PREV-name
    given: the step before NN in steps/, whatever its number), becomes
    `diff -ru steps/PREV-name workspace/NN-name`: the files the workspace
    changes of the step before, which in a fresh starter are the chapter's
    files, its headers and its stubs;
  - the exercises' "Grade it: `make workspace STEP=NN EX=K` copies the step
    to ...; make your change there, then `make exercise STEP=NN EX=K`
    grades it" becomes a pointer to the exercise's own starter, which holds
    the step and the exercise's grader (`make starter STEP=NN EX=K`).
Any other mention of those commands left over stops it, naming the line,
so the text cannot drift from what this rewrites. DOC is rewritten in
place; prints how many commands it rewrote.
"""
import pathlib
import re
import sys


def rewrite(text, step, prev):
    """(text, count): the rewritten text. Each rewrite goes in as a token
    first, so that what is left of the commands can be found, then the
    tokens become their text."""
    num = step[:2]
    tokens = []

    def token(new):
        tokens.append(new)
        return "\x00%d\x00" % (len(tokens) - 1)

    text = re.sub(r"run `make workspace STEP=%s`: it creates" % num,
                  lambda m: token("use the workspace this starter holds (`make workspace STEP=%s` made it\n"
                                  "in the project):" % num), text)
    if prev:
        text = re.sub(r"make diff STEP=%s(\s+)# everything this chapter added to (?:step %s|the step before it)"
                      % (num, prev[:2]),
                      lambda m: token("diff -ru steps/%s workspace/%s%s# what your workspace changes of step %s"
                                      % (prev, step, m.group(1), prev[:2])), text)
        text = re.sub(r"`make diff STEP=%s`" % num,
                      lambda m: token("`diff -ru steps/%s workspace/%s`" % (prev, step)), text)
    grade = re.compile(r"Grade it: `make workspace STEP=%s EX=(\d+)` copies the step to\s+`[^`]+`; make your"
                       r"\s+change there, then\s+`make exercise STEP=%s EX=\1` grades it" % (num, num))
    text = grade.sub(lambda m: token(
        "Grade it: this exercise comes as a starter of its own, which holds the step to\n"
        "   change and the exercise's grader (`make starter STEP=%s EX=%s DEST=dir`, run\n"
        "   in the project); `make exercise STEP=%s EX=%s` there grades it" % (num, m.group(1), num, m.group(1))),
        text)
    for i, line in enumerate(text.splitlines(), 1):
        if re.search(r"make (diff|workspace|exercise) STEP=%s\b" % num, line):
            sys.exit("starter_text.py: %s line %d names a command a starter cannot run: %s"
                     % (step, i, line.strip()))
    text = re.sub("\x00([0-9]+)\x00", lambda m: tokens[int(m.group(1))], text)
    return text, len(tokens)


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    path, step, prev = pathlib.Path(argv[1]), argv[2], (argv[3] if len(argv) == 4 else "")
    text, count = rewrite(path.read_text(), step, prev)
    path.write_text(text)
    print("%s: %d commands rewritten for a starter" % (path, count))


if __name__ == "__main__":
    main(sys.argv)
