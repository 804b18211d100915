#!/usr/bin/env bash
# run.sh -- point real Redis client libraries at a server, at their defaults.
#
# Learners will talk to these servers with their favourite client, not only
# with redis-cli, and real clients send more than data commands when they
# connect: HELLO 3, CLIENT SETINFO, INFO, SELECT. This script starts a server,
# runs each client program in this folder against it and prints one TAP line
# per client:
#
#   hiredis      hiredis_client.c   (libhiredis-dev; RESP2, and RESP3 if hiredis >= 1.0)
#   redis-py     python_client.py   (Debian's python3-redis; RESP3 if redis-py >= 5)
#   ioredis      node_client.mjs    (npm, installed by install.sh into
#                                    build/clients/node_modules; RESP3 by default)
#   node-redis   node_client.mjs    (npm `redis`; RESP3 by default, and once with RESP: 2)
#
# Usage:
#   tests/clients/run.sh SERVER                 connect, binary SET/GET, pipeline of 200, DEL
#   tests/clients/run.sh SERVER --expiry        the same and EXPIRE/TTL (steps 04 and later)
#   tests/clients/run.sh SERVER --no-keyspace   step 01: PING/ECHO, a pipeline of 200 ECHOs
#
# SERVER is a binary that takes --port N, or literally `redis-server` for a
# real Redis. A client whose library or runtime is missing is skipped with the
# reason, never silently. Exit status: 1 if any client failed.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../helpers/port.sh" # pick_port, wait_for_pong
PYTHON=/usr/bin/python3 # Debian's python3-redis lives there, whatever PATH says
CLIENT_TIMEOUT=60
# Where install.sh put the npm packages, outside the source tree.
export NODE_CLIENTS_DIR=${NODE_CLIENTS_DIR:-$ROOT/build/clients}

usage() {
  echo "usage: $0 SERVER [--no-keyspace | --expiry]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
SERVER=$1
shift
FLAGS=()
for f in "$@"; do
  case $f in
    --no-keyspace | --expiry) FLAGS+=("$f") ;;
    *) usage ;;
  esac
done
[ ${#FLAGS[@]} -le 1 ] || usage

# ---- the server ---------------------------------------------------------------

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Start the server and wait for PONG; try another port if this one was taken.
start_server() {
  if ! command -v redis-cli >/dev/null; then
    echo "run.sh: redis-cli is needed to see the server start (apt-get install redis-tools)" >&2
    return 1
  fi
  for _ in 1 2 3 4 5; do
    PORT=$(pick_port) || return 1
    if [ "$SERVER" = redis-server ]; then
      redis-server --port "$PORT" --save '' --appendonly no >"$WORK/server.log" 2>&1 &
    else
      (cd "$WORK" && exec "$SERVER" --port "$PORT") >"$WORK/server.log" 2>&1 & # its snapshot stays in WORK
    fi
    SERVER_PID=$!
    wait_for_pong "$PORT" "$SERVER_PID" && return 0
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=""
  done
  echo "run.sh: could not start $SERVER; its output:" >&2
  cat "$WORK/server.log" >&2
  return 1
}

# ---- TAP ----------------------------------------------------------------------

N=0
FAILED=0
ok() { N=$((N + 1)); echo "ok $N - $1"; }
skip() { N=$((N + 1)); echo "ok $N - $1 # skip $2"; }
not_ok() {
  N=$((N + 1))
  FAILED=$((FAILED + 1))
  echo "not ok $N - $1"
  sed 's/^/#   /' "$WORK/out"
}

# run_client NAME CMD...: one TAP line from the program's exit status;
# 77 means skipped, with the reason as the last line it printed.
run_client() {
  local name=$1 status=0
  shift
  timeout "$CLIENT_TIMEOUT" "$@" >"$WORK/out" 2>&1 || status=$?
  case $status in
    0) ok "$name" ;;
    77) skip "$name" "$(tail -n 1 "$WORK/out")" ;;
    124)
      echo "timed out after ${CLIENT_TIMEOUT}s" >>"$WORK/out"
      not_ok "$name"
      ;;
    *) not_ok "$name" ;;
  esac
}

# ---- the clients --------------------------------------------------------------

hiredis_tests() {
  local bin="$ROOT/build/clients/hiredis_client" src="$HERE/hiredis_client.c"
  local cc=${CC:-cc}
  if ! printf '#include <hiredis/hiredis.h>\n' | "$cc" -E -x c - >/dev/null 2>&1; then
    skip "hiredis" "hiredis headers not found (apt-get install libhiredis-dev)"
    skip "hiredis RESP3" "hiredis headers not found (apt-get install libhiredis-dev)"
    return
  fi
  if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
    mkdir -p "$(dirname "$bin")"
    # Built beside, then renamed: two runs at once never see half a binary.
    if ! "$cc" -std=c11 -Wall -Wextra -Werror -O2 "$src" -o "$bin.$$" -lhiredis >"$WORK/out" 2>&1; then
      not_ok "hiredis: hiredis_client.c does not build"
      return
    fi
    mv -f "$bin.$$" "$bin"
  fi
  local v
  v=$("$bin" --version)
  run_client "hiredis $v" "$bin" "$PORT" "${FLAGS[@]}"
  run_client "hiredis $v RESP3" "$bin" "$PORT" "${FLAGS[@]}" --resp3
}

python_tests() {
  local v
  if ! v=$("$PYTHON" "$HERE/python_client.py" --version 2>/dev/null); then
    skip "redis-py" "$PYTHON cannot import redis (apt-get install python3-redis)"
    skip "redis-py RESP3" "$PYTHON cannot import redis (apt-get install python3-redis)"
    return
  fi
  run_client "redis-py $v" "$PYTHON" "$HERE/python_client.py" "$PORT" "${FLAGS[@]}"
  run_client "redis-py $v RESP3" "$PYTHON" "$HERE/python_client.py" "$PORT" "${FLAGS[@]}" --resp3
}

node_tests() {
  local why="" c
  local names=("ioredis (defaults: RESP3)" "node-redis (defaults: RESP3)" "node-redis RESP: 2")
  if ! command -v node >/dev/null; then
    why="node not found (install Node.js 20 or later)"
  elif [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    why="node $(node --version) is too old: ioredis 6 and redis 6 need Node.js 20"
  elif [ ! -f "$NODE_CLIENTS_DIR/node_modules/ioredis/package.json" ] ||
    [ ! -f "$NODE_CLIENTS_DIR/node_modules/redis/package.json" ]; then
    why="npm packages not in $NODE_CLIENTS_DIR/node_modules (run tests/clients/install.sh)"
  fi
  if [ -n "$why" ]; then
    for c in "${names[@]}"; do skip "$c" "$why"; done
    return
  fi
  local io nr
  io=$(node "$HERE/node_client.mjs" --version ioredis)
  nr=$(node "$HERE/node_client.mjs" --version node-redis)
  run_client "ioredis $io (defaults: RESP3)" node "$HERE/node_client.mjs" "$PORT" ioredis "${FLAGS[@]}"
  run_client "node-redis $nr (defaults: RESP3)" node "$HERE/node_client.mjs" "$PORT" node-redis "${FLAGS[@]}"
  run_client "node-redis $nr RESP: 2" node "$HERE/node_client.mjs" "$PORT" node-redis-resp2 "${FLAGS[@]}"
}

start_server || exit 1
echo "1..8"
echo "# $SERVER on port $PORT ${FLAGS[*]:-}"
hiredis_tests
python_tests
node_tests
# A client may have crashed the server without failing itself.
if [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ]; then
  ok "server still answers PING"
else
  cp "$WORK/server.log" "$WORK/out"
  not_ok "server still answers PING (its output follows)"
fi
[ "$FAILED" -eq 0 ]
