#!/usr/bin/env bash
# check_assertions.sh -- every check in the black-box suites and the exercise
# graders goes through tests/helpers/expect.bash, so that a failure prints
# what was sent, what was expected and what was received. This finds the
# two ways around it:
#   - a bare test command used as a check: a line that is only [ ... ] or
#     [[ ... ]] (as control flow, after if or before && or ||, it is fine);
#   - a bare bats `run`, which would leave SENT naming the command before.
# Prints each offending line as FILE:LINE: TEXT and exits 1 if there is one.
cd "$(dirname "$0")/../.." || exit 2
found=$(grep -nHE '^[[:space:]]*(\[\[? .*\]\]?[[:space:]]*$|run [^=])' \
  tests/*/*.bats tests/exercises/*/*.bats 2>/dev/null)
if [ -n "$found" ]; then
  echo "checks that do not say what was sent, expected and received (use tests/helpers/expect.bash):"
  echo "$found"
  exit 1
fi
