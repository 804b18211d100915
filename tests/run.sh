#!/usr/bin/env bash
# run.sh -- runs the tests in parts, several parts at once, and prints one
# summary line: "N passed, N failed" (", N skipped" when any were).
# Called by make (test, check, check-rest, unit, valgrind, asan), which sets:
#   BUILD       where the servers and unit binaries are
#   UNIT_BINS   the Check binaries to run
#   STEPS       every step, oldest first
#   SCOPE       test (default): what tells whether the servers and the
#               chapters are right: unit tests, the checks of docs/, every
#               step's suites and those of the steps before it, the reference
#               run against redis-server; rest: what make check adds to that
#               (the tooling around the servers: exercise graders, workspaces,
#               the book and its live servers, class grading, Classroom; the
#               poll() back end, hostile clients, fuzz smoke, the differential
#               test, client libraries); all: both
#   STEP        (optional) test only this step: "04" or "04-expiry-lazy"
#   SERVER      (optional) grade this binary, or redis-server, with the
#               suites of STEP (default: the newest) and the steps before it
#   VALGRIND=1  servers and unit tests under memcheck
#   SANITIZED=1 the servers are ASan+UBSan builds
#   NO_REFERENCE=1  skip the reference run against a real redis-server
#   ONLY_UNIT=1     unit tests only
#   POLL_BUILD, POLL_STEPS  (optional) where servers built with the poll()
#               back end are, and which steps: their suites run too (rest)
#   TEST_JOBS   parts run at once (default: the cores; 1 under valgrind)
#   LOAD=N      (optional) N busy processes (shell loops) spin beside the
#               tests for the whole run, and are stopped at its end, on
#               failure and on Ctrl-C: a busy machine, on purpose
#
# Each part runs in the background with its output kept aside; when it ends,
# its block is printed whole under "== PART (N s)", so parts that run at once
# never interleave. A line "-> PART" says when one starts, so a run never sits
# silent without saying what it waits for. The end lists the five slowest
# parts. Every skipped test is written, with its reason, to $BUILD/skipped.txt.
set -u
cd "$(dirname "$0")/.." || exit 2

SCOPE=${SCOPE:-test}
SKIPS=${BUILD:-build}/skipped.txt
mkdir -p "$BUILD" && : >"$SKIPS"
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
# Under valgrind the unit tests' million-item runs would take minutes; they
# run natively in full, and with a tenth of the items under memcheck.
if [ -n "${VALGRIND:-}" ]; then export DICT_TEST_KEYS=100000 TW_TEST_NODES=100000; fi
# One part per core. A timing-sensitive suite (chapter 06's lateness, the
# 20,000-key bursts of 05 and 06) needs a core when its server wakes; with
# twice the cores, the old default, a learner's make test and make grade of
# the same server disagreed (3 failed against 85 of 85 with TEST_JOBS=1).
# What it costs in wall time is not measured yet. Memcheck is itself
# CPU-bound and slows a server twentyfold: there, one part at a time.
CORES=$(nproc 2>/dev/null || echo 2)
if [ -n "${VALGRIND:-}" ]; then DEFAULT_JOBS=1; else DEFAULT_JOBS=$CORES; fi
TEST_JOBS=${TEST_JOBS:-$DEFAULT_JOBS}

case $SCOPE in
  test | rest | all) ;;
  *) echo "run.sh: SCOPE=$SCOPE: use test, rest or all" >&2; exit 2 ;;
esac
in_scope() { [ "$SCOPE" = all ] || [ "$SCOPE" = "$1" ]; } # in_scope test|rest

# ---- Counting -----------------------------------------------------------------
# A part counts into these; its totals are handed to the parent when it ends.
passed=0 failed=0 skipped=0
failures=()

# note_skips LABEL TAP: keep each "# skip" line of TAP, with its reason.
note_skips() {
  grep -E '^ok [0-9]+ .*# skip' <<<"$2" | sed "s|^|$1: |" >>"$SKIPS"
}

# count_tap LABEL STATUS TAP: count TAP's "ok N", "ok N ... # skip why" and
# "not ok N" lines. A non-zero exit without a failed test (a failure outside
# any test: setup_file, teardown_file, a leak found at shutdown, a crash)
# counts as one failure. Prints the lines that are not "ok" when anything
# failed, and sets ok, skip and notok for the caller's own line.
count_tap() {
  local label=$1 status=$2 tap=$3
  ok=$(grep -cE '^ok [0-9]+' <<<"$tap")
  skip=$(grep -cE '^ok [0-9]+ .*# skip' <<<"$tap")
  notok=$(grep -cE '^not ok [0-9]+' <<<"$tap")
  passed=$((passed + ok - skip)); skipped=$((skipped + skip)); failed=$((failed + notok))
  note_skips "$label" "$tap"
  if [ "$notok" -ne 0 ] || [ "$status" -ne 0 ]; then
    [ "$notok" -eq 0 ] && failed=$((failed + 1))
    failures+=("$label")
    grep -vE '^ok ' <<<"$tap" | head -60
  fi
}

# ---- Unit tests -------------------------------------------------------------
# Check prints "100%: Checks: 12, Failures: 0, Errors: 0".
run_unit() {
  local bin=$1 out status
  if [ -n "${VALGRIND:-}" ]; then
    out=$(CK_FORK=no valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite \
      --error-exitcode=99 "$bin" 2>&1); status=$?
  else
    out=$("$bin" 2>&1); status=$?
  fi
  local line checks fails errs
  line=$(grep -E 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' <<<"$out" | tail -1)
  if [ -z "$line" ]; then
    failed=$((failed + 1)); failures+=("$bin (no Check summary)")
    echo "$out" | tail -20
    return
  fi
  checks=$(sed -E 's/.*Checks: ([0-9]+).*/\1/' <<<"$line")
  fails=$(sed -E 's/.*Failures: ([0-9]+).*/\1/' <<<"$line")
  errs=$(sed -E 's/.*Errors: ([0-9]+).*/\1/' <<<"$line")
  passed=$((passed + checks - fails - errs))
  failed=$((failed + fails + errs))
  if [ "$fails" -ne 0 ] || [ "$errs" -ne 0 ] || [ "$status" -ne 0 ]; then
    [ "$status" -ne 0 ] && [ "$fails" -eq 0 ] && [ "$errs" -eq 0 ] && failed=$((failed + 1))
    failures+=("$bin")
    grep -vE '^Running suite' <<<"$out" | tail -30
  fi
  printf 'unit  %-40s %s\n' "${bin#"$BUILD"/unit/}" "$line"
}

unit_tests() { local bin; for bin in $UNIT_BINS; do run_unit "$bin"; done; }

# ---- Black-box suites ---------------------------------------------------------
# bats --tap prints "ok N name", "ok N name # skip why" or "not ok N name".
run_suite() { # run_suite SERVER SUITE LABEL [STEP]: STEP is the server's step, if not LABEL
  local server=$1 suite=$2 label=$3 out status own=0 ok skip notok
  [ "$suite" = "${4:-$label}" ] && own=1 # the suite of the step being tested
  out=$(SERVER="$server" SUITE_IS_SERVER_STEP=$own bats --tap "tests/$suite" 2>&1); status=$?
  count_tap "$label: tests/$suite" "$status" "$out"
  printf 'bats  %-40s %d ok, %d skipped, %d failed\n' "$label: $suite" "$((ok - skip))" "$skip" "$notok"
}

suites_up_to() { # the suite directories of every step up to and including $1
  local s
  for s in $STEPS; do
    [ -d "tests/$s" ] && ls "tests/$s"/*.bats >/dev/null 2>&1 && echo "$s"
    [ "$s" = "$1" ] && break
  done
}

# step_suites SERVER LABEL STEP: STEP's suites and those of the steps before it.
step_suites() {
  local suite
  for suite in $(suites_up_to "$3"); do run_suite "$1" "$suite" "$2" "$3"; done
}

# ---- Real client libraries ------------------------------------------------------
# tests/clients/run.sh prints "ok N - client version", "ok N - client # skip
# why" or "not ok N - ...", one line per client.
run_clients() {
  local server=$1 flag=$2 label=$3 out status ok skip notok
  out=$(bash tests/clients/run.sh "$server" $flag 2>&1); status=$?
  count_tap "$label: real clients" "$status" "$out"
  printf 'bats  %-40s %d ok, %d skipped, %d failed\n' "$label: clients" "$((ok - skip))" "$skip" "$notok"
  grep -E '# skip' <<<"$out" | sed 's/^/      /'
}

# both_clients FIRST_SERVER FIRST NEWEST_SERVER NEWEST FLAG: step 01 has no
# keyspace; the newest step, from 04 on, has expiry (FLAG --expiry).
both_clients() {
  run_clients "$1" --no-keyspace "$2"
  run_clients "$3" "$5" "$4"
}

# ---- Checks that are not servers -------------------------------------------------
# run_check LABEL CMD...: one command, one check, pass or fail.
run_check() {
  local label=$1 out
  shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    printf 'check %-40s ok\n' "$label"
    grep -h '^[0-9]* transcripts' <<<"$out" || true
  else
    failed=$((failed + 1)); failures+=("check: $label")
    printf 'check %-40s FAILED\n%s\n' "$label" "$out"
  fi
}

# run_tap LABEL CMD...: a tool that prints TAP itself (exercise graders, fuzz
# smoke, compat, the workspaces, the book, class grading): count its lines.
run_tap() {
  local label=$1 out status ok skip notok
  shift
  out=$("$@" 2>&1); status=$?
  count_tap "$label" "$status" "$out"
  printf 'tap   %-40s %d ok, %d skipped, %d failed\n' "$label" "$((ok - skip))" "$skip" "$notok"
  grep -E '^ok [0-9]+ - ' <<<"$out" | sed 's/^/      /'
  grep -E '^# [0-9]+ checks of [0-9]+ graders' <<<"$out" | sed 's/^# /      /'
}

# A part of the project that is not here (a starter repository for students
# has only what its chapter needs): one skipped check, and the reason.
have_part() { # have_part LABEL PATH...: true when every PATH exists
  local label=$1 p
  shift
  for p in "$@"; do
    if [ ! -e "$p" ]; then
      skipped=$((skipped + 1))
      printf 'skip  %-40s no %s here\n' "$label" "$p"
      echo "$label: skipped: no $p here" >>"$SKIPS"
      return 1
    fi
  done
}

# ---- The checks of docs/, tests/ and steps/ ------------------------------------
docs_checks() {
  # Every redis-cli session in docs/ replayed against its step.
  run_check "transcripts in docs/ replay" "$PYTHON" tests/tools/transcripts.py "$BUILD"
  # Every code excerpt tagged with a file is, line for line, in that file.
  run_check "code excerpts in docs/ are in their files" "$PYTHON" tests/tools/excerpts.py
  if [ -f steps/07-set-options-fsm/set_fsm.c ]; then
    run_check "set_fsm table and drawing in docs/" make --no-print-directory BUILD="$BUILD" fsm-check
  fi
  # The pictures are drawn from every step's code: not in a starter repository.
  have_part "pictures in docs/img" steps/06-timewheel steps/07-set-options-fsm steps/08-snapshot steps/09-replication &&
    run_check "pictures in docs/img match their sources and the code they name" \
      make --no-print-directory BUILD="$BUILD" pictures-check
  # Each chapter's grader: every test in a stage, each chapter's "What the
  # grader checks" as the stages say; every check prints the exchange.
  run_check "graders' stages match the chapters" "$PYTHON" tests/tools/stages.py check
  run_check "every check says what it sent, expected and received" bash tests/tools/check_assertions.sh
  # Each chapter's diff touches exactly the files the chapter names.
  run_check "neighbour diffs touch only listed files, with no comment churn" bash tests/tools/diffscope.sh --hunks
}

# ---- The book -------------------------------------------------------------------
# make book, as a reader runs it (the live servers' modules too, when emcc
# is here); then every page of that book is loaded, and the chapters'
# consoles are driven, in headless Chromium.
book_checks() {
  run_check "make book builds the book and its live servers" make --no-print-directory BUILD="$BUILD" book
  run_tap "book: pages, links, anchors, images in Chromium" env BUILD="$BUILD" "$PYTHON" tests/tools/book_check.py --no-build
  run_tap "book: each chapter's live server in Chromium" env BUILD="$BUILD" "$PYTHON" tests/tools/play_check.py --no-build
}

# ---- The parts, and running them ------------------------------------------------
# add_part NAME CMD...: queue a part. Parts run in this order, TEST_JOBS at a
# time; put the longest first so that none starts last and alone.
P_NAMES=() P_CMDS=()
add_part() {
  local name=$1 cmd
  shift
  printf -v cmd '%q ' "$@"
  P_NAMES+=("$name") P_CMDS+=("$cmd")
}

RESULTS=$(mktemp -d "${TMPDIR:-/tmp}/run-parts.XXXXXX") || exit 2
LOAD_PIDS=()
stop_load() { [ ${#LOAD_PIDS[@]} -eq 0 ] || kill "${LOAD_PIDS[@]}" 2>/dev/null; LOAD_PIDS=(); }
trap 'stop_load; rm -rf "$RESULTS"' EXIT
trap 'exit 130' INT TERM # through the EXIT trap: the spinners stop too

# start_part I: run part I in the background. Its output goes to I.out, its
# counts to I.counts, its wall time to I.secs; I.done marks its end.
start_part() {
  local i=$1
  echo "-> ${P_NAMES[$i]}"
  (
    passed=0 failed=0 skipped=0 failures=()
    start=$(date +%s)
    eval "${P_CMDS[$i]}" >"$RESULTS/$i.out" 2>&1
    echo $(($(date +%s) - start)) >"$RESULTS/$i.secs"
    { echo "$passed $failed $skipped"; printf '%s\n' "${failures[@]+"${failures[@]}"}"; } >"$RESULTS/$i.counts"
    : >"$RESULTS/$i.done"
  ) &
  PART_PIDS+=($!)
}

# finish_part I: print its block, add its counts to the run's.
TIMES=() PART_PIDS=()
finish_part() {
  local i=$1 secs p f s line
  secs=$(cat "$RESULTS/$i.secs")
  echo "== ${P_NAMES[$i]} ($secs s)"
  cat "$RESULTS/$i.out"
  { read -r p f s; while IFS= read -r line; do [ -n "$line" ] && failures+=("$line"); done; } <"$RESULTS/$i.counts"
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  TIMES+=("$secs ${P_NAMES[$i]}")
}

run_parts() {
  local n=${#P_NAMES[@]} next=0 running=0 finished=0 i
  local -a reported=()
  while [ "$finished" -lt "$n" ]; do
    while [ "$running" -lt "$TEST_JOBS" ] && [ "$next" -lt "$n" ]; do
      start_part "$next"; next=$((next + 1)) running=$((running + 1))
    done
    wait -n 2>/dev/null || sleep 0.2
    for ((i = 0; i < next; i++)); do
      if [ -z "${reported[$i]:-}" ] && [ -e "$RESULTS/$i.done" ]; then
        finish_part "$i"; reported[$i]=1 running=$((running - 1)) finished=$((finished + 1))
      fi
    done
  done
  wait "${PART_PIDS[@]}" 2>/dev/null # the parts, not LOAD's spinners
}

step_name() { # "4", "04" or "04-expiry-lazy" -> "04-expiry-lazy"
  local want=$1 s
  [[ "$want" =~ ^[0-9]$ ]] && want="0$want"
  for s in $STEPS; do
    if [ "$s" = "$want" ] || [ "${s%%-*}" = "$want" ]; then echo "$s"; return; fi
  done
  echo "unknown step '$1' (steps: $STEPS)" >&2
  exit 2
}

# STEP and SERVER are checked before anything runs: a typo is one clear
# error, not a column of failed suites.
if [ -n "${STEP:-}" ]; then target_steps=$(step_name "$STEP") || exit 2; else target_steps=$STEPS; fi
if [ -n "${SERVER:-}" ] && [ -z "${ONLY_UNIT:-}" ]; then
  if [ "$SERVER" = redis-server ]; then
    command -v redis-server >/dev/null 2>&1 ||
      { echo "SERVER=redis-server, but redis-server is not installed (make deps installs it)" >&2; exit 2; }
  elif [ ! -f "$SERVER" ] || [ ! -x "$SERVER" ]; then
    echo "SERVER=$SERVER is not an executable file: give the path of a server binary," \
      "redis-server, or workspace (see make workspace)" >&2
    exit 2
  fi
fi
whole_run=""
[ -z "${ONLY_UNIT:-}" ] && [ -z "${STEP:-}" ] && [ -z "${SERVER:-}" ] && whole_run=1
behaviour_only=1 # the tooling checks test behaviour: not again under memcheck or the sanitizers
[ -n "${VALGRIND:-}${SANITIZED:-}" ] && behaviour_only=""
first=${STEPS%% *} newest=${STEPS##* }
last=$(echo "$target_steps" | tr ' ' '\n' | tail -1)

# ---- What runs -------------------------------------------------------------------
# The rest's long parts first: a part that starts last should be a short one.
if [ -n "$whole_run" ] && [ -n "$behaviour_only" ] && in_scope rest; then
  add_part "exercise graders: each against its solution, the unmodified step and redis-server" \
    run_tap "exercise graders" env BUILD="$BUILD" NO_REFERENCE="${NO_REFERENCE:-}" bash tests/exercises/check.sh
  have_part "class grading" tests/tools/class_check.sh steps/05-active-sampling /usr/bin/bwrap &&
    add_part "instructors: a chapter-05 starter and a class of nine graded in a sandbox, five of them hostile" \
      run_tap "starter and class grading (chapter 05)" env QUICK=1 bash tests/tools/class_check.sh
  have_part "every chapter's starter" tests/tools/starter_check.sh docs/solutions &&
    add_part "instructors: every chapter's starter, its notes, commands, unit tests and first message" \
      run_tap "starters of every chapter" bash tests/tools/starter_check.sh
  have_part "GitHub Classroom autograding" tests/tools/classroom_check.sh steps/05-active-sampling &&
    add_part "instructors: GitHub Classroom's autograding commands (chapter 05)" \
      run_tap "GitHub Classroom autograding (chapter 05)" bash tests/tools/classroom_check.sh
  # It needs the project's files of chapters 01 and 02 (a starter may not have them).
  have_part "workspaces of chapters 01 and 02" common steps/01-resp steps/02-get-set &&
    add_part "workspaces: chapters 01 and 02 from skeletons fail their first stage; with the project's files, pass" \
      run_tap "workspaces: skeletons fail, the reference passes" bash tests/tools/workspace_check.sh
  have_part "the book" tests/book &&
    add_part "the book in headless Chromium: every page (links, anchors, images, script errors), then each chapter's live server" \
      book_checks
  # Short runs of the fuzzers and of the differential test against Redis
  # (longer: make fuzz SECONDS=N, make compat OPS=N).
  have_part "fuzz smoke" tests/fuzz &&
    add_part "fuzz smoke (${FUZZ_SMOKE_SECONDS:-6} s per fuzzer)" \
      run_tap "fuzz smoke" bash tests/fuzz/run.sh all "${FUZZ_SMOKE_SECONDS:-6}"
  have_part "compat" tests/compat &&
    add_part "the differential test against redis-server, and the expiry model" \
      run_tap "compat: differential and expiry model" env BUILD="$BUILD" STEPS="$target_steps" bash tests/compat/run.sh "${COMPAT_OPS:-1000}"
fi

if [ -z "${STEP:-}" ] || [ -n "${ONLY_UNIT:-}" ]; then # grading one step: suites only
  [ -n "$UNIT_BINS" ] && in_scope test && add_part "unit tests (Check), one line per test binary" unit_tests
fi
[ -n "$whole_run" ] && in_scope test &&
  add_part "checks of docs/, tests/ and steps/: transcripts, excerpts, pictures, graders, neighbour diffs" docs_checks

if [ -z "${ONLY_UNIT:-}" ] && [ -n "${SERVER:-}" ]; then
  # Grading one server: the suites of the step and of every step before it.
  [ "$SERVER" = redis-server ] || SERVER=$(realpath "$SERVER")
  for suite in $(suites_up_to "$last"); do
    add_part "tests/$suite against $SERVER" run_suite "$SERVER" "$suite" "$(basename "$SERVER")"
  done
elif [ -z "${ONLY_UNIT:-}" ]; then
  if in_scope test; then
    # Each step's server with its suites and those of the steps before it;
    # the newest first, having the most suites.
    for s in $(echo "$target_steps" | tr ' ' '\n' | sort -r); do
      add_part "black-box suites (bats) of steps up to $s against its server" \
        step_suites "$(pwd)/$BUILD/$s/server" "$s" "$s"
    done
    # The reference run: the same suites against a real redis-server prove
    # that they encode Redis's behaviour and not ours.
    if [ -z "${NO_REFERENCE:-}" ]; then
      if command -v redis-server >/dev/null 2>&1; then
        for suite in $(suites_up_to "$last"); do
          add_part "reference run: tests/$suite against a real redis-server" run_suite redis-server "$suite" "redis-server"
        done
      else
        echo "reference run skipped: redis-server is not installed (make deps installs it)"
      fi
    fi
  fi
  if [ -n "$whole_run" ] && in_scope rest; then
    # Hostile and unlucky clients, against the newest step (and Redis).
    if have_part "$newest: hostile" tests/hostile; then
      add_part "hostile and unlucky clients against $newest" run_suite "$(pwd)/$BUILD/$newest/server" hostile "$newest"
      [ -z "${NO_REFERENCE:-}" ] && command -v redis-server >/dev/null 2>&1 &&
        add_part "hostile and unlucky clients against a real redis-server" run_suite redis-server hostile "redis-server"
    fi
    # The same suites against the poll() back end (make check builds it for
    # step 01 and the newest step), which takes epoll's place off Linux.
    if [ -n "${POLL_BUILD:-}" ] && [ -n "$behaviour_only" ]; then
      for s in ${POLL_STEPS:-}; do
        add_part "black-box suites of steps up to $s against its poll() build ($POLL_BUILD)" \
          step_suites "$(pwd)/$POLL_BUILD/$s/server" "$s (poll)" "$s"
      done
      # Thousands of connections come and go there: poll()'s arrays grow.
      [ -x "$POLL_BUILD/$newest/server" ] && [ -d tests/hostile ] &&
        add_part "hostile and unlucky clients against $newest's poll() build" \
          run_suite "$(pwd)/$POLL_BUILD/$newest/server" hostile "$newest (poll)" "$newest"
    fi
    # Real client libraries at their defaults, against step 01 and the newest
    # step (not under valgrind: they test protocol, not memory).
    if [ -z "${VALGRIND:-}" ] && have_part "real clients" tests/clients; then
      flag=""
      [ -d "tests/04-expiry-lazy" ] && [[ "$newest" > "04" ]] && flag=--expiry
      add_part "real client libraries (tests/clients/) against $first and $newest" \
        both_clients "$(pwd)/$BUILD/$first/server" "$first" "$(pwd)/$BUILD/$newest/server" "$newest" "$flag"
    fi
  fi
fi

if [ "${LOAD:-0}" -gt 0 ] 2>/dev/null; then
  # Each spins only while this script runs, so none outlives it, however it ends.
  for ((i = 0; i < LOAD; i++)); do sh -c 'while kill -0 "$1" 2>/dev/null; do :; done' spin $$ & LOAD_PIDS+=($!); done
  echo "LOAD=$LOAD: $LOAD busy processes beside the tests (pids ${LOAD_PIDS[*]})"
fi
run_parts
stop_load

if [ ${#TIMES[@]} -gt 1 ]; then
  echo "slowest parts:"
  printf '%s\n' "${TIMES[@]}" | sort -rn | head -5 | sed -E 's/^([0-9]+) (.*)$/  \1 s  \2/'
fi
if [ ${#failures[@]} -ne 0 ]; then
  echo "failed:"
  printf '  %s\n' "${failures[@]}"
fi
if [ "$skipped" -ne 0 ]; then
  # Said once: skips are by design, and each has its reason in the file.
  echo "$skipped skipped, by design: a test marked replaced_in NN checks what chapter NN changes,"
  echo "  and skips against step NN and later; one marked own_promise checks a promise of this"
  echo "  project, not of Redis, and skips against redis-server; any other skip (a client library"
  echo "  not installed, an exercise that is not a Redis feature) says why."
  echo "  Each skip, with its reason: $SKIPS"
fi
summary="$passed passed, $failed failed"
[ "$skipped" -ne 0 ] && summary+=", $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
