#!/usr/bin/env python3
"""compile_commands.py -- write compile_commands.json for clangd.

    compile_commands.py CC "CFLAGS" > compile_commands.json

One entry per C file under common/, steps/*/, workspace/*/ and tests/, with
the include paths the Makefile uses, so "go to definition" works in every
step (each step sees common/ and its own directory; a workspace, its own
directory first), and, for a step's files, the step's name as the Makefile
passes it (-DSTEP_NAME="NN-name").
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


for f in sorted(glob.glob("common/*.c")):
    add(f, ["common"])
for d in sorted(glob.glob("steps/*/")):
    step = os.path.basename(d.rstrip("/"))
    for f in sorted(glob.glob(d + "*.c")):
        add(f, ["common", d.rstrip("/")], step)
# A workspace's own headers come first; chapter 01's holds a copy of common/
# (its net.h says so) and sees nothing else, as workspace.mk builds it.
for d in sorted(glob.glob("workspace/*/")):
    step = os.path.basename(d.rstrip("/"))
    own_common = os.path.exists(d + "net.h")
    for f in sorted(glob.glob(d + "*.c")):
        add(f, [d.rstrip("/")] + ([] if own_common else ["common"]), step)
for f in sorted(glob.glob("tests/unit/*.c")):
    add(f, ["common"])
for d in sorted(glob.glob("tests/[0-9][0-9]-*/")):
    step = os.path.basename(d.rstrip("/"))
    for f in sorted(glob.glob(d + "*.c")):
        add(f, ["common", "steps/" + step], step)
json.dump(entries, sys.stdout, indent=1)
print()
