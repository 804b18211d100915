#!/usr/bin/env python3
"""stages.py -- the stages of each chapter's grader, read from
tests/NN-name/stages and from the names of the tests in tests/NN-name/*.bats.

    stages.py list STEP        every stage of chapter STEP and every check in it
    stages.py step STEP        the step's full name: 5 -> 05-active-sampling
    stages.py plan STEP        for grade.sh: one line per stage, the fields
                               id points what section anchor units files,
                               separated by the ASCII unit separator (0x1f)
    stages.py markdown STEP    the chapter's "What the grader checks" section
    stages.py check            every chapter: each test belongs to a stage,
                               each stage has checks, each section exists, and
                               the chapter's section reads as `markdown` prints
    stages.py update           rewrite that section in every chapter

A stage's checks are the unit tests it names (their START_TEST functions) and
the tests whose names start with its id ("01-3 pipelined ..."). After the
chapter's own stages comes one more: the suites of every earlier chapter.
Each stage carries points, 100 in all per chapter: the only place they are
set. The class grader and GitHub Classroom's files read them from here, and
`check` holds the chapter's section and the instructors' guide to them.
Unit tests are named by their binary, comma-separated: test_resp (from
tests/unit/test_resp.c), 02-get-set/unit_dict (tests/02-get-set/unit_dict.c),
and, for one test case of it (a tcase_create() group; grade.sh runs it alone
with Check's CK_RUN_CASE), 02-get-set/unit_dict:rehash.
"""
import pathlib
import re
import sys

from step_name import step_name, steps  # the one resolver of STEP=NN

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADING = "## What the grader checks"
TEST_NAME = re.compile(r'^@test "((?:[^"\\]|\\.)*)"', re.M)


def anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def unit_source(unit):
    """build/unit/test_resp <- tests/unit/test_resp.c; NN-name/unit_x <- tests/NN-name/unit_x.c"""
    unit = unit.split(":")[0]
    return ROOT / "tests" / (unit + ".c" if "/" in unit else "unit/%s.c" % unit)


def unit_case(unit):
    """The test case a unit names after ':', or None for all of them."""
    return unit.split(":", 1)[1] if ":" in unit else None


def unit_checks(unit):
    src = unit_source(unit).read_text()
    case = unit_case(unit)
    if case is None:
        names = re.findall(r"START_TEST\((\w+)\)", src)
    else:
        var = re.search(r"TCase \*(\w+) = tcase_create\(\"%s\"\)" % re.escape(case), src)
        names = re.findall(r"tcase_add_test\(%s, (\w+)\)" % var.group(1), src) if var else []
    return [n.replace("_", " ") for n in names]


def bats_tests(step):
    tests = []
    for f in sorted((ROOT / "tests" / step).glob("*.bats")):
        for name in TEST_NAME.findall(f.read_text()):
            tests.append((f, re.sub(r"\\(.)", r"\1", name)))
    return tests


def read_stages(step):
    path = ROOT / "tests" / step / "stages"
    stages = []
    earlier_points = None
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) == 2 and fields[0] == "earlier":
            earlier_points = points_of(path, fields[1])
            continue
        if len(fields) != 5:
            sys.exit("%s: want 5 fields separated by |, got: %s" % (path, line))
        sid, what, section, units, points = fields
        stage = {"id": sid, "what": what, "section": section,
                 "units": [u.strip() for u in units.split(",") if u.strip()],
                 "points": points_of(path, points), "tests": [], "files": []}
        for f, name in bats_tests(step):
            if name.startswith(sid + " "):
                stage["tests"].append(name[len(sid) + 1:])
                if f not in stage["files"]:
                    stage["files"].append(f)
        stages.append(stage)
    earlier = [s for s in steps() if s < step and list((ROOT / "tests" / s).glob("*.bats"))]
    if bool(earlier) != (earlier_points is not None):
        sys.exit('%s: want a line "earlier | POINTS" exactly when there are earlier chapters' % path)
    if earlier:
        n = len(stages) + 1
        first, last = earlier[0][:2], earlier[-1][:2]
        span = first if first == last else "%s to %s" % (first, last)
        stages.append({"id": "%s-%d" % (step[:2], n),
                       "what": "every check of chapter%s %s still passes" % ("" if first == last else "s", span),
                       "section": "", "units": [], "earlier": earlier, "points": earlier_points,
                       "tests": ["the %d tests of %s" % (len(bats_tests(s)), s) for s in earlier],
                       "files": [f for s in earlier for f in sorted((ROOT / "tests" / s).glob("*.bats"))]})
    return stages


def points_of(path, text):
    if not re.fullmatch(r"[0-9]+", text):
        sys.exit("%s: points must be a whole number, got: %s" % (path, text))
    return int(text)


def doc_path(step):
    return ROOT / "docs" / (step + ".md")


def list_stages(step):
    doc = doc_path(step).relative_to(ROOT)
    for st in read_stages(step):
        where = ' (%s, "%s")' % (doc, st["section"]) if st["section"] else ""
        print("%s  (%d points) %s%s" % (st["id"], st["points"], st["what"], where))
        for unit in st["units"]:
            for name in unit_checks(unit):
                print("      unit %s: %s" % (unit.split("/")[-1], name))
        for name in st["tests"]:
            print("      %s" % name)


def plan(step):
    for st in read_stages(step):
        files = " ".join(str(f.relative_to(ROOT)) for f in st["files"])
        print("\x1f".join([st["id"], str(st["points"]), st["what"], st["section"],
                           anchor(st["section"]) if st["section"] else "", ",".join(st["units"]), files]))


def markdown(step):
    num = step[:2]
    stages = read_stages(step)
    earlier = [st for st in stages if st.get("earlier")]
    out = [HEADING, "",
           "`make grade STEP=%s` runs these stages in order and stops at the first one that fails. "
           "A failing check prints the command it sent, the reply it expected and the reply it received. "
           "`make grade STEP=%s LIST=1` prints this list. "
           "A class is graded stage by stage, for the points given here (100 in all)%s."
           % (num, num, "; the last stage's points count only when at least one of the chapter's own stages passes" if earlier else ""), ""]
    for st in stages:
        where = " ([%s](#%s))" % (st["section"], anchor(st["section"])) if st["section"] else ""
        out.append("- **%s** (%d points) %s%s" % (st["id"], st["points"], st["what"], where))
        for unit in st["units"]:
            case = ' (test case "%s")' % unit_case(unit) if unit_case(unit) else ""
            out.append("  - unit tests in `%s`%s: %s" % (unit_source(unit).relative_to(ROOT), case,
                                                         ", ".join(unit_checks(unit))))
        for name in st["tests"]:
            out.append("  - %s" % name.replace("*", r"\*"))
    return "\n".join(out) + "\n"


def split_doc(text):
    """(before, section, after) around the grader's section, or None."""
    start = text.find("\n" + HEADING + "\n")
    if start < 0:
        return None
    start += 1
    nxt = re.search(r"^## ", text[start + len(HEADING):], re.M)
    end = start + len(HEADING) + nxt.start() if nxt else len(text)
    return text[:start], text[start:end], text[end:]


def check():
    problems = []
    for step in steps():
        if not (ROOT / "tests" / step / "stages").exists():
            problems.append("tests/%s/stages is missing" % step)
            continue
        stages = read_stages(step)
        ids = {st["id"] for st in stages}
        for f, name in bats_tests(step):
            sid = name.split(" ")[0]
            if sid not in ids:
                problems.append('%s: test "%s" does not start with a stage id (%s)'
                                % (f.relative_to(ROOT), name, ", ".join(sorted(ids))))
        doc = doc_path(step)
        text = doc.read_text()
        headings = {anchor(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}
        for st in stages:
            if not st["tests"] and not st["units"]:
                problems.append("stage %s has no checks" % st["id"])
            if st["section"] and anchor(st["section"]) not in headings:
                problems.append('stage %s: %s has no section "%s"' % (st["id"], doc.relative_to(ROOT), st["section"]))
            for unit in st["units"]:
                if not unit_source(unit).exists():
                    problems.append("stage %s: no %s" % (st["id"], unit_source(unit).relative_to(ROOT)))
                elif not unit_checks(unit):
                    problems.append('stage %s: %s has no test case "%s" with tests'
                                    % (st["id"], unit_source(unit).relative_to(ROOT), unit_case(unit)))
        total = sum(st["points"] for st in stages)
        if total != 100:
            problems.append("tests/%s/stages: the points add up to %d, not 100" % (step, total))
        problems += guide_problems(step, stages)
        parts = split_doc(text)
        if parts is None:
            problems.append('%s has no "%s" section' % (doc.relative_to(ROOT), HEADING))
        elif parts[1].rstrip() != markdown(step).rstrip():
            problems.append('%s: the "What the grader checks" section differs from the grader; '
                            "make grade-docs rewrites it" % doc.relative_to(ROOT))
    for p in problems:
        print(p)
    return 1 if problems else 0


GUIDE = ROOT / "docs" / "instructors.md"


def guide_points(step):
    """{stage id: points} from the guide's "Stages and points:" of chapter STEP."""
    text = GUIDE.read_text()
    m = re.search(r"^### Chapter %s:.*?^- \*\*Stages and points:\*\*(.*?)(?=^- \*\*|^#)" % step[:2],
                  text, re.M | re.S)
    if not m:
        return None
    return {sid: int(p) for sid, p in re.findall(r"\b(%s-[0-9]+)\b[^;]*?([0-9]+)(?=[;.]\s)" % step[:2],
                                                    m.group(1) + " ")}


def guide_problems(step, stages):
    want = {st["id"]: st["points"] for st in stages}
    got = guide_points(step)
    if got is None:
        return ['docs/instructors.md has no "Stages and points:" for chapter %s' % step[:2]]
    if got != want:
        return ["docs/instructors.md, chapter %s's stages and points: %s, where tests/%s/stages gives %s"
                % (step[:2], fmt_points(got), step, fmt_points(want))]
    return []


def fmt_points(points):
    return ", ".join("%s %d" % kv for kv in sorted(points.items(), key=lambda kv: int(kv[0][3:])))


def update():
    for step in steps():
        if not (ROOT / "tests" / step / "stages").exists():
            continue
        doc = doc_path(step)
        text = doc.read_text()
        parts = split_doc(text)
        if parts is None:
            # A new section goes before the exercises.
            at = text.find("\n## Exercises\n")
            at = at + 1 if at >= 0 else len(text)
            parts = (text[:at], "", text[at:])
        doc.write_text(parts[0] + markdown(step) + "\n" + parts[2])


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd in ("step", "list", "plan", "markdown") and len(sys.argv) == 3:
        step = step_name(sys.argv[2])
        {"step": print, "list": list_stages, "plan": plan,
         "markdown": lambda s: print(markdown(s), end="")}[cmd](step)
        return 0
    if cmd == "check":
        return check()
    if cmd == "update":
        update()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
