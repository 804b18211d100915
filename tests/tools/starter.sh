#!/usr/bin/env bash
# starter.sh -- a starter repository for one chapter, to hand to students.
#
#   starter.sh NN DEST [EX] [EXCERPTS]   (make starter STEP=NN DEST=dir [EX=K] [EXCERPTS=hide])
#
# Writes DEST, a git repository of one commit holding what a student needs to
# write chapter NN and nothing of its answer: the Makefile, LICENSE,
# .clang-format, common/ (but for chapter 01, which writes it), the steps before NN, the workspace `make workspace
# STEP=NN` makes, the tests and graders of chapters 01..NN, chapters 01..NN
# of docs/ with the pictures they show, and a README.md for students. No
# steps/NN or later, no docs/solutions, no benchmark results.
# With EX=K the student does exercise K of chapter NN: steps up to NN are in
# and the workspace is the exercise's (make workspace STEP=NN EX=K).
# With EXCERPTS=hide the chapter's text holds back the code the student is
# to write: each excerpt of the chapter's own files (steps/NN-name/, and
# common/ for chapter 01) becomes a note naming the function and its
# contract (tests/tools/hide_excerpts.py). Not with EX: an exercise's
# starter holds the chapter's step.
# The commit's author and date are fixed, so the same project gives the same
# commit. Inside DEST, `make test` runs the suites of the steps present and
# `make grade STEP=NN` grades the workspace (it fails until the work is done).
set -eu
want=${1:-} dest=${2:-} ex=${3:-} excerpts=${4:-}
usage() { echo "usage: make starter STEP=NN DEST=dir [EX=K] [EXCERPTS=hide]" >&2; exit 2; }
if [ -z "$want" ] || [ -z "$dest" ]; then usage; fi
case $excerpts in
  "" | show) excerpts="" ;;
  hide) [ -z "$ex" ] || { echo "starter: EXCERPTS=hide is for a chapter; an exercise's starter holds the chapter's step" >&2; exit 2; } ;;
  *) usage ;;
esac
dest=$(realpath -m "$dest") # before cd: DEST is relative to where we were called
cd "$(dirname "$0")/../.."
[[ "$want" =~ ^[0-9]$ ]] && want="0$want"
step=$(python3 tests/tools/stages.py step "$want") || exit 2
num=${step%%-*}
if [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ]; then
  echo "starter: $dest exists and is not empty" >&2
  exit 1
fi

# project_files: the project's files as git sees them (tracked, and new ones
# not ignored), without build/ and workspace/ (both ignored).
project_files() { git ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] && echo "$f"; done; }

# make_workspace DIR: run the project's own `make workspace` in a copy of the
# project, so the workspace is exactly what a learner gets, and the
# project's own workspace/ is never touched.
make_workspace() {
  local tmp=$1
  project_files | tar -cf - -T - | tar -C "$tmp" -xf -
  make -s --no-print-directory -C "$tmp" workspace STEP="$num" ${ex:+EX="$ex"} >/dev/null
}

# wanted PATH: whether a project file belongs in the starter.
wanted() {
  local f=$1 nn
  case $f in
    # Chapter 01 writes common/: its workspace has its own copies, to write.
    common/*) [ "$num" != 01 ] || [ -n "$ex" ]; return ;;
    Makefile | LICENSE | .clang-format | .gitignore) return 0 ;;
    tests/helpers/* | tests/make/* | tests/tools/* | tests/unit/*) return 0 ;;
    tests/run.sh | tests/exercises/check.sh | tests/exercises/grade.sh) return 0 ;;
    steps/[0-9][0-9]-*) nn=${f#steps/} ;;
    tests/exercises/[0-9][0-9]-*) nn=${f#tests/exercises/} ;;
    tests/[0-9][0-9]-*) nn=${f#tests/} ;;
    docs/[0-9][0-9]-*.md) nn=${f#docs/} ;;
    *) return 1 ;;
  esac
  nn=${nn:0:2}
  case $f in
    steps/*) [ -n "$ex" ] && [ "$nn" = "$num" ] && return 0; [[ "$nn" < "$num" ]] ;;
    *) [[ ! "$nn" > "$num" ]] ;;
  esac
}

# images: the pictures the chapters in DEST show (img/NAME in their text).
images() {
  grep -ohE '\(img/[^) ]+\)' "$dest"/docs/[0-9][0-9]-*.md 2>/dev/null | tr -d '()' | sort -u |
    while read -r img; do [ -f "docs/$img" ] && echo "docs/$img"; done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_workspace "$tmp"
mkdir -p "$dest"
project_files | while read -r f; do wanted "$f" && echo "$f"; done | tar -cf - -T - | tar -C "$dest" -xf -
images | tar -cf - -T - | tar -C "$dest" -xf -
cp -r "$tmp/workspace" "$dest/workspace"
ws=$(cd "$dest/workspace" && ls -d [0-9][0-9]-*/ | head -1)
ws=${ws%/}
# The workspace is the student's work, so git tracks it in the starter.
grep -v '^workspace/$' "$dest/.gitignore" >"$tmp/gitignore" && cp "$tmp/gitignore" "$dest/.gitignore"
if [ -n "$excerpts" ]; then
  own=("steps/$step/")
  [ "$num" = 01 ] && own+=(common/) # chapter 01 writes common/
  for doc in "$dest/docs/$num"-*.md; do python3 tests/tools/hide_excerpts.py "$doc" "${own[@]}" >/dev/null; done
fi
# The chapter's own commands that need its step (make diff STEP=NN, its
# exercises' make workspace) become what works in the starter.
if [ -z "$ex" ]; then
  prev=$(python3 tests/tools/step_name.py --before "$step" 2>/dev/null) || prev=""
  python3 tests/tools/starter_text.py "$dest/docs/$step.md" "$step" $prev >/dev/null
fi
bash tests/tools/starter_readme.sh "$step" "$ws" "$ex" "$excerpts" >"$dest/README.md"
# The chapters link to later chapters, benchmarks and solutions, which a
# starter does not hold: those links become their text.
python3 tests/tools/unlink_missing.py "$dest/docs" >/dev/null

git -C "$dest" init -q
git -C "$dest" add -A
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
  git -C "$dest" -c user.name=instructor -c user.email=instructor@localhost \
  commit -q -m "Starter for chapter $num${ex:+, exercise $ex}${excerpts:+, its code excerpts hidden}"
echo "wrote $dest: chapter $num${ex:+ exercise $ex}, workspace/$ws/, $(git -C "$dest" ls-files | wc -l) files, one commit${excerpts:+, the chapter excerpts hidden}"
