#!/usr/bin/env bash
# shellcheck disable=SC2086 # $FLAGS, file lists and FUZZ_ARGS are split on purpose
# run.sh -- build and run the libFuzzer targets.
#
#   tests/fuzz/run.sh TARGET SECONDS    one target: fuzz_resp_parser,
#                                       fuzz_commands, fuzz_set_fsm or
#                                       fuzz_rdb_load
#   tests/fuzz/run.sh all SECONDS       every target, SECONDS each, one after
#                                       the other (fuzz_set_fsm only once
#                                       steps/07-set-options-fsm/set_fsm.c
#                                       exists and builds, fuzz_rdb_load
#                                       once steps/08-snapshot/rdb.c does)
#
# For each target: build it with clang -fsanitize=fuzzer,address,undefined
# into build/fuzz/; replay every saved crash in tests/fuzz/regressions/TARGET/
# (each must now pass); copy the seed corpus tests/fuzz/corpus/TARGET/ into a
# working corpus build/fuzz/corpus/TARGET/ (what the fuzzer finds goes there,
# never into the repository); fuzz for SECONDS. Output is TAP, one line per
# check, so tests/run.sh counts it as it counts bats --tap:
#
#   ok 1 - fuzz_resp_parser: 3 regression inputs replayed
#   ok 2 - fuzz_resp_parser: 1234567 executions in 60 s, cov: 412 ft: 1830 corpus: 310
#   not ok 3 - fuzz_commands (steps/06-timewheel): crash after 5678 executions, input saved as build/fuzz/artifacts/fuzz_commands/crash-...
#   ok 4 - fuzz_set_fsm # skip steps/07-set-options-fsm/set_fsm.c does not exist yet
#   1..4
#
# and exit non-zero on any crash, sanitizer report, leak, timeout or
# out-of-memory. A crash input belongs in tests/fuzz/regressions/TARGET/
# once its bug is fixed.
#
# The C standard, warnings, the event-loop back end, a step's name and its
# libraries are the Makefile's (make print-build-vars), so POLL=1 and
# WERROR=1 work as they do for make; the fuzzer adds its own compiler,
# optimisation and sanitizers.
#
# Environment: FUZZ_CC (default clang); FUZZ_STEP=NN builds fuzz_commands
# against step NN instead of the newest; FUZZ_ARGS adds libFuzzer flags (e.g.
# FUZZ_ARGS=-seed=1). One fuzzer runs at a time, so `make test` stays gentle
# on a 2-core machine.
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
OUT=$ROOT/build/fuzz
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
TARGETS="fuzz_resp_parser fuzz_commands fuzz_set_fsm fuzz_rdb_load"

usage() {
  echo "usage: tests/fuzz/run.sh {fuzz_resp_parser|fuzz_commands|fuzz_set_fsm|fuzz_rdb_load|all} SECONDS" >&2
  exit 2
}
[ $# -eq 2 ] || usage
[[ "$2" =~ ^[0-9]+$ ]] || usage
SECONDS_EACH=$2

if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
  echo "ok 1 - fuzzing # skip $FUZZ_CC is not installed (apt-get install clang)"
  echo "1..1"
  exit 0
fi

# The newest step that is a complete server (has a main.c), or FUZZ_STEP
# (e.g. FUZZ_STEP=06) for fuzz_commands against an earlier step.
newest_step() {
  local s last=""
  if [ -n "${FUZZ_STEP:-}" ]; then
    for s in steps/"${FUZZ_STEP}"*/main.c; do [ -e "$s" ] && last=$(dirname "$s"); done
    echo "$last"
    return
  fi
  for s in steps/[0-9][0-9]-*/main.c; do [ -e "$s" ] && last=$(dirname "$s"); done
  echo "$last"
}

# make_vars [STEP]: set PROJECT_CFLAGS, COMMON_SRC and, for STEP, STEP_CFLAGS
# (its name) and STEP_LIBS, from the Makefile; FLAGS is what a target is
# compiled with.
make_vars() {
  local vars
  vars=$(make -s --no-print-directory print-build-vars ${1:+STEP="$1"}) || return 1
  eval "$vars"
  FLAGS="$FUZZ_FLAGS $PROJECT_CFLAGS"
}

COMMON_NO_EL="common/alloc.c common/buffer.c common/panic.c common/strnum.c"

n_checks=0
tap_ok() { n_checks=$((n_checks + 1)); echo "ok $n_checks - $*"; }
tap_not_ok() { n_checks=$((n_checks + 1)); echo "not ok $n_checks - $*"; }

# build TARGET: prints nothing on success; on failure prints why, returns 1
# (2 when the target cannot exist yet: skip it).
build() {
  local t=$1 log="$OUT/$1.build.log"
  mkdir -p "$OUT"
  # shellcheck disable=SC2034 # make_vars sets them all; a target uses some
  local CC CFLAGS PROJECT_CFLAGS COMMON_SRC STEP_CFLAGS STEP_LIBS STEP_INC STEP_COMMON_SRC FLAGS
  case $t in
    fuzz_resp_parser)
      make_vars >"$log" 2>&1 || return 1
      $FUZZ_CC $FLAGS -Icommon tests/fuzz/fuzz_resp_parser.c common/resp.c $COMMON_NO_EL \
        -o "$OUT/$t" >"$log" 2>&1 ;;
    fuzz_commands)
      local step
      step=$(newest_step)
      [ -n "$step" ] || { echo "no step with a main.c" >"$log"; return 2; }
      make_vars "$(basename "$step")" >"$log" 2>&1 || return 1
      local srcs=() f
      # main.c and dict.c are compiled into fuzz_commands.c, which includes them
      for f in "$step"/*.c; do case $(basename "$f") in main.c | dict.c) ;; *) srcs+=("$f") ;; esac; done
      $FUZZ_CC $FLAGS $STEP_CFLAGS $STEP_INC -I"$step" -DSTEP_MAIN_C="\"$step/main.c\"" -I. \
        tests/fuzz/fuzz_commands.c "${srcs[@]}" $STEP_COMMON_SRC -o "$OUT/$t" $STEP_LIBS >"$log" 2>&1 || return 1
      echo "$step" >"$OUT/$t.step" ;;
    fuzz_set_fsm)
      local fsm=steps/07-set-options-fsm
      [ -f "$fsm/set_fsm.c" ] || { echo "$fsm/set_fsm.c does not exist yet" >"$log"; return 2; }
      make_vars "$(basename "$fsm")" >"$log" 2>&1 || return 1
      $FUZZ_CC $FLAGS $STEP_CFLAGS -Icommon -I"$fsm" tests/fuzz/fuzz_set_fsm.c "$fsm/set_fsm.c" \
        common/strnum.c -o "$OUT/$t" $STEP_LIBS >"$log" 2>&1 || return 2 ;;
    fuzz_rdb_load)
      local snap=steps/08-snapshot
      [ -f "$snap/rdb.c" ] || { echo "$snap/rdb.c does not exist yet" >"$log"; return 2; }
      make_vars "$(basename "$snap")" >"$log" 2>&1 || return 1
      $FUZZ_CC $FLAGS $STEP_CFLAGS -Icommon -I"$snap" tests/fuzz/fuzz_rdb_load.c "$snap/rdb.c" \
        $COMMON_NO_EL -o "$OUT/$t" >"$log" 2>&1 || return 1 ;;
    *) usage ;;
  esac
}

# replay TARGET: run every saved regression input once; 0 if all pass.
replay() {
  local t=$1 dir=$ROOT/tests/fuzz/regressions/$1 f n=0 bad=0
  [ -d "$dir" ] || return 0
  for f in "$dir"/*; do
    [ -f "$f" ] || continue
    case $f in *.md|*.txt) continue ;; esac
    n=$((n + 1))
    if ! FUZZ_FRESH_KEYSPACE=1 "$OUT/$t" -runs=1 "$f" >"$OUT/$t.replay.log" 2>&1; then
      tap_not_ok "$t: regression ${f#"$ROOT"/} fails again"
      grep -aE 'ERROR|SUMMARY|invariant|runtime error' "$OUT/$t.replay.log" | head -5 | sed 's/^/#   /'
      bad=$((bad + 1))
    fi
  done
  [ "$n" -gt 0 ] && [ "$bad" -eq 0 ] && tap_ok "$t: $n regression input(s) replayed"
  [ "$bad" -eq 0 ]
}

# fuzz TARGET SECONDS
fuzz() {
  local t=$1 secs=$2 status
  build "$t"
  status=$?
  if [ "$status" -eq 2 ]; then
    tap_ok "$t # skip $(head -1 "$OUT/$t.build.log")"
    return 0
  elif [ "$status" -ne 0 ]; then
    tap_not_ok "$t: does not build"
    head -20 "$OUT/$t.build.log" | sed 's/^/#   /'
    return 1
  fi
  replay "$t" || return 1
  [ "$secs" -gt 0 ] || return 0
  local work=$OUT/corpus/$t arts=$OUT/artifacts/$t log=$OUT/$t.log
  mkdir -p "$work" "$arts"
  [ -d "tests/fuzz/corpus/$t" ] && cp -n tests/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null
  local maxlen=4096
  [ "$t" = fuzz_commands ] && maxlen=8192
  "$OUT/$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -max_len=$maxlen \
    -dict="$ROOT/tests/fuzz/resp.dict" -print_final_stats=1 -artifact_prefix="$arts/" \
    ${FUZZ_ARGS:-} "$work" >"$log" 2>&1
  status=$?
  # libFuzzer's last status line: "#123456 DONE cov: 412 ft: 1830 corp: 310/9Kb ..."
  local last execs cov ft corp
  last=$(grep -aE '^#[0-9]+' "$log" | tail -1)
  execs=$(grep -aE '^stat::number_of_executed_units:' "$log" | awk '{print $2}')
  [ -n "$execs" ] || execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")
  local extra=""
  [ -f "$OUT/$t.step" ] && [ "$t" = fuzz_commands ] && extra=" ($(cat "$OUT/$t.step"))"
  if [ "$status" -ne 0 ]; then
    local art
    art=$(grep -aoE "Test unit written to [^ ]+" "$log" | tail -1 | sed 's/Test unit written to //')
    tap_not_ok "$t$extra: failed after ${execs:-?} executions, input saved as ${art:-?}; log: $log"
    grep -aE 'ERROR:|SUMMARY:|invariant failed|runtime error|malformed reply|replies for' "$log" |
      head -8 | sed 's/^/#   /'
    return 1
  fi
  tap_ok "$t$extra: ${execs:-?} executions in $secs s, cov: ${cov:-?} ft: ${ft:-?} corpus: ${corp:-?}"
}

case " all $TARGETS " in *" $1 "*) ;; *) usage ;; esac
[ "$1" = all ] && run_targets=$TARGETS || run_targets=$1
rc=0
for t in $run_targets; do fuzz "$t" "$SECONDS_EACH" || rc=1; done
echo "1..$n_checks"
exit $rc
