#!/usr/bin/env bash
# workspace.sh -- start writing step NN yourself.
#   workspace.sh NN
# Copies step NN-1 (the step before the chapter) to workspace/NN-name/, which
# git ignores, and refuses to overwrite work already there. Then build and
# grade it with: make test STEP=NN SERVER=workspace
set -eu
cd "$(dirname "$0")/../.."
want=${1:-}
[ -n "$want" ] || { echo "usage: make workspace STEP=NN" >&2; exit 2; }
[[ "$want" =~ ^[0-9]$ ]] && want="0$want"
target=""
prev=""
for d in steps/*/; do
  d=$(basename "$d")
  if [ "${d%%-*}" = "${want%%-*}" ]; then target=$d; break; fi
  prev=$d
done
[ -n "$target" ] || { echo "no step $1 (steps: $(ls steps | tr '\n' ' '))" >&2; exit 2; }
[ -n "$prev" ] || { echo "step $target is the first step: write it from scratch in workspace/$target/, then grade it" >&2; exit 2; }
dest="workspace/$target"
if [ -e "$dest" ]; then
  echo "$dest already exists: not overwriting your work. Move it away to start over." >&2
  exit 1
fi
mkdir -p workspace
cp -r "steps/$prev" "$dest"
cat <<MSG
Created $dest: a copy of steps/$prev, the step before chapter ${target%%-*}.
Now:
  1. read docs/$target.md and change $dest/ until it does what the chapter describes
     (the chapter's finished step is steps/$target/, if you want to peek);
  2. grade it:  make test STEP=${target%%-*} SERVER=workspace
     (builds $dest with the project's flags and runs the suites of steps 01..${target%%-*});
  3. compare with the reference:  diff -ru steps/$target $dest
MSG
