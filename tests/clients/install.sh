#!/usr/bin/env bash
# install.sh -- install the Node.js client libraries that run.sh points at the servers.
#
# ioredis and redis (node-redis) come from npm at the exact versions in
# package-lock.json, so every machine tests the same client code. They go
# outside the source tree, into build/clients/node_modules (make clean
# removes it; NODE_CLIENTS_DIR=dir puts them in dir/node_modules instead):
# package.json and the lock file are copied there and npm ci runs there.
# Nothing is done when they are already installed from the current lock
# file. Without node or npm this prints why and exits 0: run.sh then skips
# the Node.js clients, saying so.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DEST=${NODE_CLIENTS_DIR:-$ROOT/build/clients}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install.sh: node or npm not found; the Node.js client tests will be skipped"
  exit 0
fi

# npm writes node_modules/.package-lock.json on every install: older than the
# lock file or package.json means the installed packages are stale.
stamp="$DEST/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ ! "$HERE/package-lock.json" -nt "$stamp" ] &&
  [ ! "$HERE/package.json" -nt "$stamp" ]; then
  exit 0
fi

echo "install.sh: installing the Node.js clients of the real-clients test (ioredis, redis;"
echo "  versions from tests/clients/package-lock.json) with npm ci into ${DEST#"$ROOT"/}/node_modules"
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
