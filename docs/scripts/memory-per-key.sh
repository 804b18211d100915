#!/usr/bin/env bash
# memory-per-key.sh -- chapter 06: what a key costs in memory, with a TTL and
# without one, on each server given.
#
#   docs/scripts/memory-per-key.sh [SERVER ...]
#
# Each SERVER is a binary that takes --port N (default: steps 05 and 06). For
# each server and each of the two loads, start the server on a free port,
# read INFO's used_memory, load KEYS keys (default 1,000,000) through
# `redis-cli --pipe`, named session:0, session:1, ... with the value "value",
# either plainly (SET k value) or with a TTL (SET k value EX 10000, far
# enough away that nothing expires), read used_memory again, and stop the
# server. Prints the two readings and the difference per key.
set -eu
cd "$(dirname "$0")/../.."
KEYS=${KEYS:-1000000}
[ $# -gt 0 ] || set -- build/05-active-sampling/server build/06-timewheel/server

pid=
trap '[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }' EXIT

. "$(dirname "$0")/lib.sh" # now_ms, pick_port

used_memory() { redis-cli -p "$port" info memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

# load N TTL: KEYS SETs, with "EX TTL" appended unless TTL is empty.
load() {
  awk -v n="$KEYS" -v ttl="$1" 'BEGIN { for (i = 0; i < n; i++) { k = "session:" i
    if (ttl == "") printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$5\r\nvalue\r\n", length(k), k
    else printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$5\r\nvalue\r\n$2\r\nEX\r\n$%d\r\n%s\r\n",
      length(k), k, length(ttl), ttl } }' | redis-cli -p "$port" --pipe >/dev/null
}

printf '%-22s %-12s %12s %14s %14s\n' server keys 'empty, bytes' 'loaded, bytes' 'bytes per key'
for server in "$@"; do
  for ttl in "" 10000; do
    port=$(pick_port)
    "$server" --port "$port" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] || { echo "$server did not start on port $port" >&2; exit 1; }
    before=$(used_memory)
    load "$ttl"
    after=$(used_memory)
    [ "$(redis-cli -p "$port" dbsize)" = "$KEYS" ] || { echo "$server: DBSIZE is not $KEYS" >&2; exit 1; }
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
    label="no TTL"
    [ -z "$ttl" ] || label="EX $ttl"
    printf '%-22s %-12s %12s %14s %14.1f\n' "$(basename "$(dirname "$server")")" "$label" \
      "$before" "$after" "$(echo "($after - $before) / $KEYS" | bc -l)"
  done
done
