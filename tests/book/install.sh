#!/usr/bin/env bash
# install.sh -- install diff2html, the renderer of the book's diff pages.
#
# It comes from npm at the exact version in package-lock.json, so every
# machine renders the same pages. It goes outside the source tree, into
# build/book-tools/node_modules (make clean removes it): package.json and
# the lock file are copied there and npm ci runs there. Nothing is done when
# it is already installed from the current lock file. Without node or npm
# this prints why and exits 0: make book then leaves out the diff pages and
# its test skips them, saying so.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DEST=${BOOK_TOOLS_DIR:-$ROOT/build/book-tools}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install.sh: node or npm not found; the book's diff pages will not be rendered"
  exit 0
fi

# npm writes node_modules/.package-lock.json on every install: older than the
# lock file or package.json means the installed packages are stale.
stamp="$DEST/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ ! "$HERE/package-lock.json" -nt "$stamp" ] &&
  [ ! "$HERE/package.json" -nt "$stamp" ]; then
  exit 0
fi

echo "install.sh: installing the book's diff renderer (diff2html; version from"
echo "  tests/book/package-lock.json) with npm ci into ${DEST#"$ROOT"/}/node_modules"
mkdir -p "$DEST"
cp "$HERE/package.json" "$HERE/package-lock.json" "$DEST/"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! npm ci --prefix "$DEST" --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
  cat "$log" >&2
  echo "install.sh: npm ci failed" >&2
  exit 1
fi
echo "install.sh: done"
