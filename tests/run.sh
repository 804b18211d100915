#!/usr/bin/env bash
# run.sh -- runs the unit tests and the black-box suites, and prints one
# summary line: "N passed, N failed" (", N skipped" when any were).
# Called by make (test, unit, valgrind, asan), which sets:
#   BUILD       where the servers and unit binaries are
#   UNIT_BINS   the Check binaries to run
#   STEPS       every step, oldest first
#   STEP        (optional) test only this step: "04" or "04-expiry-lazy"
#   SERVER      (optional) grade this binary, or redis-server, with the
#               suites of STEP (default: the newest) and the steps before it
#   VALGRIND=1  servers and unit tests under memcheck
#   NO_REFERENCE=1  skip the reference run against a real redis-server
#   ONLY_UNIT=1     unit tests only
#   POLL_BUILD, POLL_STEPS  (optional) where servers built with the poll()
#               back end are, and which steps: their suites run too
# Each long part announces itself with a "== " line before it starts, so a
# run never sits silent without saying what it waits for. Every skipped test
# is written, with its reason, to $BUILD/skipped.txt; the end says so.
set -u
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0 out=""
SKIPS=${BUILD:-build}/skipped.txt
mkdir -p "$BUILD" && : >"$SKIPS"
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
# Under valgrind the unit tests' million-item runs would take minutes; they
# run natively in full, and with a tenth of the items under memcheck.
if [ -n "${VALGRIND:-}" ]; then export DICT_TEST_KEYS=100000 TW_TEST_NODES=100000; fi
failures=()

part() { echo "== $*"; } # a long part starts

# note_skips LABEL TAP: keep each "# skip" line of TAP, with its reason.
note_skips() {
  grep -E '^ok [0-9]+ .*# skip' <<<"$2" | sed "s|^|$1: |" >>"$SKIPS"
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

# ---- Black-box suites ---------------------------------------------------------
# bats --tap prints "ok N name", "ok N name # skip why" or "not ok N name".
run_suite() { # run_suite SERVER SUITE LABEL [STEP]: STEP is the server's step, if not LABEL
  local server=$1 suite=$2 label=$3 out status own=0
  [ "$suite" = "${4:-$label}" ] && own=1 # the suite of the step being tested
  out=$(SERVER="$server" SUITE_IS_SERVER_STEP=$own bats --tap "tests/$suite" 2>&1); status=$?
  local ok notok skip
  ok=$(grep -cE '^ok [0-9]+' <<<"$out")
  skip=$(grep -cE '^ok [0-9]+ .*# skip' <<<"$out")
  notok=$(grep -cE '^not ok [0-9]+' <<<"$out")
  passed=$((passed + ok - skip)); skipped=$((skipped + skip)); failed=$((failed + notok))
  note_skips "$label: tests/$suite" "$out"
  if [ "$notok" -ne 0 ] || [ "$status" -ne 0 ]; then
    # A failure outside a test (setup_file, teardown_file: e.g. a leak found
    # at shutdown) counts as one failed test.
    [ "$notok" -eq 0 ] && failed=$((failed + 1))
    failures+=("$label: tests/$suite")
    grep -vE '^ok ' <<<"$out" | head -60
  fi
  printf 'bats  %-40s %d ok, %d skipped, %d failed\n' "$label: $suite" "$((ok - skip))" "$skip" "$notok"
}

# ---- Real client libraries ------------------------------------------------------
# tests/clients/run.sh prints "ok N - client version", "ok N - client # skip
# why" or "not ok N - ...", one line per client.
run_clients() {
  local server=$1 flag=$2 label=$3 out status
  out=$(bash tests/clients/run.sh "$server" $flag 2>&1); status=$?
  local ok notok skip
  ok=$(grep -cE '^ok [0-9]+' <<<"$out")
  skip=$(grep -cE '^ok [0-9]+ .*# skip' <<<"$out")
  notok=$(grep -cE '^not ok [0-9]+' <<<"$out")
  passed=$((passed + ok - skip)); skipped=$((skipped + skip)); failed=$((failed + notok))
  note_skips "$label: real clients" "$out"
  if [ "$notok" -ne 0 ] || [ "$status" -ne 0 ]; then
    [ "$notok" -eq 0 ] && failed=$((failed + 1))
    failures+=("$label: real clients")
    grep -vE '^ok ' <<<"$out" | head -40
  fi
  printf 'bats  %-40s %d ok, %d skipped, %d failed\n' "$label: clients" "$((ok - skip))" "$skip" "$notok"
  grep -E '# skip' <<<"$out" | sed 's/^/      /'
}

# ---- Checks that are not servers: one command each, pass or fail ---------------
run_check() {
  local label=$1
  shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    printf 'check %-40s ok\n' "$label"
  else
    failed=$((failed + 1)); failures+=("check: $label")
    printf 'check %-40s FAILED\n%s\n' "$label" "$out"
  fi
}

# tests/exercises/check.sh prints TAP: "ok N - ...", "ok N - ... # skip why",
# "not ok N - ...", four checks per grader, and "# N checks of N graders, N failed".
run_exercise_checks() {
  local out status ok skip notok
  out=$(BUILD="$BUILD" NO_REFERENCE="${NO_REFERENCE:-}" bash tests/exercises/check.sh 2>&1); status=$?
  ok=$(grep -cE '^ok [0-9]+' <<<"$out")
  skip=$(grep -cE '^ok [0-9]+ .*# skip' <<<"$out")
  notok=$(grep -cE '^not ok [0-9]+' <<<"$out")
  passed=$((passed + ok - skip)); skipped=$((skipped + skip)); failed=$((failed + notok))
  note_skips "exercise graders" "$out"
  if [ "$notok" -ne 0 ] || [ "$status" -ne 0 ]; then
    [ "$notok" -eq 0 ] && failed=$((failed + 1))
    failures+=("exercise graders: tests/exercises/check.sh")
    grep -vE '^ok ' <<<"$out" | head -60
  fi
  printf 'check %-40s %d ok, %d skipped, %d failed\n' "exercise graders" "$((ok - skip))" "$skip" "$notok"
  grep -E '^# [0-9]+ checks of [0-9]+ graders' <<<"$out" | sed 's/^# /      /'
}

# Tools that print TAP themselves (fuzz smoke, compat): count their lines.
run_tap() { # run_tap LABEL CMD...
  local label=$1 out status ok notok skip
  shift
  out=$("$@" 2>&1); status=$?
  ok=$(grep -cE '^ok [0-9]+' <<<"$out"); skip=$(grep -cE '^ok [0-9]+ .*# skip' <<<"$out")
  notok=$(grep -cE '^not ok [0-9]+' <<<"$out")
  passed=$((passed + ok - skip)); skipped=$((skipped + skip)); failed=$((failed + notok))
  note_skips "$label" "$out"
  if [ "$notok" -ne 0 ] || [ "$status" -ne 0 ]; then
    [ "$notok" -eq 0 ] && failed=$((failed + 1)); failures+=("$label")
    grep -vE '^ok ' <<<"$out" | head -60
  fi
  printf 'tap   %-40s %d ok, %d skipped, %d failed\n' "$label" "$((ok - skip))" "$skip" "$notok"
  grep -E '^ok [0-9]+ - ' <<<"$out" | sed 's/^/      /'
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
      return 1
    fi
  done
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

suites_up_to() { # the suite directories of every step up to and including $1
  local s
  for s in $STEPS; do
    [ -d "tests/$s" ] && ls "tests/$s"/*.bats >/dev/null 2>&1 && echo "$s"
    [ "$s" = "$1" ] && break
  done
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

if [ -z "${STEP:-}" ] || [ -n "${ONLY_UNIT:-}" ]; then # grading one step: suites only
  [ -n "$UNIT_BINS" ] && part "unit tests (Check), one line per test binary"
  for bin in $UNIT_BINS; do run_unit "$bin"; done
fi

if [ -z "${ONLY_UNIT:-}" ] && [ -z "${STEP:-}" ] && [ -z "${SERVER:-}" ]; then
  part "checks of docs/, tests/ and steps/: transcripts, excerpts, pictures, graders, neighbour diffs"
  # Every redis-cli session in docs/ replayed against its step.
  run_check "transcripts in docs/ replay" "$PYTHON" tests/tools/transcripts.py "$BUILD"
  grep -h '^[0-9]* transcripts' <<<"$out" || true
  # Every code excerpt tagged with a file is, line for line, in that file.
  run_check "code excerpts in docs/ are in their files" "$PYTHON" tests/tools/excerpts.py
  if [ -f steps/07-set-options-fsm/set_fsm.c ]; then
    run_check "set_fsm table and drawing in docs/" make --no-print-directory BUILD="$BUILD" fsm-check
  fi
  # The pictures are drawn from every step's code: not in a starter repository.
  have_part "pictures in docs/img" steps/06-timewheel steps/07-set-options-fsm &&
    run_check "pictures in docs/img match their sources and the code they name" \
      make --no-print-directory BUILD="$BUILD" pictures-check
  # Each chapter's grader: every test in a stage, each chapter's "What the
  # grader checks" as the stages say; every check prints the exchange.
  run_check "graders' stages match the chapters" "$PYTHON" tests/tools/stages.py check
  run_check "every check says what it sent, expected and received" bash tests/tools/check_assertions.sh
  # Each chapter's diff touches exactly the files the chapter names.
  run_check "neighbour diffs touch only listed files, with no comment churn" bash tests/tools/diffscope.sh --hunks
  # Every exercise grader fails on the unmodified step and passes on its
  # reference solution (and on a real Redis); graders test behaviour, so not
  # under valgrind or the sanitizers, where they would only be slower.
  if [ -z "${VALGRIND:-}${SANITIZED:-}" ]; then
    part "exercise graders: each against its solution, the unmodified step and redis-server (about a minute)"
    run_exercise_checks
    part "workspaces: chapters 01 and 02 from skeletons fail their first stage; with the project's files, pass"
    # It needs the project's files of chapters 01 and 02 (a starter may not have them).
    have_part "workspaces of chapters 01 and 02" common steps/01-resp steps/02-get-set &&
      run_tap "workspaces: skeletons fail, the reference passes" bash tests/tools/workspace_check.sh
    part "the book: every page in headless Chromium (links, anchors, images, script errors)"
    have_part "the book" tests/book &&
      run_tap "book: pages, links, anchors, images in Chromium" env BUILD="$BUILD" "$PYTHON" tests/tools/book_check.py
    part "instructors: a chapter-05 starter, a class of four graded in a sandbox, GitHub Classroom's commands"
    have_part "class grading" tests/tools/class_check.sh steps/05-active-sampling /usr/bin/bwrap &&
      run_tap "starter and class grading (chapter 05)" env QUICK=1 bash tests/tools/class_check.sh
    have_part "GitHub Classroom autograding" tests/tools/classroom_check.sh steps/05-active-sampling &&
      run_tap "GitHub Classroom autograding (chapter 05)" bash tests/tools/classroom_check.sh
  fi
fi

if [ -z "${ONLY_UNIT:-}" ]; then
  if [ -n "${SERVER:-}" ]; then
    # Grading one server: the suites of the step and of every step before it.
    last=$(echo "$target_steps" | tr ' ' '\n' | tail -1)
    [ "$SERVER" = redis-server ] || SERVER=$(realpath "$SERVER")
    part "black-box suites (bats) of steps up to $last against $SERVER"
    for suite in $(suites_up_to "$last"); do run_suite "$SERVER" "$suite" "$(basename "$SERVER")"; done
  else
    part "black-box suites (bats): each step's server with its suites and those of the steps before"
    for s in $target_steps; do
      for suite in $(suites_up_to "$s"); do run_suite "$(pwd)/$BUILD/$s/server" "$suite" "$s"; done
    done
    # The same suites against the poll() back end (make test builds it for
    # step 01 and the newest step), which takes epoll's place off Linux.
    if [ -z "${STEP:-}" ] && [ -n "${POLL_BUILD:-}" ] && [ -z "${VALGRIND:-}${SANITIZED:-}" ]; then
      part "the same suites against the poll() back end ($POLL_BUILD)"
      for s in ${POLL_STEPS:-}; do
        for suite in $(suites_up_to "$s"); do
          run_suite "$(pwd)/$POLL_BUILD/$s/server" "$suite" "$s (poll)" "$s"
        done
      done
      # Thousands of connections come and go there: poll()'s arrays grow.
      newest=${STEPS##* }
      [ -x "$POLL_BUILD/$newest/server" ] && have_part "$newest (poll): hostile" tests/hostile &&
        run_suite "$(pwd)/$POLL_BUILD/$newest/server" hostile "$newest (poll)" "$newest"
    fi
    # Hostile and unlucky clients, against the newest step.
    if [ -z "${STEP:-}" ]; then
      newest=${STEPS##* }
      part "hostile and unlucky clients against $newest"
      have_part "$newest: hostile" tests/hostile && run_suite "$(pwd)/$BUILD/$newest/server" hostile "$newest"
    fi
    # Short runs of the fuzzers and of the differential test against Redis
    # (longer: make fuzz SECONDS=N, make compat OPS=N).
    if [ -z "${STEP:-}" ] && [ -z "${VALGRIND:-}${SANITIZED:-}" ]; then
      part "fuzz smoke (${FUZZ_SMOKE_SECONDS:-6} s per fuzzer), then the differential test against redis-server"
      have_part "fuzz smoke" tests/fuzz && run_tap "fuzz smoke" bash tests/fuzz/run.sh all "${FUZZ_SMOKE_SECONDS:-6}"
      have_part "compat" tests/compat && run_tap "compat: differential and expiry model" env BUILD="$BUILD" STEPS="$target_steps" bash tests/compat/run.sh "${COMPAT_OPS:-1000}"
    fi
    # Real client libraries at their defaults, against step 01 and the newest
    # step (not under valgrind: they test protocol, not memory).
    if [ -z "${STEP:-}" ] && [ -z "${VALGRIND:-}" ]; then
      first=${STEPS%% *} newest=${STEPS##* }
      part "real client libraries (tests/clients/) against $first and $newest"
      have_part "real clients" tests/clients && run_clients "$(pwd)/$BUILD/$first/server" --no-keyspace "$first"
      flag=""
      [ -d "tests/04-expiry-lazy" ] && [[ "$newest" > "04" ]] && flag=--expiry
      [ -d tests/clients ] && run_clients "$(pwd)/$BUILD/$newest/server" "$flag" "$newest"
    fi
    if [ -z "${NO_REFERENCE:-}" ]; then
      if command -v redis-server >/dev/null 2>&1; then
        last=$(echo "$target_steps" | tr ' ' '\n' | tail -1)
        part "reference run: the same suites against a real redis-server"
        for suite in $(suites_up_to "$last"); do run_suite redis-server "$suite" "redis-server"; done
        [ -z "${STEP:-}" ] && [ -d tests/hostile ] && run_suite redis-server hostile "redis-server"
      else
        echo "reference run skipped: redis-server is not installed (make deps installs it)"
      fi
    fi
  fi
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
