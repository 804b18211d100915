#!/usr/bin/env bash
# install.sh -- install diff2html, the renderer of the book's diff pages, at
# the exact version of package-lock.json, so every machine renders the same
# pages. It goes to build/book-tools/node_modules (BOOK_TOOLS_DIR=dir:
# dir/node_modules); tests/tools/npm_ci.sh does the work. Without node or npm,
# make book leaves out the diff pages and its test skips them, saying so.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
exec bash "$ROOT/tests/tools/npm_ci.sh" "$HERE" "${BOOK_TOOLS_DIR:-$ROOT/build/book-tools}" \
  "the book's diff renderer (diff2html)" "the book's diff pages will not be rendered"
