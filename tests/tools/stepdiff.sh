#!/usr/bin/env bash
# stepdiff.sh -- what a chapter added: the diff between two steps' tracked files.
#   stepdiff.sh NN            step NN-1 against step NN
#   stepdiff.sh "" AA BB      step AA against step BB
# A stat header first, then the unified diff. Build output is never in
# steps/, and untracked files are left out, so the diff is the chapter.
set -eu
cd "$(dirname "$0")/../.."

resolve() { # "4", "04" or "04-expiry-lazy" -> steps/04-expiry-lazy
  local want=$1 d
  [[ "$want" =~ ^[0-9]$ ]] && want="0$want"
  for d in steps/*/; do
    d=${d%/}
    if [ "${d#steps/}" = "$want" ] || [ "$(basename "$d" | cut -d- -f1)" = "$want" ]; then
      echo "$d"; return
    fi
  done
  echo "no such step: $1" >&2; exit 2
}

if [ -n "${1:-}" ]; then
  to=$(resolve "$1")
  n=$((10#$(basename "$to" | cut -d- -f1)))
  [ "$n" -gt 1 ] || { echo "step 01 is the first step: nothing to diff against" >&2; exit 2; }
  from=$(resolve "$((n - 1))")
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
cd "$tmp"
echo "# $(basename "$from") -> $(basename "$to")"
git diff --no-index --stat=100 "$(basename "$from")" "$(basename "$to")" || true
echo
git diff --no-index "$(basename "$from")" "$(basename "$to")" || true
