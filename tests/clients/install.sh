#!/usr/bin/env bash
# install.sh -- install the Node.js client libraries that run.sh points at the
# servers: ioredis and redis (node-redis), at the exact versions of
# package-lock.json, so every machine tests the same client code. They go to
# build/clients/node_modules (NODE_CLIENTS_DIR=dir: dir/node_modules);
# tests/tools/npm_ci.sh does the work. Without node or npm, run.sh skips the
# Node.js clients, saying so.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
exec bash "$ROOT/tests/tools/npm_ci.sh" "$HERE" "${NODE_CLIENTS_DIR:-$ROOT/build/clients}" \
  "the Node.js clients of the real-clients test (ioredis, redis)" \
  "the Node.js client tests will be skipped"
