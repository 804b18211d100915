#!/usr/bin/env bash
# workspace.sh -- start writing a chapter, or one of its exercises, yourself.
#   workspace.sh NN        the chapter: workspace/NN-name/
#   workspace.sh NN K      exercise K of chapter NN: workspace/NN-name-exK/
# Creates the workspace (git ignores workspace/) and refuses to overwrite work
# already there. What a chapter's workspace starts from:
#   01  steps/01-resp/ and all of common/, with the files chapter 01 teaches
#       (SKELETONS_01) reduced to skeletons: it builds from these copies only
#   02  steps/02-get-set/ (step 01's files and the chapter's new ones), with
#       the hash table and the keyspace (SKELETONS_02) reduced to skeletons;
#       it links common/, chapter 01's library, as every later step does
#   03+ the chapter's step with the code the chapter writes taken out: of
#       the step before the chapter (the previous one in steps/, whatever
#       its number) every file the chapter leaves alone; of common/, a copy
#       of each file the chapter's step holds its own copy of (step 12's
#       net.c and net.h), as the step before builds with it; the chapter's
#       headers whole, for the declarations and contracts its unit tests and
#       stages call; main.c whole, the wiring; and every other file the
#       chapter adds or changes as a skeleton in which only the functions it
#       adds or changes are stubs (skeleton.py --unchanged-from). A file the
#       chapter deletes is left out.
# A skeleton keeps a file's types, signatures and contract comments and turns
# every function body into a stub that aborts with "not written yet"
# (tests/tools/skeleton.py); skeletons are made here, from the real files, and
# never stored. An exercise's workspace is a copy of the chapter's step.
# workspace.mk builds and grades a workspace: make grade STEP=NN.
set -eu
cd "$(dirname "$0")/../.."
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
SKELETONS_01="resp.c reply.c event_loop.c el_epoll.c el_poll.c net.c"
SKELETONS_02="dict.c keyspace.c"
# Functions given whole in a skeleton: the chapter uses SipHash but teaches
# the table, not the hash function.
GIVEN_dict_c="load_le64,rotl64,sip_round,sip_absorb,dict_set_hash_seed,dict_hash"

want=${1:-}
ex=${2:-}
[ -n "$want" ] || { echo "usage: make workspace STEP=NN [EX=K]" >&2; exit 2; }
target=$("$PYTHON" tests/tools/step_name.py --steps-only "$want") || exit 2
prev=$("$PYTHON" tests/tools/step_name.py --before "$target") || exit 2
num=${target%%-*}
dest="workspace/$target${ex:+-ex$ex}"
if [ -e "$dest" ]; then
  echo "$dest already exists: not overwriting your work. Move it away to start over." >&2
  exit 1
fi

# strip DOC DIR FILE...: replace each DIR/FILE by its skeleton.
strip() {
  local doc=$1 dir=$2 f
  shift 2
  for f in "$@"; do
    local given_var="GIVEN_${f//./_}"
    "$PYTHON" tests/tools/skeleton.py --given "${!given_var:-}" "$doc" "$dir/$f" "$dest/$f" >/dev/null
  done
}

# Build the workspace in a temporary directory first, so that a failure
# leaves nothing half made.
mkdir -p workspace
tmp=$(mktemp -d "workspace/.$target.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
final=$dest
dest=$tmp
finished="steps/$target/"
if [ -n "$ex" ]; then
  cp -r "steps/$target/." "$dest"
  from="a copy of steps/$target"
  compare="diff -ru steps/$target $final"
elif [ "$num" = 01 ]; then
  cp -r common/. "steps/$target/." "$dest"
  # shellcheck disable=SC2086 # the list is file names without spaces
  strip "docs/$target.md" common $SKELETONS_01
  from="steps/$target/ and common/, with skeletons of: $SKELETONS_01"
  finished="common/ and steps/$target/"
  compare="for f in $SKELETONS_01; do diff -u common/\$f $final/\$f; done"
elif [ "$num" = 02 ]; then
  cp -r "steps/$target/." "$dest"
  # shellcheck disable=SC2086
  strip "docs/$target.md" "steps/$target" $SKELETONS_02
  from="steps/$target/, with skeletons of: $SKELETONS_02 (it links common/, chapter 01's code)"
  compare="diff -ru steps/$target $final"
else
  cp -r "steps/$prev/." "$dest"
  # Each file of the chapter's step, against what the step before builds
  # with: its own copy, or common/'s when it has none (step 12's net.c is
  # the chapter's change to common/'s).
  whole="" skeletons="" gone="" copies=""
  for f in "steps/$target"/*.[ch]; do
    f=${f##*/}
    before=""
    if [ -e "steps/$prev/$f" ]; then before=steps/$prev/$f; elif [ -f "common/$f" ]; then before=common/$f; fi
    [ "$before" = "common/$f" ] && copies+=" $f"
    if [ -n "$before" ] && cmp -s "$before" "steps/$target/$f"; then
      cp "$before" "$dest/$f"
    elif [ "$f" = main.c ] || { [[ "$f" == *.h ]] && ! grep -q 'static inline' "steps/$target/$f"; }; then
      cp "steps/$target/$f" "$dest/$f" && whole+=" $f"
    elif [ -n "$before" ]; then
      "$PYTHON" tests/tools/skeleton.py --unchanged-from "$before" "docs/$target.md" \
        "steps/$target/$f" "$dest/$f" >/dev/null && skeletons+=" $f"
    else
      strip "docs/$target.md" "steps/$target" "$f" && skeletons+=" $f"
    fi
  done
  for f in "$dest"/*.[ch]; do
    f=${f##*/}
    [ -e "steps/$target/$f" ] || { rm "$dest/$f" && gone+=" $f"; }
  done
  from="steps/$target/ with the code chapter $num writes taken out: the files it changes or adds"
  from+=" as they are in steps/$target/ but for a stub in each function it adds or changes:${skeletons}"
  [ -z "$whole" ] || from+="; its headers and main.c whole:${whole}"
  from+="; the other files as in steps/$prev"
  [ -z "$copies" ] || from+=" (and of common/:${copies}, which the step holds copies of)"
  [ -z "$gone" ] || from+="; without${gone}, which the chapter deletes"
  compare="diff -ru steps/$target $final"
fi
mv "$dest" "$final"
trap - EXIT
dest=$final

if [ -n "$ex" ]; then
  cat <<MSG
Created $dest: $from.
Now:
  1. read exercise $ex in docs/$target.md ("Exercises") and change $dest/;
  2. grade it:  make exercise STEP=$num EX=$ex
     (builds $dest, linked with common/, and runs the exercise's grader);
  3. compare with the step:  $compare
MSG
  exit 0
fi
cat <<MSG
Created $dest: $from.
Now:
  1. read docs/$target.md and write $dest/ until it does what the chapter
     describes (the finished files are in $finished, if you want to peek);
  2. grade it:  make grade STEP=$num
     (builds $dest with the project's flags into
     build/workspace/$target/, and runs the chapter's stages in order, stopping at
     the first that fails; make run STEP=$num SERVER=workspace starts your server);
  3. compare with the reference:  $compare
MSG
