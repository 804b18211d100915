#!/usr/bin/env bash
# diffscope.sh -- each chapter's diff touches exactly the files it names
# (and, with --hunks, changes no comment that is narration).
#
#   tests/tools/diffscope.sh            the file check (tests/run.sh runs it)
#   tests/tools/diffscope.sh --hunks    the file check, then the hunk check
# (for make test to run the hunk check too, add --hunks to tests/run.sh's call)
#
# The file check. Every chapter docs/NN-name.md (NN >= 02) has one line
#   **Files this chapter changes:** `main.c`, `keyspace.c`, ...
# naming the files of steps/NN-name that differ from the step before it (the
# previous one in steps/: added, removed or changed), a new file marked
# `name.c` (new) and a removed one `name.c` (removed). A step's own copy of a
# common/ file (step 12's net.c) is compared with common's, which the step
# without it builds with: listed unmarked, as a changed file. This check fails when a neighbour diff touches a file
# the chapter does not list (unrelated churn between steps), when the
# chapter lists a file the diff does not touch (a chapter out of date), or
# when a mark is missing or wrong.
# Prints one line per chapter.
#
# The hunk check (--hunks) looks inside every file present in both steps of
# a pair, at the hunks of `diff -u PREV/FILE steps/NN/FILE` (PREV: the step
# before, or common/ for a step's own copy of a common/ file): what a
# learner reads in `make diff`. Each changed line is code, comment, header
# or blank (the rule is in difflines.awk: a comment line has no code on it;
# header lines are the comment lines above the file's first line of code).
# A hunk is comment churn, and fails, when
#   - it changes a line of the file's header comment, whether or not it also
#     changes code: the header says what the file is now, so a chapter that
#     adds code does not rewrite it ("since chapter 04 ...": that history
#     belongs in the chapter), and the #includes below a header never
#     explain a change to it; or
#   - it changes comment lines and no code (blank lines aside), and no code
#     line of the file changes within NEAR (12) lines of it. A comment that
#     explains code the chapter changed (a function's contract above its
#     changed body) changes with that code, so it is near it; a comment that
#     changes far from any code change is narration.
# unless tests/tools/diffscope.allow allows it. Each entry there is a line
#   STEP FILE TEXT        e.g.   06 main.c main.c -- step 06
# (STEP: "06", "06-timewheel" or "*" for every step) and allows the churn
# hunks of that file in that step's diff that have TEXT in one of their
# changed comment lines; a # comment above the entry says why. An entry that
# allows nothing fails the check too, so the list shrinks with the churn.
# Each failure names the step pair, the file, the hunk's line range, its
# lines (-N: line N of the older step's file, +N: of the newer) and what is
# expected instead; the hunk check ends with one line per step pair.
set -u
cd "$(dirname "$0")/../.."
case "${1:-}" in
  "") hunks=0 ;;
  --hunks) hunks=1 ;;
  *) echo "usage: $0 [--hunks]" >&2; exit 2 ;;
esac
NEAR=12
allow=tests/tools/diffscope.allow
used=$(mktemp)
trap 'rm -f "$used"' EXIT

# Prints the churn hunks of one neighbour pair and a summary line for it;
# fails if there was one.
check_hunks() { # check_hunks PREV STEP
  local prev=$1 step=$2 path f a b churn=0 files=""
  for path in "steps/$step"/*; do
    f=${path##*/} a="steps/$prev/${path##*/}" b=$path
    [ -f "$a" ] || a=$(common_stand_in "$prev" "$f")
    [ -f "$a" ] || continue          # a new file: the file check covers it
    cmp -s "$a" "$b" && continue
    if ! diff -u "$a" "$b" | awk -v old="$a" -v new="$b" -f tests/tools/difflines.awk |
      awk -v prev="$prev" -v step="$step" -v file="$f" -v near="$NEAR" \
        -v allow="$allow" -v used="$used" -f tests/tools/diffchurn.awk; then
      churn=1; files+=" $f"
    fi
  done
  if [ "$churn" -eq 0 ]; then echo "$prev -> $step: no comment churn"; else echo "$prev -> $step: comment churn in$files"; fi
  [ "$churn" -eq 0 ]
}

# common_stand_in STEP FILE: common/FILE when STEP, which holds no FILE of
# its own, builds with common's (a later or earlier step holds its own copy
# of it: step 12's net.c); nothing otherwise. A copy is compared with that.
common_stand_in() {
  [ ! -e "steps/$1/$2" ] && [ -f "common/$2" ] && echo "common/$2"
}

# changed_files PREV STEP: the lines the file check expects, one a file.
changed_files() {
  local prev=$1 step=$2 line f
  { cd steps && diff -qr "$prev" "$step" 2>&1; } |
    sed -E "s#^Files $prev/([^ ]+) and $step/[^ ]+ differ#\1#; s#^Only in $prev: (.*)#\1 (removed)#; s#^Only in $step: (.*)#\1 (new)#" |
    while IFS= read -r line; do
      f=${line% (new)} f=${f% (removed)}
      if [ "$f" != "$line" ] && [ -f "common/$f" ]; then
        # a step's own copy of a common/ file, against common's
        if [ "$line" = "$f (new)" ]; then cmp -s "common/$f" "steps/$step/$f" || echo "$f"
        else cmp -s "steps/$prev/$f" "common/$f" || echo "$f"; fi
      else
        echo "$line"
      fi
    done | sort -u
}

status=0
prev=""
for main in steps/[0-9][0-9]-*/main.c; do # the steps step_name.py knows, in order
  step=$(basename "$(dirname "$main")")
  if [ -z "$prev" ]; then prev=$step; continue; fi
  doc="docs/$step.md"
  changed=$(changed_files "$prev" "$step")
  listed=$(grep -m1 '^\*\*Files this chapter changes:\*\*' "$doc" 2>/dev/null |
    grep -oE '`[^` ]*`( \((new|removed)\))?' | tr -d '`' | sort -u)
  if [ -z "$listed" ]; then
    echo "$doc: no '**Files this chapter changes:**' line"
    status=1
  elif [ "$changed" != "$listed" ]; then
    echo "$prev -> $step: the diff touches [$(echo $changed)], $doc lists [$(echo $listed)]"
    status=1
  else
    echo "$prev -> $step: $(echo $changed)"
  fi
  prev=$step
done

if [ "$hunks" -eq 1 ]; then
  echo
  prev=""
  for main in steps/[0-9][0-9]-*/main.c; do # the steps step_name.py knows, in order
    step=$(basename "$(dirname "$main")")
    [ -n "$prev" ] && { check_hunks "$prev" "$step" || status=1; }
    prev=$step
  done
  # Entries of the allow list that allowed no hunk are out of date, unless
  # their step is not here (a starter repository stops before it).
  if [ -f "$allow" ]; then
    stale=$(awk -v used="$used" -v present=" $(ls steps | cut -c1-2 | tr '\n' ' ')" '
      BEGIN { while ((getline n < used) > 0) seen[n] = 1 }
      !/^[ \t]*(#|$)/ && ($1 == "*" || index(present, " " substr($1, 1, 2) " ")) && !(FNR in seen) {
        printf "%s:%d: %s\n", FILENAME, FNR, $0 }' "$allow")
    if [ -n "$stale" ]; then
      echo "$stale"
      echo "  these entries allow no churn hunk: the lines they were for are gone or changed; remove or update them"
      status=1
    fi
  fi
fi
exit $status
