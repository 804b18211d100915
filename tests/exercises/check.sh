#!/usr/bin/env bash
# check.sh -- checks the exercise graders themselves.
#
# A grader (tests/exercises/NN-name/exK.bats) is only worth assigning if it
# tells a solution from no solution. For every grader this script checks:
#
#   1. its reference solution, docs/solutions/NN-name-exK.patch, applies
#      cleanly (no fuzz, as `git apply` needs) to a copy of steps/NN-name
#      under build/exercise-check/, and builds with the Makefile's flags;
#   2. the grader passes against that build;
#   3. the grader fails against the unmodified step, build/NN-name/server
#      (built here if missing): every test runs and at least one fails. A
#      grader that passes there grades nothing;
#   4. the grader passes against a real redis-server, when the exercise is a
#      Redis feature (its header has the line "# reference: redis-server")
#      and redis-server is installed; otherwise this check is skipped. It is
#      also reported as skipped when the grader skipped every one of its
#      tests there (a feature newer than the installed Redis, such as
#      chapter 07's DELEX of Redis 8.4), and the tests skipped are counted.
#
# With arguments (chapters: 09, or 09-replication), only their graders are
# checked.
#
# Output is TAP: the plan "1..N", then "ok N - what", "not ok N - what" or
# "ok N - what # skip why", with a failing grader's output as "#" lines, and a
# last "# N checks of N graders, N failed" line. Exits 1 if any check failed.
#
# The compiler, flags, back end and libraries are the Makefile's: this script
# asks `make print-build-vars` for them, so CC, CFLAGS, POLL=1 and WERROR=1
# work as they do for make. Environment: BUILD (where the unmodified
# servers are; default build), JOBS (graders checked at once; default 2),
# NO_REFERENCE=1 (skip check 4). The graders run natively, never under
# valgrind or the sanitizers: they check behaviour, which the step suites
# already check under both.
set -u
cd "$(dirname "$0")/../.." || exit 2

BUILD=${BUILD:-build}
WORK=build/exercise-check
JOBS=${JOBS:-2}
unset VALGRIND SANITIZED

# build_vars [STEP]: set CC, CFLAGS, COMMON_SRC and, for STEP, STEP_CFLAGS
# (its name) and STEP_LIBS (its libraries), from the Makefile.
build_vars() {
    local vars
    vars=$(make -s --no-print-directory print-build-vars ${1:+STEP="$1"}) || return 1
    eval "$vars"
}

graders=$(find tests/exercises -path 'tests/exercises/[0-9][0-9]-*/ex[0-9]*.bats' | sort)
# check.sh NN ...: only those chapters' graders (09, or 09-replication).
if [ $# -gt 0 ]; then
    graders=$(for nn in "$@"; do grep -E "^tests/exercises/${nn}(-[a-z0-9-]+)?/" <<<"$graders"; done)
    [ -n "$graders" ] || { echo "check.sh: no graders for chapter(s) $*" >&2; exit 2; }
fi
count=$(grep -c . <<<"$graders")
echo "1..$((count * 4))"

# ok / not_ok / skip DESCRIPTION [WHY]: one TAP line, numbered by $n.
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # skip $2"; }
diag() { sed -e 's/^/#   /' | head -"${1:-40}"; }

# ---- Building ---------------------------------------------------------------
# common/ is compiled once, with the flags and back end the Makefile uses;
# each server then compiles only its step's files and links these objects.
build_common() {
    rm -rf "$WORK/common" && mkdir -p "$WORK/common" # no stale objects of another build
    # shellcheck disable=SC2034 # build_vars sets them all; this uses some
    local CC CFLAGS PROJECT_CFLAGS COMMON_SRC STEP_CFLAGS STEP_LIBS src pids=() status=0
    build_vars || return 1
    for src in $COMMON_SRC; do
        # shellcheck disable=SC2086 # CFLAGS is a list of flags
        $CC $CFLAGS -Icommon -c "$src" -o "$WORK/common/$(basename "${src%.c}").o" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || status=1; done
    return $status
}

# build_step DIR STEP: compile DIR/*.c with common/ into DIR/server, as the
# Makefile builds steps/STEP. A step that holds its own copy of a common/
# file links common/'s other files, compiled for it (STEP_COMMON_SRC), in
# place of the objects build_common() made.
build_step() {
    # shellcheck disable=SC2034 # build_vars sets them all; this uses some
    local dir=$1 step=$2 CC CFLAGS PROJECT_CFLAGS COMMON_SRC STEP_CFLAGS STEP_LIBS STEP_INC STEP_COMMON_SRC common
    build_vars "$step" || return 1
    common=("$WORK"/common/*.o)
    # shellcheck disable=SC2206 # the list is file names without spaces
    [ "$STEP_INC" = -Icommon ] || common=($STEP_COMMON_SRC)
    # shellcheck disable=SC2086 # the flags are lists; STEP_LIBS may be empty
    $CC $CFLAGS $STEP_CFLAGS $STEP_INC -I"$dir" "$dir"/*.c "${common[@]}" -o "$dir/server" $STEP_LIBS
}

# copy_step STEP DIR: a fresh copy of the step's sources in DIR.
copy_step() {
    rm -rf "$2" && mkdir -p "$2" && cp "steps/$1"/*.c "steps/$1"/*.h "$2"/
}

# ---- Running a grader -----------------------------------------------------------
# run_grader SERVER SUITE: bats --tap; sets out, status, planned, passed,
# notok and skipped (the passed tests that were skipped).
run_grader() {
    out=$(SERVER="$1" timeout 300 bats --tap "$2" 2>&1)
    status=$?
    planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out" | head -1)
    planned=${planned:-0}
    passed=$(grep -cE '^ok [0-9]+' <<<"$out")
    notok=$(grep -cE '^not ok [0-9]+' <<<"$out")
    skipped=$(grep -cE '^ok [0-9]+ .*# skip' <<<"$out")
}

# Passed: every planned test ran, none failed, and the server stopped cleanly.
grader_passed() {
    [ "$status" -eq 0 ] && [ "$planned" -gt 0 ] && [ "$passed" -eq "$planned" ] && [ "$notok" -eq 0 ]
}

# Failed as a grader should: every test ran (so the server started and the
# failures are about behaviour, not a crash or a missing binary) and at least
# one failed.
grader_rejected() {
    [ "$planned" -gt 0 ] && [ $((passed + notok)) -eq "$planned" ] && [ "$notok" -gt 0 ]
}

# ---- The four checks of one grader --------------------------------------------
# check_grader INDEX SUITE: TAP lines numbered from 4*INDEX+1.
check_grader() {
    local n=$((4 * $1)) suite=$2
    local step ex name patchfile dir unmodified built=0 log
    local out status planned passed notok skipped
    step=$(basename "$(dirname "$suite")")
    ex=$(basename "$suite" .bats)
    name="$step $ex"
    patchfile="docs/solutions/$step-$ex.patch"
    dir="$WORK/$step-$ex"

    # A starter repository for students has no solutions, and may stop
    # before this grader's step: nothing to check it against.
    local why=""
    [ -d "steps/$step" ] || why="no steps/$step here"
    [ -d docs/solutions ] || why="no docs/solutions here"
    if [ -n "$why" ]; then
        skip "$name: the solution builds" "$why"
        skip "$name: grader passes against the solution" "$why"
        skip "$name: grader fails against the unmodified step" "$why"
        skip "$name: grader passes against redis-server" "$why"
        return 0
    fi

    # 1. The solution applies and builds.
    if [ -n "$setup_error" ]; then
        not_ok "$name: the solution builds"
        echo "$setup_error" | diag
    elif [ ! -f "$patchfile" ]; then
        not_ok "$name: $patchfile exists"
    else
        copy_step "$step" "$dir"
        if ! log=$(patch -d "$dir" -p3 --batch --fuzz=0 --no-backup-if-mismatch <"$patchfile" 2>&1); then
            not_ok "$name: $patchfile applies to steps/$step"
            echo "$log" | diag
        elif ! log=$(build_step "$dir" "$step" 2>&1); then
            not_ok "$name: the solution builds with the Makefile's flags"
            echo "$log" | diag
        else
            built=1
            ok "$name: $patchfile applies to steps/$step and builds"
        fi
    fi

    # 2. The grader passes against the solution.
    if [ "$built" = 1 ]; then
        run_grader "$(pwd)/$dir/server" "$suite"
        if grader_passed; then
            ok "$name: grader passes against the solution ($passed tests)"
        else
            not_ok "$name: grader passes against the solution"
            grep -vE '^ok ' <<<"$out" | diag
        fi
    else
        skip "$name: grader passes against the solution" "no solution was built"
    fi

    # 3. The grader fails against the unmodified step.
    unmodified="$BUILD/$step/server"
    if [ ! -x "$unmodified" ] && [ -z "$setup_error" ]; then
        copy_step "$step" "$WORK/$step-unmodified"
        build_step "$WORK/$step-unmodified" "$step" >/dev/null 2>&1 &&
            unmodified="$WORK/$step-unmodified/server"
    fi
    if [ ! -x "$unmodified" ]; then
        not_ok "$name: grader fails against the unmodified step"
        echo "no server for steps/$step: run make" | diag
    else
        run_grader "$(realpath "$unmodified")" "$suite"
        if grader_rejected; then
            ok "$name: grader fails against the unmodified step ($notok of $planned tests fail)"
        else
            not_ok "$name: grader fails against the unmodified step"
            echo "expected every test to run and one at least to fail;" \
                "got $passed ok and $notok not ok of $planned" | diag
            grep -vE '^ok ' <<<"$out" | diag 20
        fi
    fi

    # 4. The grader passes against a real Redis, for a Redis feature.
    if ! grep -q '^# reference: redis-server' "$suite"; then
        skip "$name: grader passes against redis-server" "not a Redis feature"
    elif [ -n "${NO_REFERENCE:-}" ]; then
        skip "$name: grader passes against redis-server" "NO_REFERENCE is set"
    elif ! command -v redis-server >/dev/null; then
        skip "$name: grader passes against redis-server" "redis-server is not installed"
    else
        run_grader redis-server "$suite"
        if grader_passed && [ "$skipped" -eq "$passed" ]; then
            skip "$name: grader passes against redis-server" \
                "all $passed tests skipped there: $(sed -n 's/^ok [0-9]* .*# skip //p' <<<"$out" | head -1)"
        elif grader_passed && [ "$skipped" -gt 0 ]; then
            ok "$name: grader passes against redis-server ($((passed - skipped)) tests, $skipped skipped)"
        elif grader_passed; then
            ok "$name: grader passes against redis-server ($passed tests)"
        else
            not_ok "$name: grader passes against redis-server"
            grep -vE '^ok ' <<<"$out" | diag
        fi
    fi
    return 0
}

# ---- Main ---------------------------------------------------------------------
setup_error=""
if ! command -v patch >/dev/null; then
    setup_error="patch(1) is not installed: apt-get install patch"
elif ! log=$(build_common 2>&1); then
    setup_error="common/ does not build: $log"
fi

# Graders are independent (each starts its own servers on free ports), so
# JOBS of them are checked at once; their lines are printed in order.
rm -rf "$WORK/results" && mkdir -p "$WORK/results"
i=0 running=0
for suite in $graders; do
    check_grader "$i" "$suite" >"$WORK/results/$i.tap" 2>&1 &
    i=$((i + 1)) running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        # wait -n (one job) needs bash 4.3; older bash (macOS's) waits for all.
        if wait -n 2>/dev/null; then running=$((running - 1)); else wait && running=0; fi
    fi
done
wait
for ((j = 0; j < i; j++)); do cat "$WORK/results/$j.tap"; done

failed=$(cat "$WORK/results/"*.tap 2>/dev/null | grep -c '^not ok ')
echo "# $((count * 4)) checks of $count graders, $failed failed"
[ "$failed" -eq 0 ]
