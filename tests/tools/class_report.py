#!/usr/bin/env python3
"""class_report.py -- the reports of make grade-class (tests/tools/grade_class.sh).

    class_report.py junit GRADE_TXT JUNIT_DIR NAME   one student's junit.xml, on stdout
    class_report.py tables OUT TITLE NSTAGES         OUT/grades.csv, grades.md,
                                                     grades.html and summary.md
    class_report.py trail DEST STAGES                one student's trail.md, on stdout

junit: the JUnit files bats wrote, one per stage (JUNIT_DIR/ID/report.xml),
merged into one <testsuites>, each suite named after its stage; before them a
suite "stages" with one case per stage the grader reached, read from its
output, so that a stage of unit tests (which bats does not run) shows too.
trail: what the grader kept of one student (DEST is OUT/students/NAME): each
stage's time and result (STAGES: grade.sh's TRAIL_DIR/stages), the notes of
its result file, and links to its grade.txt, build.txt and servers' output.
tables: one row per student from OUT/students/NAME/result (key=value lines).
grades.csv is for other programs: the header CSV_COLUMNS, numbers in the
numeric columns (built 1 or 0; the stages as two columns), "\n" line ends.
grades.md, grades.html and summary.md are for people: COLUMNS, with "yes"
and "3/6", and in grades.md and grades.html a last column linking each
student's feedback files. A row whose fields contradict each other (all stages passed but a
first failing stage, more points than 100, ...) is refused here too, whatever
wrote it: its points become 0, its first failing "refused", and its note
says why.
"""
import csv
import html
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

COLUMNS = ["student", "builds", "stages", "points", "checks passed", "checks failed", "first failing",
           "seconds", "note"]
KEYS = ["student", "builds", "stages", "points", "passed", "failed", "first", "seconds", "note"]
CSV_COLUMNS = ["student", "built", "stages_passed", "stages_total", "points", "checks_passed", "checks_failed",
               "first_failing_stage", "seconds", "note"]
FIRST = KEYS.index("first")


def stage_suite(grade_txt):
    """A <testsuite name="stages">: each stage reached, passed or failed."""
    suite = ET.Element("testsuite", name="stages")
    text = pathlib.Path(grade_txt).read_text(errors="replace") if pathlib.Path(grade_txt).exists() else ""
    current = None
    for line in text.splitlines():
        m = re.match(r"stage (\S+) \([0-9]+ points\): (.*)", line)
        if m:
            current = ET.SubElement(suite, "testcase", classname="stages", name="%s %s" % m.groups())
        elif current is not None and re.match(r"Stage \S+ failed", line):
            ET.SubElement(current, "failure", message=line).text = text[-4000:]
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    return suite


def junit(grade_txt, junit_dir, name):
    root = ET.Element("testsuites", name=name)
    root.append(stage_suite(grade_txt))
    for report in sorted(pathlib.Path(junit_dir).glob("*/report.xml")):
        stage = report.parent.name
        try:
            tree = ET.parse(report).getroot()
        except ET.ParseError as e:
            bad = ET.SubElement(root, "testsuite", name=stage, tests="1", failures="1")
            case = ET.SubElement(bad, "testcase", classname=stage, name="JUnit report")
            ET.SubElement(case, "failure", message="unreadable report: %s" % e)
            continue
        suites = [tree] if tree.tag == "testsuite" else tree.findall("testsuite")
        for s in suites:
            s.set("name", "%s %s" % (stage, s.get("name", "")))
            root.append(s)
    for attr in ("tests", "failures", "errors", "skipped"):
        root.set(attr, str(sum(int(s.get(attr, "0") or 0) for s in root.findall("testsuite"))))
    ET.indent(root)
    sys.stdout.write('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n")


def trail(dest, stages):
    dest = pathlib.Path(dest)
    kv = dict(line.split("=", 1) for line in (dest / "result").read_text().splitlines() if "=" in line)
    out = ["# %s: what the grader kept" % kv.get("student", dest.name), "",
           "Stages %s, %s points, first failing %s, %s s in all." % (
               kv.get("stages"), kv.get("points"), kv.get("first"), kv.get("seconds")), ""]
    out += ["Notes: %s" % (kv.get("note") or "none: nothing was killed and no limit was reached."), ""]
    out += ["- [grade.txt](grade.txt): the grader's whole output", "- [build.txt](build.txt): the build"]
    lines = pathlib.Path(stages).read_text().splitlines() if pathlib.Path(stages).exists() else []
    if lines:
        out += ["", "| stage | seconds | result | servers' output |", "|---|---|---|---|"]
        for line in lines:
            stage, seconds, result = (line.split() + ["", "", ""])[:3]
            logs = sorted(p for p in (dest / "servers" / stage).glob("*") if p.is_file())
            links = ", ".join("[%s](servers/%s/%s)" % (p.name, stage, p.name) for p in logs) or "none"
            out.append("| %s | %s | %s | %s |" % (stage, seconds, result, links))
    return "\n".join(out) + "\n"


def feedback_links(student, html_links=False):
    files = [("trail", "trail.md"), ("grade", "grade.txt"), ("build", "build.txt")]
    if html_links:
        return " ".join('<a href="students/%s/%s">%s</a>' % (html.escape(student), f, t) for t, f in files)
    return " · ".join("[%s](students/%s/%s)" % (t, student, f) for t, f in files)


def rows(out):
    result = []
    for f in sorted(pathlib.Path(out, "students").glob("*/result")):
        kv = dict(line.split("=", 1) for line in f.read_text().splitlines() if "=" in line)
        result.append(refuse_contradiction([kv.get(k, "") for k in KEYS]))
    return result


def contradiction(row):
    """Why a row cannot be true, or None."""
    _, builds, stages, points, passed, failed, first, _, _ = row
    m = re.fullmatch(r"([0-9]+)/([0-9]+)", stages)
    if not m or not re.fullmatch(r"[0-9]+", points) or not passed.isdigit() or not failed.isdigit():
        return "stages, points or checks are not numbers"
    done, total = int(m.group(1)), int(m.group(2))
    if done > total:
        return "%d of %d stages passed" % (done, total)
    if int(points) > 100:
        return "%s points of 100" % points
    if (first == "none") != (done == total):
        return "%s stages passed, yet the first failing stage is %s" % (stages, first)
    if first == "none" and int(points) != 100:
        return "every stage passed, yet %s points" % points
    if first == "none" and int(failed) > 0:
        return "every stage passed, yet %s checks failed" % failed
    if builds != "yes" and (done or int(points)):
        return "did not build, yet %s stages and %s points" % (stages, points)
    return None


def refuse_contradiction(row):
    why = contradiction(row)
    if why and row[FIRST] != "refused":
        row = row[:]
        row[2] = "0/" + row[2].partition("/")[2] if "/" in row[2] else "0/0"
        row[3], row[FIRST] = "0", "refused"
        row[-1] = "refused: " + why
    return row


def csv_row(row):
    """A row of the friendly table as grades.csv's numbers: "yes" becomes 1,
    "3/6" becomes 3 and 6."""
    student, builds, stages, points, passed, failed, first, seconds, note = row
    stages_passed, _, stages_total = stages.partition("/")
    return [student, 1 if builds == "yes" else 0, stages_passed, stages_total, points, passed, failed, first,
            seconds, note]


def markdown_table(table):
    lines = ["| " + " | ".join(COLUMNS + ["feedback"]) + " |", "|" + "---|" * (len(COLUMNS) + 1)]
    lines += ["| " + " | ".join(r + [feedback_links(r[0])]) + " |" for r in table]
    return "\n".join(lines) + "\n"


def html_page(title, table):
    head = "".join("<th>%s</th>" % html.escape(c) for c in COLUMNS + ["feedback"])
    body = "".join("<tr>%s<td>%s</td></tr>\n" % ("".join("<td>%s</td>" % html.escape(v) for v in r),
                                                 feedback_links(r[0], html_links=True)) for r in table)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Grades: %s</title>\n"
            "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
            "td,th{border:1px solid #999;padding:3px 8px;text-align:left}</style></head>\n"
            "<body><h1>Grades: %s</h1>\n<table><tr>%s</tr>\n%s</table></body></html>\n"
            % (html.escape(title), html.escape(title), head, body))


def summary(title, nstages, table):
    n = len(table)
    builds = sum(1 for r in table if r[1] == "yes")
    full = sum(1 for r in table if r[FIRST] == "none")
    stuck = {}
    for r in table:
        if r[FIRST] != "none":
            stuck.setdefault(r[FIRST], []).append(r[0])
    out = ["# Grades: %s" % title, "",
           "%d submissions: %d build, %d pass all %d stages." % (n, builds, full, nstages), ""]
    if stuck:
        out += ["Where students stopped (the first stage that failed), most first:", "",
                "| first failing | students | who |", "|---|---|---|"]
        for stage, who in sorted(stuck.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            out.append("| %s | %d | %s |" % (stage, len(who), ", ".join(who)))
        out += ["", "`build`: the workspace does not compile; `timeout`: the grader was stopped; "
                "`refused`: the grader's output contradicts itself (the note in grades.md says how); "
                "otherwise a stage id of `make grade STEP=NN LIST=1`."]
    return "\n".join(out) + "\n"


def tables(out, title, nstages):
    table = rows(out)
    with open(pathlib.Path(out, "grades.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")  # lines as other Unix tools write them
        w.writerow(CSV_COLUMNS)
        w.writerows(csv_row(r) for r in table)
    pathlib.Path(out, "grades.md").write_text("# Grades: %s\n\n" % title + markdown_table(table))
    pathlib.Path(out, "grades.html").write_text(html_page(title, table))
    pathlib.Path(out, "summary.md").write_text(summary(title, int(nstages), table))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "junit":
        junit(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "trail":
        sys.stdout.write(trail(*sys.argv[2:]))
    elif len(sys.argv) == 5 and sys.argv[1] == "tables":
        tables(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
