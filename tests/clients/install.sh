#!/usr/bin/env bash
# install.sh -- install the Node.js client libraries that run.sh points at the servers.
#
# ioredis and redis (node-redis) come from npm at the exact versions in
# package-lock.json, into tests/clients/node_modules (ignored by git), so
# every machine tests the same client code. Nothing is done when they are
# already installed from the current lock file. Without node or npm this
# prints why and exits 0: run.sh then skips the Node.js clients, saying so.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install.sh: node or npm not found; the Node.js client tests will be skipped"
  exit 0
fi

# npm writes node_modules/.package-lock.json on every install: older than the
# lock file or package.json means the installed packages are stale.
stamp="$HERE/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ ! "$HERE/package-lock.json" -nt "$stamp" ] &&
  [ ! "$HERE/package.json" -nt "$stamp" ]; then
  exit 0
fi

echo "install.sh: installing ioredis and redis from npm into tests/clients/node_modules"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! npm ci --prefix "$HERE" --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
  cat "$log" >&2
  echo "install.sh: npm ci failed" >&2
  exit 1
fi
