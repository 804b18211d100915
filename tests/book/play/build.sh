#!/usr/bin/env bash
# build.sh -- every step compiled to WebAssembly for the book's pages.
#
#   build.sh OUT_DIR [STEP...]   OUT_DIR/NN-name.js for each step (default:
#                                every steps/NN-name), each defining
#                                RedisPlayground (api.js)
#
# Each module is the step's own files and common/'s (but those common/ files
# the step holds its own copy of), compiled unchanged by
# emscripten's emcc, with glue.c in place of main() (glue.c #includes main.c
# and the files whose private parts it reads, so those are not compiled
# again here: every "X.c" that glue.c names on an #include or __has_include
# line). One file per step, wasm inside (-sSINGLE_FILE), so the book still
# opens from disk with no web server. A module is rebuilt only when a file it
# is made of is newer.
#
# Without emcc this says so and exits 0: the book is built without them.
# emcc (Debian's emscripten) runs its optimizer with node; a node that is not
# Debian's finds the acorn Debian installs only through NODE_PATH.
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE="$ROOT/tests/book/play"
OUT=${1:?usage: build.sh OUT_DIR [STEP...]}
shift
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

if ! command -v emcc >/dev/null 2>&1; then
  echo "play: emcc is not installed, so the chapters' pages have no live server;" \
    "make deps installs it (Debian/Ubuntu: apt-get install emscripten)"
  exit 0
fi
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

# Step 07's DIGEST uses xxHash: its header alone, every function inline, so
# the module needs no library (the header is the one Debian's libxxhash-dev
# installs; only it is put on the include path).
XXH_DIR="$ROOT/build/play-include"
mkdir -p "$XXH_DIR"
[ -f /usr/include/xxhash.h ] && ln -sf /usr/include/xxhash.h "$XXH_DIR/xxhash.h"
CFLAGS="-std=c11 -O2 -Wall -Wextra -DXXH_INLINE_ALL -I$XXH_DIR"
EXPORTS='["_play_start","_play_send","_play_reply","_play_closed","_play_advance","_play_now","_play_inspect","_malloc","_free"]'
LDFLAGS=(-sSINGLE_FILE=1 -sMODULARIZE=1 -sEXPORT_NAME=RedisPlaygroundModule -sALLOW_MEMORY_GROWTH=1
  "-sENVIRONMENT=web,worker,node" "-sEXPORTED_FUNCTIONS=$EXPORTS"
  '-sEXPORTED_RUNTIME_METHODS=["UTF8ToString","HEAPU8"]' -sFILESYSTEM=1)

# The files glue.c compiles itself, by #include.
failed=0
included=$(grep -E '^#(include|if __has_include\() *"[^"]+\.c"' "$HERE/glue.c" |
  sed -E 's/.*"([^"]+\.c)".*/\1/' | sort -u)
is_included() { grep -qxF "$1" <<<"$included"; }

if [ $# -eq 0 ]; then
  for d in "$ROOT"/steps/[0-9][0-9]-*/; do
    [ -f "$d/main.c" ] && set -- "$@" "$(basename "$d")"
  done
fi
for step in "$@"; do
  dir="$ROOT/steps/$step"
  [ -f "$dir/main.c" ] || { echo "play: no step $step" >&2; exit 1; }
  # A step's own copy of a common/ file replaces common's (as the Makefile
  # builds it): such a step builds from a copy of common/ with its copied
  # headers in place of common's, so that common's files include them.
  common="$ROOT/common"
  own=()
  for f in "$dir"/*.[ch]; do [ -f "$ROOT/common/$(basename "$f")" ] && own+=("$(basename "$f")"); done
  if [ ${#own[@]} -gt 0 ]; then
    common="$ROOT/build/play-common/$step"
    rm -rf "$common" && mkdir -p "$common" && cp "$ROOT"/common/*.[ch] "$common"/
    for name in "${own[@]}"; do
      rm "$common/$name"
      case $name in *.h) cp "$dir/$name" "$common/" ;; esac
    done
  fi
  srcs=()
  for f in "$dir"/*.c "$common"/*.c; do
    name=$(basename "$f")
    [ "$name" = main.c ] || [ "$name" = el_epoll.c ] || is_included "$name" && continue
    srcs+=("$f")
  done
  out="$OUT/$step.js"
  stale=0
  for f in "$dir"/* "$ROOT"/common/* "$HERE"/glue.c "$HERE"/api.js "$0"; do
    [ "$f" -nt "$out" ] && stale=1 && break
  done
  [ -f "$out" ] && [ $stale -eq 0 ] && continue
  start=$(date +%s%N)
  # shellcheck disable=SC2086 # CFLAGS is a list of flags
  if ! emcc $CFLAGS -DSTEP_NAME="\"$step\"" -DSTEP_MAIN_C="\"main.c\"" -I"$common" -I"$dir" \
    "$HERE/glue.c" "${srcs[@]}" "${LDFLAGS[@]}" -o "$OUT/$step.module.js"; then
    echo "play: step $step did not compile to WebAssembly (above); its chapter has no live console" >&2
    rm -f "$out" "$OUT/$step.module.js"
    failed=1
    continue
  fi
  # The module's factory, then the API over it, registered under the step's name.
  { cat "$OUT/$step.module.js"
    cat "$HERE/api.js"
    printf 'RedisPlayground.register(%s, RedisPlaygroundModule);\n' "\"$step\""
  } >"$out.tmp"
  mv "$out.tmp" "$out"
  rm -f "$OUT/$step.module.js"
  echo "play: $step.js, $(($(wc -c <"$out") / 1024)) KB, compiled in $((($(date +%s%N) - start) / 1000000)) ms"
done
# A step that did not compile is reported above and left out; the rest of
# the book keeps its consoles (make play-check fails on the missing one).
[ $failed -eq 0 ] || echo "play: not every step compiled; see above" >&2
exit 0
