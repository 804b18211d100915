#!/usr/bin/env bash
# classroom.sh -- GitHub Classroom's autograding files for one chapter.
#
#   classroom.sh NN [DEST]      (make classroom STEP=NN [DEST=dir])
#
# Writes, under DEST (default build/classroom/NN-name; give a starter
# repository to put them in it):
#   .github/classroom/autograding.json  one test per stage of the chapter's
#       grader, whose command is `make -s grade STEP=NN STAGE=NN-K`: it
#       passes when that stage passes (exit status 0). Its points are the
#       stage's, from tests/NN-name/stages (100 in all), as make grade-class
#       counts them. The first test's set-up installs what make grade needs
#       (make check-grade-deps), nothing more.
#   .github/workflows/classroom.yml     the workflow that runs them on every
#       push, with education/autograding.
# Each stage runs alone (STAGE=), so a student earns the points of every
# stage that passes, not only of those before the first failure.
set -eu
cd "$(dirname "$0")/../.."
want=${1:-}
[ -n "$want" ] || { echo "usage: make classroom STEP=NN [DEST=dir]" >&2; exit 2; }
step=$(python3 tests/tools/stages.py step "$want")
num=${step%%-*}
dest=${2:-build/classroom/$step}
mkdir -p "$dest/.github/classroom" "$dest/.github/workflows"

python3 tests/tools/stages.py plan "$step" | python3 -c '
import json, sys
num = sys.argv[1]
stages = [line.split("\x1f")[:3] for line in sys.stdin.read().splitlines() if line]
tests = []
for i, (sid, points, what) in enumerate(stages):
    tests.append({
        "name": "%s %s" % (sid, what),
        # The first test installs what make grade needs; the others find it there.
        "setup": "sudo make check-grade-deps" if i == 0 else "",
        "run": "make -s grade STEP=%s STAGE=%s" % (num, sid),
        "input": "",
        "output": "",
        "comparison": "included",
        "timeout": 10,
        "points": int(points),
    })
json.dump({"tests": tests}, sys.stdout, indent=2)
print()
' "$num" >"$dest/.github/classroom/autograding.json"

cat >"$dest/.github/workflows/classroom.yml" <<'EOF'
# GitHub Classroom's autograding: the tests of .github/classroom/autograding.json
# (one per stage of the chapter's grader, make classroom wrote them).
name: Autograding Tests
on: [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  autograding:
    name: Autograding
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: education/autograding@v1
EOF
echo "wrote $dest/.github/classroom/autograding.json ($(grep -c '"run"' "$dest/.github/classroom/autograding.json") tests) and $dest/.github/workflows/classroom.yml"
