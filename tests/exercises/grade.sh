#!/usr/bin/env bash
# grade.sh -- grade one exercise: run its acceptance suite against a server.
#
#   grade.sh STEP EX [SERVER]
#
#   STEP    the chapter: 4, 04 or 04-expiry-lazy
#   EX      the exercise's number in that chapter's "Exercises" section
#   SERVER  what to grade; make passes your exercise workspace's build
#           (workspace/NN-name-exK/, from make workspace STEP=NN EX=K) when it
#           exists, else the step's own build, build/NN-name/server (which
#           fails the grader: the exercise is not done there):
#             path/to/server  any server that takes --port N
#             redis-server    a real Redis, to see the behaviour to match
#
# `make exercise STEP=NN EX=K [SERVER=...]` calls this. Prints bats's TAP
# lines as the tests run (a failing test's "#" lines say what it sent, what
# it expected and what it received), then one verdict line; exits 0 only if
# every test passed.
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}

usage() {
    echo "usage: make exercise STEP=NN EX=K [SERVER=path|workspace|redis-server]" >&2
    echo "graders:" >&2
    for f in tests/exercises/[0-9][0-9]-*/ex*.bats; do
        [ -e "$f" ] || continue
        echo "  STEP=$(basename "$(dirname "$f")" | cut -c1-2) EX=$(basename "$f" .bats | tr -dc 0-9)  $(sed -n '2s/^# Grader for //p' "$f")" >&2
    done
    exit 2
}

want=${1:-}
ex=${2:-}
server=${3:-}
if [ -z "$want" ] || [ -z "$ex" ]; then usage; fi
ex=${ex#ex}

if ! step=$(python3 tests/tools/step_name.py --steps-only "$want"); then
    echo "grade: no step '$1'" >&2
    usage
fi

suite="tests/exercises/$step/ex$ex.bats"
if [ ! -f "$suite" ]; then
    echo "grade: chapter $step has no grader for exercise $ex." >&2
    echo "Exercises that add no command (a measurement, a question) have none:" >&2
    echo "see the chapter's Exercises section, docs/$step.md." >&2
    usage
fi

case "$server" in
"")
    server="$BUILD/$step/server"
    [ -x "$server" ] || { echo "grade: $server is missing: run make first" >&2; exit 2; }
    ;;
workspace)
    # make exercise builds the workspace and passes its binary's path.
    echo "grade: SERVER=workspace works through make: make exercise STEP=${step%%-*} EX=$ex" >&2
    exit 2
    ;;
redis-server) ;;
*)
    [ -x "$server" ] || { echo "grade: $server is not an executable" >&2; exit 2; }
    ;;
esac
[ "$server" = redis-server ] || server=$(realpath "$server")

echo "# exercise $ex of chapter $step ($suite) against $server"
# Through tee, so that each test's line (and a failure's exchange) shows as
# soon as it ran: some graders wait seconds for keys to expire.
log=$(mktemp "${TMPDIR:-/tmp}/grade.XXXXXX") || exit 2
trap 'rm -f "$log"' EXIT
SERVER="$server" bats --tap "$suite" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
out=$(cat "$log")
passed=$(grep -cE '^ok [0-9]+' <<<"$out")
failed=$(grep -cE '^not ok [0-9]+' <<<"$out")
skipped=$(grep -cE '^ok [0-9]+ .*# skip' <<<"$out")
if [ "$status" -eq 0 ] && [ "$failed" -eq 0 ]; then
    # Skipped tests are not passed ones: a real Redis older than the feature
    # (chapter 07's DELEX is Redis 8.4's) skips them all.
    if [ "$skipped" -gt 0 ]; then
        echo "exercise $step ex$ex: PASS ($((passed - skipped)) tests, $skipped skipped)"
    else
        echo "exercise $step ex$ex: PASS ($passed tests)"
    fi
else
    [ "$failed" -eq 0 ] && failed=1 # a failure outside a test: the server did not start or stop cleanly
    echo "exercise $step ex$ex: FAIL ($passed passed, $failed failed)"
    exit 1
fi
