#!/usr/bin/env bash
# grade.sh -- a chapter's grader: its stages in order, stopping at the first
# that fails, with the chapter's section to read. Run by make grade, which
# builds what it needs and sets:
#   SERVER    the server to grade (a path, or redis-server)
#   UNIT_DIR  where that server's unit tests were built (build/unit for the
#             project's steps, build/workspace/NN-name/unit for a workspace)
#   LIST=1    print the stages and their checks instead of running them
#   STAGE=NN-K  run only that stage (each stage starts its own servers, so it
#             stands alone; GitHub Classroom scores the stages one by one)
#   ALL=1     run every stage, even after one fails (the class grader: each
#             stage that passes earns its points)
#   JUNIT_DIR  also write bats's JUnit report of each stage, as
#             JUNIT_DIR/ID/report.xml (the class grader merges them)
#   STAGE_TIMEOUT  stop each unit-test binary and each run of a stage's
#             suites after that many seconds, and fail the stage
#   TRAIL_DIR  also keep a trail there (the class grader): a line per stage
#             in TRAIL_DIR/stages ("ID seconds passed|failed|not-run"), and
#             each server's output, capped, in TRAIL_DIR/ID/
# The stages are in tests/NN-name/stages; tests/tools/stages.py reads them.
# Each stage's count says how many checks passed, failed and were skipped
# (a test skipped by design: see tests/run.sh). The last line is for
# scripts: "grade: stages 3/6, points 55/100, checks 20 passed 1 failed,
# first failing 05-4" ("first failing none" when all passed; skipped checks
# are not "passed"). Each stage's points are in its stages file; the last
# stage, every earlier chapter's checks, earns its points only when at least
# one of the chapter's own stages passes, so a starter handed in unchanged
# scores 0.
#   grade.sh NN
set -u
cd "$(dirname "$0")/../.."
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
want=${1:-}
[ -n "$want" ] || { echo "usage: make grade STEP=NN [SERVER=path|workspace] [LIST=1]" >&2; exit 2; }
step=$("$PYTHON" tests/tools/stages.py step "$want") || exit 2
plan=$("$PYTHON" tests/tools/stages.py plan "$step") || exit 2
num=${step%%-*}
if [ -n "${LIST:-}" ]; then
  exec "$PYTHON" tests/tools/stages.py list "$want"
fi

if [ "${SERVER:-}" != redis-server ] && [ ! -x "${SERVER:-}" ]; then
  echo "grade: SERVER '${SERVER:-}' is not an executable file" >&2
  exit 2
fi
echo "grading chapter $num with $SERVER"

# bounded CMD...: CMD, stopped after STAGE_TIMEOUT seconds when that is set
# (status 124, or 137 when it had to be killed).
bounded() {
  if [ -n "${STAGE_TIMEOUT:-}" ]; then timeout -k 5 "$STAGE_TIMEOUT" "$@"; else "$@"; fi
}
timed_out() { # timed_out STATUS WHAT: say so when STATUS is bounded()'s
  [ "$1" = 124 ] || [ "$1" = 137 ] || return 1
  echo "  stopped: $2 ran past STAGE_TIMEOUT=$STAGE_TIMEOUT s"
}

# Check prints "100%: Checks: 7, Failures: 0, Errors: 0" and, per failure,
# "file.c:LINE:F:suite:test:0: message".
# A unit named NAME:CASE is one test case of NAME, run alone (CK_RUN_CASE).
# A workspace's unit test that did not build left the compiler's output in
# NAME.log beside it (workspace.mk): its first COMPILER_LINES lines are shown.
COMPILER_LINES=12
run_unit() {
  local bin=$UNIT_DIR/${1%%:*} case="" out
  [[ "$1" == *:* ]] && case=${1#*:}
  if [ ! -x "$bin" ]; then
    local unit=${1%%:*} src doc
    if [[ "$unit" == */* ]]; then src=tests/$unit.c; else src=tests/unit/$unit.c; fi
    doc=$(ls docs/"$num"-*.md 2>/dev/null | grep -v -- '-table.md' | head -1)
    echo "  unit tests $1: not built ($bin)"
    if [ -s "$bin.log" ]; then
      echo "    $src did not compile against the server's files; the compiler said:"
      head -"$COMPILER_LINES" "$bin.log" | sed 's/^/      /'
      [ "$(wc -l <"$bin.log")" -le "$COMPILER_LINES" ] || echo "      ... (all of it: $bin.log)"
    else
      echo "    $src did not compile against the server's files (the compiler said"
      echo "    why, above)."
    fi
    echo "    It calls what the chapter adds: \"Files this chapter changes\" in"
    echo "    ${doc:-the chapter} lists the files, (new) the ones to create."
    checks=$((checks + 1)) failed_checks=$((failed_checks + 1))
    return 1
  fi
  out=$(if [ -n "$case" ]; then CK_RUN_CASE=$case bounded ${JAIL:+"$JAIL"} "$bin"; else bounded ${JAIL:+"$JAIL"} "$bin"; fi 2>&1)
  local status=$? line bad
  if timed_out "$status" "unit tests $1"; then
    checks=$((checks + 1)) failed_checks=$((failed_checks + 1))
    return 1
  fi
  line=$(grep -E 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' <<<"$out" | tail -1)
  local ran
  ran=$(sed -nE 's/.*Checks: ([0-9]+).*/\1/p' <<<"$line")
  checks=$((checks + ${ran:-0}))
  bad=$(sed -nE 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1+\2/p' <<<"$line")
  # No summary: the binary crashed, which counts as one failed check.
  [ -n "$bad" ] || { bad=1; checks=$((checks + 1)); }
  failed_checks=$((failed_checks + bad))
  if [ "$status" -ne 0 ] || [ -z "$line" ] || ! grep -q 'Failures: 0, Errors: 0' <<<"$line"; then
    echo "  unit tests $1: ${line:-no summary (the test binary crashed)}"
    # A workspace's stubs abort with "not written yet: f() in file.c, see
    # ...": the cause of the failures below, so it comes first.
    grep -o 'not written yet: .*' <<<"$out" | sort -u | head -5 | sed 's/^/    /'
    # A failure's line, and the indented lines of its message (sent, expected,
    # received) under it.
    awk '/:[FES]:/ { show = 1; print; next } show && /^  / { print; next } { show = 0 }' <<<"$out" |
      sed -E 's/^[^:]*\/([^/:]+:)/\1/; s/^/    /' | head -30
    [ -n "$line" ] || tail -5 <<<"$out" | sed 's/^/    /'
    if grep -q 'Received signal' <<<"$out"; then
      echo "    (a test crashed: Check names the test's first line, not where it crashed;"
      echo "     to find where, run it in one process under gdb: CK_FORK=no gdb --args $bin)"
    fi
    return 1
  fi
}

# bats --tap prints "ok N name", "ok N name # skip why", "not ok N name" and,
# under a failure, the test's own lines starting with "# ": the
# sent/expected/received lines.
run_bats() { # run_bats ID STAGE FILES...
  local id=$1 stage=$2 out filter=() junit=()
  shift 2
  [ "$id" != all ] && filter=(--filter "^$id ")
  if [ -n "${JUNIT_DIR:-}" ]; then
    mkdir -p "$JUNIT_DIR/$stage" && junit=(--report-formatter junit --output "$JUNIT_DIR/$stage")
  fi
  out=$(bounded bats --tap "${junit[@]}" "${filter[@]}" "$@" 2>&1)
  local status=$? ok notok skip
  timed_out "$status" "stage $stage's suites"
  # -a: a reply with binary bytes in it must not make grep drop lines.
  ok=$(grep -acE '^ok [0-9]+' <<<"$out")
  skip=$(grep -acE '^ok [0-9]+ .*# skip' <<<"$out")
  notok=$(grep -acE '^not ok [0-9]+' <<<"$out")
  checks=$((checks + ok + notok))
  skipped_checks=$((skipped_checks + skip))
  failed_checks=$((failed_checks + notok))
  # A suite that failed outside any test (its server did not start) counts one.
  [ "$status" -ne 0 ] && [ "$notok" -eq 0 ] && checks=$((checks + 1)) failed_checks=$((failed_checks + 1))
  if [ "$status" -ne 0 ] || [ "$notok" -ne 0 ]; then
    # A stub's "not written yet" in a server's output (one that died at
    # start, or on the command that reached it) is the cause: it comes first.
    grep -ao 'not written yet: .*' <<<"$out" | sort -u | head -5 | sed 's/^/  /'
    grep -avE '^(ok [0-9]|1\.\.)' <<<"$out" | sed -E 's/^# ?/      /; s/^not ok [0-9]+ /  FAILED: /'
    return 1
  fi
}

# The one line scripts read (tests/tools/grade_class.sh, GitHub Classroom).
summary() { # summary FIRST_FAILING
  echo "grade: stages $passed_stages/$nstages, points $points/100, checks $((total - all_failed - all_skipped)) passed $all_failed failed, first failing $1"
}

# run_stage ID SECTION UNITS FILES: one stage, its checks added to the
# totals; returns 1 when it fails.
run_stage() {
  local id=$1 section=$2 units=$3 files=$4 ok=1 u
  checks=0 failed_checks=0 skipped_checks=0
  if [ -n "${TRAIL_DIR:-}" ]; then
    SERVER_LOG_DIR=$(mktemp -d) && export SERVER_LOG_DIR
  fi
  IFS=, read -ra unit_list <<<"$units"
  for u in "${unit_list[@]}"; do run_unit "$u" || ok=0; done
  if [ "$ok" = 1 ] && [ -n "$files" ]; then
    # shellcheck disable=SC2086 # files is a list of paths without spaces
    if [ -n "$section" ]; then
      SUITE_IS_SERVER_STEP=1 run_bats "$id" "$id" $files || ok=0
    else
      SUITE_IS_SERVER_STEP=0 run_bats all "$id" $files || ok=0
    fi
  fi
  total=$((total + checks)) all_failed=$((all_failed + failed_checks)) all_skipped=$((all_skipped + skipped_checks))
  [ -z "${TRAIL_DIR:-}" ] || keep_server_logs "$id"
  [ "$ok" = 1 ]
}

# keep_server_logs ID: each server's output of the stage into TRAIL_DIR/ID/,
# at most TRAIL_LOG_BYTES of each (its start and its end) and TRAIL_LOGS of
# them, so that a server that writes without end costs the trail little.
TRAIL_LOG_BYTES=16384 TRAIL_LOGS=40
keep_server_logs() {
  local dest=$TRAIL_DIR/$1 log size kept=0 half=$((TRAIL_LOG_BYTES / 2))
  mkdir -p "$dest"
  for log in "$SERVER_LOG_DIR"/*; do
    [ -f "$log" ] || continue
    kept=$((kept + 1))
    [ "$kept" -le "$TRAIL_LOGS" ] || continue
    size=$(stat -c %s "$log")
    if [ "$size" -le "$TRAIL_LOG_BYTES" ]; then
      cp "$log" "$dest/"
    else
      { head -c "$half" "$log"; printf '\n[... %d bytes left out ...]\n' $((size - 2 * half)); tail -c "$half" "$log"; } >"$dest/${log##*/}"
    fi
  done
  [ "$kept" -le "$TRAIL_LOGS" ] || echo "$((kept - TRAIL_LOGS)) more server logs left out" >"$dest/more"
  rm -rf "$SERVER_LOG_DIR"
}

# trail ID RESULT: the stage's line in TRAIL_DIR/stages.
trail() {
  [ -z "${TRAIL_DIR:-}" ] || echo "$1 $((SECONDS - stage_start)) $2" >>"$TRAIL_DIR/stages"
}

# own_stage_passes: does any of the chapter's own stages pass? Run alone,
# the earlier chapters' stage asks first, quietly, and stops at the first
# that does.
own_stage_passes() {
  local id pts what section anchor units files
  while IFS=$'\x1f' read -r id pts what section anchor units files; do
    [ -n "$section" ] || continue
    (run_stage "$id" "$section" "$units" "$files") >/dev/null 2>&1 && return 0
  done <<<"$full_plan"
  return 1
}

full_plan=$plan
if [ -n "${STAGE:-}" ]; then
  plan=$(grep -E "^$STAGE"$'\x1f' <<<"$plan") ||
    { echo "grade: no stage '$STAGE' in chapter $num (make grade STEP=$num LIST=1 lists them)" >&2; exit 2; }
fi
total=0 passed_stages=0 all_failed=0 all_skipped=0 points=0 own_passed=0 first_failing=none
nstages=$(wc -l <<<"$plan")
while IFS=$'\x1f' read -r id pts what section anchor units files; do
  printf 'stage %s (%s points): %s\n' "$id" "$pts" "$what"
  stage_start=$SECONDS
  if [ -z "$section" ] && [ "$own_passed" = 0 ] && ! { [ -n "${STAGE:-}" ] && own_stage_passes; }; then
    # The earlier chapters' stage, with none of this chapter's own passed.
    echo "  not run: none of chapter $num's own stages passes, and earlier chapters alone earn no points"
    ok=0 not_run=1
  elif run_stage "$id" "$section" "$units" "$files"; then
    ok=1 not_run=0
  else
    ok=0 not_run=0
  fi
  if [ "$ok" = 0 ]; then
    trail "$id" "$([ "$not_run" = 1 ] && echo not-run || echo failed)"
    [ "$first_failing" = none ] && first_failing=$id
    echo
    echo "Stage $id failed: $what."
    if [ "$not_run" = 1 ]; then
      echo "Make one of chapter $num's own stages pass first."
    elif [ -n "$section" ]; then
      echo "The chapter explains it in docs/$step.md, section \"$section\" (#$anchor)."
    else
      echo "An earlier chapter's check fails: make grade STEP=NN for that chapter says which stage."
    fi
    if [ -z "${ALL:-}" ]; then
      echo "Fix it and run the grader again; $passed_stages of $nstages stages passed."
      summary "$id"
      exit 1
    fi
    echo
    continue
  fi
  printf "  passed: %d check%s passed, %d failed, %d skipped\n" "$((checks - failed_checks - skipped_checks))" \
    "$([ "$((checks - failed_checks - skipped_checks))" = 1 ] || echo s)" "$failed_checks" "$skipped_checks"
  trail "$id" passed
  passed_stages=$((passed_stages + 1)) points=$((points + pts))
  [ -n "$section" ] && own_passed=$((own_passed + 1))
done <<<"$plan"
if [ "$first_failing" != none ]; then
  echo "$passed_stages of $nstages stages passed, $points of 100 points."
  summary "$first_failing"
  exit 1
fi
if [ -n "${STAGE:-}" ]; then
  echo "chapter $num: stage $STAGE passed ($((total - all_skipped)) checks passed, $all_skipped skipped)"
else
  echo "chapter $num: all $nstages stages passed ($((total - all_skipped)) checks passed, $all_skipped skipped)"
fi
summary none
