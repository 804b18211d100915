#!/usr/bin/env python3
"""compile_commands.py -- write compile_commands.json for clangd.

    compile_commands.py CC "CFLAGS" > compile_commands.json

One entry per C file under common/, steps/*/, workspace/*/ and tests/, with
the include paths the Makefile uses, so "go to definition" works in every
step (each step sees common/ and its own directory; a workspace, its own
directory first), and, for a step's files, the step's name as the Makefile
passes it (-DSTEP_NAME="NN-name"). A step or workspace that holds its own
copy of a common/ file sees, in common/'s place, the copy of common/ the
Makefile makes for it (build/NN-name/common/, with its headers in place of
common's; make compile_commands.json makes those first).
"""
import glob
import json
import os
import shlex
import sys

root = os.getcwd()
cc, cflags = sys.argv[1], shlex.split(sys.argv[2])
entries = []


def add(path, includes, step=None):
    args = [cc] + cflags
    if step:
        args.append('-DSTEP_NAME="%s"' % step)
    args += ["-I" + i for i in includes] + ["-c", path]
    entries.append({"directory": root, "file": os.path.join(root, path), "arguments": args})


build = os.environ.get("BUILD", "build")


def common_of(d, copy):
    """Where the files of directory d find common/: common, or `copy` when d
    holds its own copy of a common/ file (the Makefile's own_copies)."""
    own = [f for f in glob.glob(d.rstrip("/") + "/*.[ch]") if os.path.exists("common/" + os.path.basename(f))]
    return copy if own else "common"


for f in sorted(glob.glob("common/*.c")):
    add(f, ["common"])
for d in sorted(glob.glob("steps/*/")):
    step = os.path.basename(d.rstrip("/"))
    for f in sorted(glob.glob(d + "*.c")):
        add(f, [common_of(d, "%s/%s/common" % (build, step)), d.rstrip("/")], step)
# A workspace's own headers come first; chapter 01's holds a copy of common/
# and sees nothing else, as workspace.mk builds it.
first = min((os.path.basename(p.rstrip("/")) for p in glob.glob("steps/[0-9][0-9]-*/") + glob.glob("workspace/[0-9][0-9]-*/")),
            default=None)
for d in sorted(glob.glob("workspace/*/")):
    step = os.path.basename(d.rstrip("/"))
    own_common = step == first
    for f in sorted(glob.glob(d + "*.c")):
        add(f, [d.rstrip("/")] + ([] if own_common else [common_of(d, "%s/workspace/%s/common" % (build, step))]), step)
for f in sorted(glob.glob("tests/unit/*.c")):
    add(f, ["common"])
for d in sorted(glob.glob("tests/[0-9][0-9]-*/")):
    step = os.path.basename(d.rstrip("/"))
    for f in sorted(glob.glob(d + "*.c")):
        add(f, [common_of("steps/" + step, "%s/%s/common" % (build, step)), "steps/" + step], step)
json.dump(entries, sys.stdout, indent=1)
print()
