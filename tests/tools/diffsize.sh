#!/usr/bin/env bash
# diffsize.sh -- how big each chapter's diff is, and how much of it is comments.
#
# For each neighbour pair of steps (01 -> 02 ... 09 -> 12: each step and the
# previous one in steps/) prints one row of a Markdown table (a step's own
# copy of a common/ file counts as a changed file, against common's):
#   chapter         the later step of the pair: its chapter's diff
#   files           files added / removed / changed between the two steps
#   +lines, -lines  lines added and removed, over all files (an added file's
#                   lines all count as added, a removed file's as removed)
#   changed lines in changed files
#                   the changed lines (+ and -) of the files present in both
#                   steps: the files whose diff a learner reads line by line
#   comment lines   how many of those are comment lines (+ / -)
#   comments        that, as a percentage of the changed lines before it
#   hunks           the `diff -u` hunks of the changed files, and how many of
#                   them change comment lines and nothing else but blank lines
#
# What a comment line is (the rule is in difflines.awk): in a .c or .h
# file, a line with no code on it, only a comment or part of one: `/* ...`,
# ` * ...`, ` */`, `// ...`, or an empty line inside /* */. A line with code
# and a trailing comment is code. A blank line outside any comment is
# neither: it counts as a changed line but not as a comment line. Every
# file is read whole, so a line inside a long comment is a comment line even
# when the diff shows it alone. Lines are counted in the output of `diff -u`,
# file by file (`make diff` uses git's diff, whose counts can differ by a
# line or two where a change can be aligned two ways).
#
#   tests/tools/diffsize.sh          the table, for the steps in steps/
set -u
cd "$(dirname "$0")/../.." || exit 2
lines_of() { awk 'END { print NR }' "$1"; }

echo "| chapter | files (added/removed/changed) | +lines | -lines | changed lines in changed files | comment lines (+/-) | comments | hunks (comment-only) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
prev=""
for main in steps/[0-9][0-9]-*/main.c; do # the steps step_name.py knows, in order
  step=$(basename "$(dirname "$main")")
  if [ -z "$prev" ]; then prev=$step; continue; fi
  added=0 removed=0 changed=0 plus=0 minus=0 stats=""
  for f in $(cd steps && for p in "$prev"/* "$step"/*; do echo "${p#*/}"; done | sort -u); do
    a="steps/$prev/$f" b="steps/$step/$f"
    # A step's own copy of a common/ file (step 12's net.c) counts as a
    # change to common's, which the step without it builds with.
    if [ -f "common/$f" ]; then [ -e "$a" ] || a="common/$f"; [ -e "$b" ] || b="common/$f"; fi
    if [ ! -e "$a" ]; then added=$((added + 1)); plus=$((plus + $(lines_of "$b")))
    elif [ ! -e "$b" ]; then removed=$((removed + 1)); minus=$((minus + $(lines_of "$a")))
    elif ! cmp -s "$a" "$b"; then
      changed=$((changed + 1))
      stats+=$(diff -u "$a" "$b" | awk -v old="$a" -v new="$b" -f tests/tools/difflines.awk)$'\n'
    fi
  done
  # One pass over the changed files' lines: sum them by sign and kind, and
  # count the hunks whose changed lines are all comments or blank.
  awk -F'\t' -v chapter="$step" -v files="$((added + removed + changed)) ($added/$removed/$changed)" \
      -v plus="$plus" -v minus="$minus" '
    $1 == "H" { hunks++; h = hunks; next }
    $1 == "L" {
      n[$3]++
      if ($4 == "comment" || $4 == "header") { c[$3]++; has_comment[h] = 1 }
      if ($4 == "code") has_code[h] = 1
    }
    END {
      for (h = 1; h <= hunks; h++) if (has_comment[h] && !has_code[h]) comment_only++
      ch = n["+"] + n["-"]; cm = c["+"] + c["-"]
      printf "| %s | %s | %d | %d | %d | %d (%d/%d) | %s | %d (%d) |\n", chapter, files,
        plus + n["+"], minus + n["-"], ch, cm, c["+"], c["-"],
        ch ? sprintf("%.0f%%", 100 * cm / ch) : "-", hunks, comment_only
    }' <<<"$stats"
  prev=$step
done
