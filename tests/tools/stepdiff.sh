#!/usr/bin/env bash
# stepdiff.sh -- what a chapter added: the diff between two steps' tracked files.
#   stepdiff.sh NN            the step before NN against step NN (the
#                             previous one in steps/, whatever its number)
#   stepdiff.sh "" AA BB      step AA against step BB
# A stat header first, then the unified diff. Build output is never in
# steps/, and untracked files are left out, so the diff is the chapter. A
# step's own copy of a common/ file is shown against common's version when
# the other step has none (it builds with common's).
# In a terminal the whole of it goes through one pager (git's: GIT_PAGER,
# core.pager, PAGER, else less), in colour; git would otherwise open its own
# pager twice, once for the stat and once for the diff.
set -eu
cd "$(dirname "$0")/../.."
pager=$(git var GIT_PAGER 2>/dev/null || echo less)

resolve() { # "4", "04" or "04-expiry-lazy" -> steps/04-expiry-lazy
  local name
  name=$(python3 tests/tools/step_name.py --steps-only "$1") || exit 2
  echo "steps/$name"
}

if [ -n "${1:-}" ]; then
  to=$(resolve "$1")
  prev=$(python3 tests/tools/step_name.py --before "$1") || exit 2
  [ -n "$prev" ] || { echo "step $(basename "$to") is the first step: nothing to diff against" >&2; exit 2; }
  from="steps/$prev"
elif [ -n "${2:-}" ] && [ -n "${3:-}" ]; then
  from=$(resolve "$2"); to=$(resolve "$3")
else
  echo "usage: make diff STEP=NN   or   make diff FROM=AA TO=BB" >&2; exit 2
fi

# Copy the tracked files of both steps into a scratch tree, so the diff shows
# paths relative to the step (a/main.c, b/main.c) and nothing untracked.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in "$from" "$to"; do
  mkdir -p "$tmp/$(basename "$d")"
  git ls-files -z --cached --others --exclude-standard "$d" | while IFS= read -r -d '' f; do
    mkdir -p "$tmp/$(basename "$d")/$(dirname "${f#"$d"/}")"
    cp "$f" "$tmp/$(basename "$d")/${f#"$d"/}"
  done
done
# A step's own copy of a common/ file (step 12's net.c) replaces common's in
# its build, so a step without one builds with common's: that is the side
# the copy is shown against.
against=""
for d in "$from" "$to"; do
  other=$to; [ "$d" = "$to" ] && other=$from
  for f in "$d"/*.[ch]; do
    f=${f##*/}
    if [ -f "common/$f" ] && [ ! -e "$tmp/$(basename "$other")/$f" ]; then
      cp "common/$f" "$tmp/$(basename "$other")/$f"
      against+=" $f"
    fi
  done
done
cd "$tmp"
show() { # show COLOUR: the header, the stat and the diff, on stdout
  echo "# $(basename "$from") -> $(basename "$to")"
  [ -z "$against" ] || echo "# common/'s${against} stand in for the step that holds no copy of them: it builds with those"
  git --no-pager diff --no-index "--color=$1" --stat=100 "$(basename "$from")" "$(basename "$to")" || true
  echo
  git --no-pager diff --no-index "--color=$1" "$(basename "$from")" "$(basename "$to")" || true
}
if [ -t 1 ]; then
  # less needs -R for colour; git gives it FRX the same way when LESS is unset.
  show always | LESS=${LESS-FRX} LV=${LV--c} sh -c "$pager"
else
  show never
fi
