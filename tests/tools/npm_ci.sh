#!/usr/bin/env bash
# npm_ci.sh -- install the npm packages a test needs, at the exact versions of
# a package-lock.json, outside the source tree.
#
#   npm_ci.sh DIR DEST WHAT WITHOUT
#
# DIR holds package.json and package-lock.json; both are copied to DEST and
# npm ci runs there, into DEST/node_modules (under build/, so make clean
# removes it). Nothing is done when DEST was installed from the current lock
# file. WHAT names the packages in the message; WITHOUT says what happens
# when node or npm is missing, which is not an error: exits 0.
set -eu
DIR=$1 DEST=$2 WHAT=$3 WITHOUT=$4
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "npm_ci.sh: node or npm not found; $WITHOUT"
  exit 0
fi

# npm writes node_modules/.package-lock.json on every install: older than the
# lock file or package.json means the installed packages are stale.
stamp="$DEST/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ ! "$DIR/package-lock.json" -nt "$stamp" ] &&
  [ ! "$DIR/package.json" -nt "$stamp" ]; then
  exit 0
fi

echo "npm_ci.sh: installing $WHAT (versions from ${DIR#"$ROOT"/}/package-lock.json)"
echo "  with npm ci into ${DEST#"$ROOT"/}/node_modules"
mkdir -p "$DEST"
cp "$DIR/package.json" "$DIR/package-lock.json" "$DEST/"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! npm ci --prefix "$DEST" --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
  cat "$log" >&2
  echo "npm_ci.sh: npm ci failed" >&2
  exit 1
fi
echo "npm_ci.sh: done"
