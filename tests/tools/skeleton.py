#!/usr/bin/env python3
"""skeleton.py -- a C file with its function bodies taken out: what the
learner's workspace holds for the files a chapter teaches (make workspace
STEP=01 or 02; tests/tools/workspace.sh calls it).

    skeleton.py [--given NAME,NAME...] [--unchanged-from OLD] DOC SRC DEST

DEST keeps everything of SRC that is not inside a function: the includes,
the types, the macros, the static tables and constants, every signature and
the comment above it (the function's contract). Each body becomes one call to
panic() (common/panic.h, declared _Noreturn, so a stub of a function that
returns a value compiles without a warning), which names the function, the
file and the chapter DOC to read, and aborts. Static helpers are stubbed the
same way: the learner sees their shape and may write them or others.

The functions named with --given stay whole: code the chapter uses but does
not teach (chapter 02's SipHash); each name must exist, so the
list cannot go stale silently. With --unchanged-from, every function whose
body is the same in OLD (the file in the step before) stays whole too: for a
file a chapter changes, only what the chapter adds or changes is stubbed. A
file where that leaves nothing to stub is written whole.

The file is read the way it is written (clang-formatted C): comments,
strings, character literals and preprocessor lines are skipped, and a brace
block at file level is a function body when the declaration before it ends
with ")" and has no "=" (else it is a type or an initialiser, kept whole).
Anything else fails loudly, naming the file and line: unbalanced braces or
#if/#endif, an unterminated comment or string, a block it cannot classify,
or a file without a single function to strip.
"""
import pathlib
import re
import sys

IDENT_BEFORE_PARAMS = re.compile(r"([A-Za-z_]\w*)\s*$")


class SkeletonError(Exception):
    pass


def line_of(src, pos):
    return src.count("\n", 0, pos) + 1


def skip_comment(src, i, path):
    """src[i:] starts a comment; return the index just past it."""
    if src.startswith("//", i):
        j = src.find("\n", i)
        return len(src) if j == -1 else j
    j = src.find("*/", i + 2)
    if j == -1:
        raise SkeletonError("%s:%d: unterminated comment" % (path, line_of(src, i)))
    return j + 2


def skip_literal(src, i, path):
    """src[i] opens a string or character literal; return the index past it."""
    quote, j = src[i], i + 1
    while j < len(src):
        if src[j] == "\\":
            j += 2
            continue
        if src[j] == quote:
            return j + 1
        if src[j] == "\n":
            break
        j += 1
    raise SkeletonError("%s:%d: unterminated literal" % (path, line_of(src, i)))


def skip_directive(src, i, path):
    """src[i] is the '#' of a preprocessor line; return (end, text)."""
    j = i
    while j < len(src):
        if src.startswith("/*", j):
            j = skip_comment(src, j, path)
            continue
        if src[j] == "\n" and src[j - 1] != "\\":
            break
        j += 1
    return j, src[i:j]


def function_name(decl, path, pos, src):
    """The identifier before the parameter list, the last (...) of decl."""
    depth = 0
    for k in range(len(decl) - 1, -1, -1):
        if decl[k] == ")":
            depth += 1
        elif decl[k] == "(":
            depth -= 1
            if depth == 0:
                m = IDENT_BEFORE_PARAMS.search(decl[:k])
                if m:
                    return m.group(1)
                break
    raise SkeletonError("%s:%d: cannot find the function's name in: %s"
                        % (path, line_of(src, pos), " ".join(decl.split())))


class Conditions:
    """The #if nesting at a point of the file, checked to be balanced."""

    def __init__(self):
        self.stack = []  # [condition, in its #if branch (not #else)]

    def directive(self, text, path, line):
        words = text[1:].split()
        if not words:
            return
        kind, rest = words[0], " ".join(words[1:]).split("/*")[0].strip()
        if kind in ("if", "ifdef", "ifndef"):
            self.stack.append([rest if kind == "if" else kind + " " + rest, True])
        elif kind in ("else", "elif"):
            if not self.stack:
                raise SkeletonError("%s:%d: #%s without #if" % (path, line, kind))
            self.stack[-1] = [rest if kind == "elif" else self.stack[-1][0], kind == "elif"]
        elif kind == "endif":
            if not self.stack:
                raise SkeletonError("%s:%d: #endif without #if" % (path, line))
            self.stack.pop()


def find_functions(src, path, data=None):
    """[(name, open_brace, close_brace)] for every function defined.
    Given a list as data, appends (declaration, open_brace, close_brace) to
    it for each type or initialised table at file level."""
    functions, decl, depth, i = [], [], 0, 0
    data_decl = None  # (declaration, open brace) of the data block being skipped
    conds = Conditions()
    current = None  # (name, open) of the function being skipped, or "data"
    at_line_start = True
    while i < len(src):
        c = src[i]
        if at_line_start and c == "#":
            end, text = skip_directive(src, i, path)
            conds.directive(text, path, line_of(src, i))
            i = end
            continue
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        if src.startswith("//", i) or src.startswith("/*", i):
            i = skip_comment(src, i, path)
            continue
        if c in "\"'":
            j = skip_literal(src, i, path)
            if depth == 0:
                decl.append(src[i:j])
            i = j
            continue
        if c == "{":
            if depth == 0:
                text = "".join(decl).strip()
                if text.endswith(")") and "=" not in text:
                    current = (function_name(text, path, i, src), i)
                elif "=" in text or re.search(r"\b(struct|union|enum)\b", text):
                    current, data_decl = "data", (text, i)
                else:
                    raise SkeletonError("%s:%d: a block that is neither a function nor data "
                                        "follows: %s" % (path, line_of(src, i), " ".join(text.split())))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                raise SkeletonError("%s:%d: unbalanced '}'" % (path, line_of(src, i)))
            if depth == 0 and current != "data":
                name, open_at = current
                functions.append((name, open_at, i))
                decl, current = [], None
            elif depth == 0:
                decl.append("}")
                if data is not None:
                    data.append((data_decl[0], data_decl[1], i))
        elif depth == 0:
            if c == ";":
                decl, current = [], None
            else:
                decl.append(c)
        i += 1
    if depth != 0:
        raise SkeletonError("%s: %d unclosed '{' at the end" % (path, depth))
    if conds.stack:
        raise SkeletonError("%s: #if without #endif" % path)
    return functions


def stub(name, file_name, doc):
    return '{\n    panic("not written yet: %s() in %s, see %s");\n}' % (name, file_name, doc)


def include_panic(out, first_function_at):
    """Add #include "panic.h" after the last #include before the first
    function, unless the file has it already."""
    if re.search(r'^#include "panic\.h"', out, re.M):
        return out
    last = None
    for m in re.finditer(r"^#include .*$", out[:first_function_at], re.M):
        last = m
    if last is None:
        raise SkeletonError("no #include before the first function: where would panic.h go?")
    line = '#include "panic.h" /* the stubs\' panic(); not needed once they are written */'
    return out[: last.end()] + "\n" + line + out[last.end():]


def bodies(src, path):
    """{name: body} of every function defined in src."""
    return {name: src[open_at:close_at + 1] for name, open_at, close_at in find_functions(src, path)}


def skeleton(src, path, doc, given=(), old=None):
    functions = find_functions(src, path)
    missing = set(given) - {f[0] for f in functions}
    if missing:
        raise SkeletonError("%s: no function %s to give whole" % (path, ", ".join(sorted(missing))))
    stripped = [f for f in functions if f[0] not in given]
    if old is not None:
        before = bodies(*old)
        stripped = [f for f in stripped if before.get(f[0]) != src[f[1]:f[2] + 1]]
        if not stripped:
            return src, []
    if not stripped:
        raise SkeletonError("%s: no function definition found: nothing to strip" % path)
    out, file_name = src, pathlib.Path(path).name
    for name, open_at, close_at in reversed(stripped):
        out = out[:open_at] + stub(name, file_name, doc) + out[close_at + 1:]
    first = out.find(stub(stripped[0][0], file_name, doc))
    out = include_panic(out, first)
    header = ("/* SKELETON for you to write: every function below that calls panic(\"not\n"
              " * written yet ...\") is yours to fill in, as %s explains. The\n"
              " * finished file is %s. */\n" % (doc, path))
    return header + out, [f[0] for f in stripped]


def main(argv):
    given, old = [], None
    if len(argv) > 2 and argv[1] == "--given":
        given = [n for n in argv[2].split(",") if n]
        argv = argv[:1] + argv[3:]
    if len(argv) > 2 and argv[1] == "--unchanged-from":
        old = (pathlib.Path(argv[2]).read_text(), argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) != 4:
        sys.exit("usage: skeleton.py [--given NAME,NAME...] [--unchanged-from OLD] DOC SRC DEST")
    doc, src_path, dest = argv[1:]
    src = pathlib.Path(src_path).read_text()
    try:
        out, names = skeleton(src, src_path, doc, given, old)
    except SkeletonError as e:
        sys.exit("skeleton.py: %s" % e)
    pathlib.Path(dest).write_text(out)
    print("%s: %d functions to write" % (dest, len(names)))


if __name__ == "__main__":
    main(sys.argv)
