#!/usr/bin/env bash
# workspace_check.sh -- checks that the learner's workspaces of chapters 01
# and 02 grade as they must: the skeletons that make workspace STEP=NN gives
# fail the chapter's first stage, named with its section, and the project's
# own files copied over them pass every stage. A skeleton that passed would
# mean the stripping left an answer in; a reference copy that failed would
# mean the workspace is not built or graded like the step.
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
# 01: all 6 stages passed ..."), or the output's last line.
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

echo "1..6"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/workspace-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
copy_repo "$tmp"

check_chapter 01 01-resp common/* steps/01-resp/*
if [ -f tests/02-get-set/stages ]; then
  check_chapter 02 02-get-set steps/02-get-set/*
else
  for what in "make workspace STEP=02" "the skeletons fail stage 02-1" "the project's files pass"; do
    skip "$what" "tests/02-get-set/stages (chapter 02's grader) is missing"
  done
fi
echo "# $n checks, $failed failed"
[ "$failed" -eq 0 ]
