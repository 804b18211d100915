#!/usr/bin/env bash
# diffscope.sh -- each chapter's diff touches exactly the files it names.
#
# Every chapter docs/NN-name.md (NN >= 02) has one line
#   **Files this chapter changes:** `main.c`, `keyspace.c`, ...
# naming the files of steps/NN-name that differ from steps/NN-1 (added,
# removed or changed). This check fails when a neighbour diff touches a file
# the chapter does not list (unrelated churn between steps), or when the
# chapter lists a file the diff does not touch (a chapter out of date).
# Prints one line per chapter.
set -u
cd "$(dirname "$0")/../.."
status=0
prev=""
for dir in steps/*/; do
  step=$(basename "$dir")
  if [ -z "$prev" ]; then prev=$step; continue; fi
  doc="docs/$step.md"
  changed=$( { cd steps && diff -qr "$prev" "$step" 2>&1; } |
    sed -E "s#^Files $prev/([^ ]+) and $step/[^ ]+ differ#\1#; s#^Only in $prev: (.*)#\1#; s#^Only in $step: (.*)#\1#" | sort -u)
  listed=$(grep -m1 '^\*\*Files this chapter changes:\*\*' "$doc" 2>/dev/null | grep -o '`[^` ]*`' | tr -d '`' | sort -u)
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
exit $status
