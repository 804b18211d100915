#!/usr/bin/env python3
"""step_name.py -- the one place that turns what a user types as STEP into a
step's name: "4", "04" and "04-expiry-lazy" all name 04-expiry-lazy.

    step_name.py [--steps-only] WANT   print the step's name; exit 2, with
                                       the list of steps, if there is none
    step_name.py --before WANT         print the name of the step before it
                                       (nothing for the first step)

The steps are the directories steps/NN-name/ that hold a main.c. A chapter
that exists only as a learner's workspace (workspace/NN-name/ with a main.c,
and tests/NN-name/, as in a starter repository) counts too, unless
--steps-only is given, for a tool that needs the step's own files (make diff,
make workspace, make exercise). Python tools import steps(),
workspace_steps(), step_name() and step_before(); shell tools run this file.
The Makefile resolves STEP the same way, in make itself (STEP_DIR).

Numbers may be missing from the sequence (a chapter still to be written):
the step before 12 is whichever step precedes it in steps/, 09 while 10 and
11 are not there, never the number minus one.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def steps():
    """The steps of steps/, in order."""
    return sorted(p.parent.name for p in ROOT.glob("steps/[0-9][0-9]-*/main.c"))


def workspace_steps():
    """Chapters that exist only as a learner's workspace (a starter repository)."""
    return sorted(p.parent.name for p in ROOT.glob("workspace/[0-9][0-9]-*/main.c")
                  if (ROOT / "tests" / p.parent.name).is_dir() and p.parent.name not in steps())


def find(want, steps_only=False):
    """The step WANT names ("4", "04", "04-expiry-lazy"), or None."""
    if re.fullmatch(r"[0-9]", want):
        want = "0" + want
    for s in steps() + ([] if steps_only else workspace_steps()):
        if want in (s, s.split("-")[0]):
            return s
    return None


def step_name(want, steps_only=False):
    """The step WANT names; exits with status 2 and the list if none does."""
    found = find(want, steps_only)
    if found is None:
        known = steps() + ([] if steps_only else workspace_steps())
        print("unknown step '%s' (steps: %s)" % (want, " ".join(known)), file=sys.stderr)
        sys.exit(2)
    return found


def step_before(step):
    """The step of steps/ before STEP (a name of steps()), or None for the
    first: the previous one there is, whatever its number."""
    earlier = [s for s in steps() if s < step]
    return earlier[-1] if earlier else None


def main(argv):
    steps_only = "--steps-only" in argv or "--before" in argv
    before = "--before" in argv
    args = [a for a in argv if a not in ("--steps-only", "--before")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    name = step_name(args[0], steps_only)
    if before:
        name = step_before(name)
        if name is not None:
            print(name)
        return 0
    print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
