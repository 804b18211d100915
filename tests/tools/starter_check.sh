#!/usr/bin/env bash
# starter_check.sh -- checks the starter of every chapter, made with
# EXCERPTS=hide, as a student receives it:
#   - each note that stands for hidden code names a file the starter's
#     workspace holds, and functions defined there (as stubs or whole);
#   - the chapter's text names no command that fails in a starter (make
#     diff, make workspace or make exercise of the chapter itself, which
#     need its step);
#   - every unit test of the chapter compiles and links against the
#     workspace's files as handed out, its headers giving the declarations;
#   - make grade on the unchanged starter fails the chapter's first stage
#     with the first useful message first: a stub's "not written yet", with
#     no compiler error anywhere in what it prints.
# Prints TAP ("ok N - ...", "not ok N - ..." with "#" lines saying what was
# expected and what came). Takes three to five minutes; with arguments
# (chapters: 09, or 09-replication), only those chapters are checked.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/helpers/tap.sh # ok, not_ok, skip, check, diag; counts in n, failed

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
steps=$(ls -d steps/[0-9][0-9]-*/ | sed 's|steps/||; s|/$||')
# starter_check.sh NN ...: only those chapters (09, or 09-replication).
if [ $# -gt 0 ]; then
  steps=$(for nn in "$@"; do grep -E "^${nn}(-[a-z0-9-]+)?$" <<<"$steps"; done)
  [ -n "$steps" ] || { echo "starter_check.sh: no chapter $*" >&2; exit 2; }
fi
COMPILER_ERROR='[0-9]+:[0-9]+: (fatal )?error:|undefined reference to' # gcc's and ld's
echo "1..$((4 * $(wc -l <<<"$steps")))"

# notes_lacking DIR STEP: each file or function a hidden-code note names
# that the starter's workspace lacks, one per line.
notes_lacking() {
  python3 - "$1" "$2" <<'PY'
import pathlib, re, sys
dest, step = pathlib.Path(sys.argv[1]), sys.argv[2]
ws = dest / "workspace" / step
text = (dest / "docs" / (step + ".md")).read_text()
for note in re.finditer(r"^ *> \*\*Code left out of this starter\*\* \(`([^`]+)`\)(?:.*\n *>.*)*", text, re.M):
    name = pathlib.Path(note.group(1)).name
    if not (ws / name).is_file():
        print("file %s" % name)
        continue
    code = (ws / name).read_text()
    for fn in re.findall(r"^ *> - (?:part of )?`([A-Za-z_]\w*)\(\)`", note.group(0), re.M):
        if not re.search(r"\b%s\s*\(" % fn, code):
            print("%s() in %s" % (fn, name))
PY
}

for step in $steps; do
  num=${step%%-*} d=$tmp/$step
  if ! make -s --no-print-directory starter STEP="$num" DEST="$d" EXCERPTS=hide >"$tmp/starter.log" 2>&1; then
    not_ok "chapter $num: make starter STEP=$num EXCERPTS=hide"
    diag <"$tmp/starter.log"
    for _ in 1 2 3; do n=$((n + 1)); echo "not ok $n - chapter $num: no starter to check"; failed=$((failed + 1)); done
    continue
  fi
  notes=$(grep -c '^ *> \*\*Code left out of this starter\*\*' "$d/docs/$step.md")
  check "chapter $num: its $notes notes of hidden code name only files and functions its workspace has" "" \
    "$(notes_lacking "$d" "$step")"
  check "chapter $num: its text names no command of its own that needs its step" "" \
    "$(grep -nE "make (diff|workspace|exercise) STEP=$num\b" "$d/docs/$step.md" |
      grep -vE "make starter STEP=$num|\(\`make workspace STEP=$num\` made it|\` there grades it" | head -3)"
  units=$(make -s --no-print-directory -C "$d" STEP="$num" SERVER=workspace \
    --eval 'print-ws-units: ; @echo $(WS_UNITS)' print-ws-units 2>/dev/null)
  # shellcheck disable=SC2086 # a list of targets
  make -s --no-print-directory -C "$d" STEP="$num" SERVER=workspace $units >"$tmp/units.log" 2>&1
  built=0 total=0
  for u in $units; do total=$((total + 1)); [ -x "$d/$u" ] && built=$((built + 1)); done
  check "chapter $num: its $total unit test(s) compile and link against the workspace as handed out" \
    "$total" "$built"
  [ "$built" = "$total" ] || grep -h -m5 'error' "$d"/build/workspace/"$step"/unit/*/*.log 2>/dev/null | sed 's/^/#   /'
  (cd "$d" && make -s --no-print-directory grade STEP="$num") >"$tmp/grade.log" 2>&1
  # The first line that says why: a stub's, a failed check's, a compiler's.
  first_msg=$(grep -m1 -E "not written yet|FAILED|:[FE]:|$COMPILER_ERROR" "$tmp/grade.log")
  check "chapter $num: the unchanged starter's grade fails the first stage and says first what is not written yet, with no compiler error" \
    "Stage ${num}-1 failed | not written yet | 0" \
    "$(grep -m1 -oE '^Stage [0-9]+-[0-9]+ failed' "$tmp/grade.log") | $(grep -o 'not written yet' <<<"$first_msg") | $(grep -cE "$COMPILER_ERROR" "$tmp/grade.log")"
  [ -n "$(grep -o 'not written yet' <<<"$first_msg")" ] || echo "#   its first message: $first_msg"
  rm -rf "$d"
done
echo "# $n checks, $failed failed"
[ "$failed" -eq 0 ]
