#!/usr/bin/env bash
# workspace_check.sh -- checks that the learner's workspaces of chapters 01
# and 02 grade as they must: the skeletons that make workspace STEP=NN gives
# fail the chapter's first stage, named with its section, and the project's
# own files copied over them pass every stage. A skeleton that passed would
# mean the stripping left an answer in; a reference copy that failed would
# mean the workspace is not built or graded like the step.
# Chapter 01 is also graded half written (only resp.c and reply.c, the rest
# skeletons), which must pass at least two stages before the first failure:
# each file turns a stage green on its own. And mistakes a learner makes are
# planted in the project's files, one at a time (see plant_mistake): each
# must fail the stage that catches it, within MISTAKE_WITHIN_S of the
# start, saying what was sent, expected and received.
#
#   bash tests/tools/workspace_check.sh
#
# It works in a temporary copy of the repository (the files git knows, as
# they are now), never in workspace/, and builds there only the workspaces.
# Chapter 02's part needs its grader's stages (tests/02-get-set/stages) and is
# skipped without them. Output is TAP: "1..N", then "ok N - what",
# "not ok N - what" with the command's last output lines as "#" lines, or
# "ok N - what # skip why". Exits 1 if a check failed.
set -u
cd "$(dirname "$0")/../.." || exit 2

. tests/helpers/tap.sh # ok, not_ok, skip, check, diag; counts in n, failed
# verdict OUTPUT: the grader's last word ("Stage 01-2 failed: ...", "chapter
# 01: all 9 stages passed ..."), or the output's last line.
verdict() {
  grep -E '^(Stage [0-9]+-[0-9]+ failed|chapter [0-9]+: all)' <<<"$1" | head -1 | grep . || tail -1 <<<"$1"
}

# copy_repo DIR: the tracked files and the new ones git does not ignore (make
# grade checks only the grader's tools, so no npm package is needed there).
copy_repo() {
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$1"
}

# in_copy CMD...: run CMD in the copy, with nothing of a calling make (its
# variables, its SERVER or STEP) leaking in.
in_copy() {
  (cd "$tmp" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SERVER -u STEP -u EX -u BUILD \
    -u CFLAGS -u VALGRIND -u SANITIZED nice "$@") 2>&1
}

# check_chapter NN NAME REFERENCE...: the skeleton fails at stage NN-1, the
# REFERENCE files copied into the workspace pass every stage.
check_chapter() {
  local num=$1 name=$2 out status
  shift 2
  out=$(in_copy make -s --no-print-directory workspace STEP="$num")
  status=$?
  local stubs
  stubs=$(cat "$tmp/workspace/$name"/*.c 2>/dev/null | grep -c 'panic("not written yet: ')
  if [ "$status" -eq 0 ] && [ "$stubs" -gt 0 ]; then
    ok "make workspace STEP=$num: workspace/$name/ with $stubs stubs to write"
  else
    not_ok "make workspace STEP=$num: exit $status, $stubs stubs (want 0 and some)"
    diag <<<"$out"
  fi

  out=$(in_copy make -s --no-print-directory -j2 grade STEP="$num")
  status=$?
  if [ "$status" -ne 0 ] && grep -q "^Stage $num-1 failed" <<<"$out" &&
    grep -q "docs/$name.md, section \"" <<<"$out" && grep -q 'not written yet: ' <<<"$out" &&
    grep -q "grading chapter $num with .*/build/workspace/$name/server" <<<"$out"; then
    ok "make grade STEP=$num on the skeletons fails at stage $num-1, naming the section and the stub"
  else
    not_ok "make grade STEP=$num on the skeletons: expected a failure at stage $num-1 naming its section and a stub; received: $(verdict "$out") (exit $status)"
    diag <<<"$out"
  fi

  (cd "$tmp" && cp "$@" "workspace/$name/")
  out=$(in_copy make -s --no-print-directory -j2 grade STEP="$num")
  status=$?
  if [ "$status" -eq 0 ] && grep -q "^chapter $num: all [0-9]* stages passed" <<<"$out"; then
    ok "make grade STEP=$num with the project's files in the workspace passes: $(tail -1 <<<"$out")"
  else
    not_ok "make grade STEP=$num with the project's files in the workspace: expected every stage passed; received: $(verdict "$out") (exit $status)"
    diag 40 <<<"$out"
  fi
}

# check_half_written NN NAME WANT FILE...: with only FILEs of the project
# copied into the skeleton workspace, at least WANT stages pass before the
# first failure.
check_half_written() {
  local num=$1 name=$2 want=$3 out status passed
  shift 3
  rm -rf "$tmp/workspace/$name" "$tmp/build/workspace/$name"
  in_copy make -s --no-print-directory workspace STEP="$num" >/dev/null
  (cd "$tmp" && cp "$@" "workspace/$name/")
  out=$(in_copy make -s --no-print-directory -j2 grade STEP="$num")
  status=$?
  passed=$(sed -nE 's/^grade: stages ([0-9]+)\/.*/\1/p' <<<"$out")
  if [ "$status" -ne 0 ] && [ "${passed:-0}" -ge "$want" ]; then
    ok "make grade STEP=$num with only $(basename -a "$@" | tr '\n' ' ')written: $passed stages pass, then: $(verdict "$out")"
  else
    not_ok "make grade STEP=$num with only $* written: expected at least $want stages passed before a failure; received: $(verdict "$out") (exit $status)"
    diag 40 <<<"$out"
  fi
}

# The planted mistakes: plant_mistake NN NAME FILE SED STAGE WHAT [MUST_SAY]
# applies the sed script SED to FILE of the workspace (holding the project's
# files, every stage passing), grades stage STAGE alone and requires it to
# fail within MISTAKE_WITHIN_S, printing sent:, expected: and received: (or,
# for a unit test, called:) and MUST_SAY; then undoes the mistake. Timings
# are printed, in s, measured around make (the stage's start to its end, and
# the build, already done, in between).
# A reply that never completes costs each of the stage's checks its
# exchange's bound (EXCHANGE_TIMEOUT_S, 10 s: expect.bash), so a stage of a
# dozen checks takes two minutes to fail that way.
MISTAKE_WITHIN_S=180
plant_mistake() {
  local num=$1 name=$2 file=$3 script=$4 stage=$5 what=$6 must=${7:-} out status start took
  local path="$tmp/workspace/$name/$file"
  cp "$path" "$path.orig"
  sed -i "$script" "$path"
  if cmp -s "$path" "$path.orig"; then
    not_ok "planted mistake ($what): the sed script changed nothing in $file: update it"
    return
  fi
  start=$(date +%s%N)
  out=$(in_copy make -s --no-print-directory -j2 grade STEP="$num" STAGE="$stage")
  status=$?
  took=$((($(date +%s%N) - start) / 1000000))
  mv "$path.orig" "$path"
  if [ "$status" -ne 0 ] && grep -q "^Stage $stage failed" <<<"$out" &&
    [ "$took" -le $((MISTAKE_WITHIN_S * 1000)) ] &&
    grep -qE '^ *(sent|called): ' <<<"$out" && grep -qE '^ *expected: ' <<<"$out" &&
    grep -qE '^ *received: ' <<<"$out" && { [ -z "$must" ] || grep -qF "$must" <<<"$out"; }; then
    ok "planted mistake ($what): stage $stage fails in $((took / 1000)).$((took % 1000 / 100)) s, showing what was sent, expected and received${must:+ and \"$must\"}"
  else
    not_ok "planted mistake ($what): expected stage $stage to fail within $MISTAKE_WITHIN_S s, showing sent/expected/received${must:+ and \"$must\"}; received: $(verdict "$out") (exit $status, $((took / 1000)) s)"
    diag 40 <<<"$out"
  fi
}

echo "1..9"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/workspace-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
copy_repo "$tmp"

check_chapter 01 01-resp common/* steps/01-resp/*
# reply_bulk() without its final \r: the reply writers' unit tests see it at
# once; alone, the first stage over a socket must not wait for ever for the
# rest of the reply (redis-cli would).
no_cr='/^void reply_bulk(/,/^}/{s/buf_append(&c->out, "\\r\\n", 2);/buf_append(\&c->out, "\\n", 1);/}'
plant_mistake 01 01-resp reply.c "$no_cr" 01-2 "reply_bulk() without its final \\r"
plant_mistake 01 01-resp reply.c "$no_cr" 01-4 "reply_bulk() without its final \\r, graded over a socket" \
  "no complete reply within"
check_half_written 01 01-resp 2 common/resp.c common/reply.c
if [ -f tests/02-get-set/stages ]; then
  check_chapter 02 02-get-set steps/02-get-set/*
else
  for what in "make workspace STEP=02" "the skeletons fail stage 02-1" "the project's files pass"; do
    skip "$what" "tests/02-get-set/stages (chapter 02's grader) is missing"
  done
fi
echo "# $n checks, $failed failed"
[ "$failed" -eq 0 ]
