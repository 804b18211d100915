#!/usr/bin/env bash
# classroom_check.sh -- checks make classroom on chapter 05.
#
# Writes GitHub Classroom's files into a starter for chapter 05 whose
# workspace holds the reference answer (steps/05-active-sampling), then:
# the JSON parses and has one test per stage, each worth its stage's points
# from tests/05-active-sampling/stages, 100 in all; the set-up installs only
# what make grade needs; every test's command passes there; the first and
# the last (earlier chapters, which earns nothing without one of the
# chapter's own) fail on the unchanged starter; the workflow runs
# education/autograding. Prints TAP. Takes about two minutes.
set -u
cd "$(dirname "$0")/../.." || exit 2
STEP=05-active-sampling
. tests/helpers/tap.sh # ok, not_ok, skip, check, diag; counts in n, failed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "1..9"
make -s --no-print-directory starter STEP=05 DEST="$tmp/unchanged" >/dev/null
git clone -q "$tmp/unchanged" "$tmp/reference"
rm -rf "$tmp/reference/workspace/$STEP" && cp -r "steps/$STEP" "$tmp/reference/workspace/$STEP"
make -s --no-print-directory classroom STEP=05 DEST="$tmp/reference" >/dev/null
json=$tmp/reference/.github/classroom/autograding.json

nstages=$(python3 tests/tools/stages.py plan "$STEP" | wc -l)
check "autograding.json parses: tests, points" "$nstages tests, 100 points" \
  "$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["tests"]; print("%d tests, %d points" % (len(t), sum(x["points"] for x in t)))' "$json" 2>&1)"
check "each test is worth its stage's points, as tests/$STEP/stages gives them" \
  "$(python3 tests/tools/stages.py plan "$STEP" | cut -d$'\x1f' -f1,2 | tr '\037' ' ')" \
  "$(python3 -c 'import json,sys; [print(t["name"].split()[0], t["points"]) for t in json.load(open(sys.argv[1]))["tests"]]' "$json" 2>&1)"
check "the first test's set-up installs what make grade needs, the others none" "sudo make check-grade-deps|" \
  "$(python3 -c 'import json,sys; print("|".join(sorted({t["setup"] for t in json.load(open(sys.argv[1]))["tests"]}, reverse=True)))' "$json" 2>&1)"
check "each test has the fields Classroom reads" "" \
  "$(python3 -c 'import json,sys
want = {"name", "setup", "run", "input", "output", "comparison", "timeout", "points"}
for t in json.load(open(sys.argv[1]))["tests"]:
    if set(t) != want: print(t.get("name"), sorted(set(t) ^ want))' "$json" 2>&1)"

# Every command, in the reference's starter: all pass.
mapfile -t runs < <(python3 -c 'import json,sys; [print(t["run"]) for t in json.load(open(sys.argv[1]))["tests"]]' "$json")
bad=""
for cmd in "${runs[@]}"; do
  (cd "$tmp/reference" && nice bash -c "$cmd" >"$tmp/out" 2>&1) || bad+="[$cmd: $(tail -1 "$tmp/out")] "
done
check "every test's command passes against the reference (${#runs[@]} commands)" "" "$bad"
check "a stage's command grades that stage only" "grade: stages 1/1" \
  "$(cd "$tmp/reference" && bash -c "${runs[0]}" 2>&1 | grep -o '^grade: stages [0-9]*/[0-9]*')"

# The first stage's command fails on the unchanged starter.
(cd "$tmp/unchanged" && bash -c "${runs[0]}" >"$tmp/out" 2>&1)
status=$?
check "the first test fails on the unchanged starter" "fails" "$([ "$status" -ne 0 ] && echo fails || echo "passes (status 0)")"
# The earlier chapters' test: their suites pass against the starter's
# server, but none of the chapter's own stages does, so no points.
(cd "$tmp/unchanged" && bash -c "${runs[-1]}" >"$tmp/out" 2>&1)
status=$?
check "the last test (earlier chapters) fails on the unchanged starter, saying why" "fails: not run" \
  "$([ "$status" -ne 0 ] && echo fails || echo "passes (status 0)"): $(grep -o 'not run' "$tmp/out" | head -1)"
check "the workflow runs education/autograding" 1 \
  "$(grep -c 'uses: education/autograding@v1' "$tmp/reference/.github/workflows/classroom.yml")"
echo "# $n checks, $failed failed"
[ "$failed" -eq 0 ]
