#!/usr/bin/env bash
# lazy-leak.sh -- chapter 04's demonstration: with lazy expiry alone, expired
# keys nobody reads stay in memory.
#
#   docs/scripts/lazy-leak.sh [SERVER] [KEYS]
#
# Starts SERVER (default: build/04-expiry-lazy/server; "redis-server" runs a
# real Redis with active expiry switched off, to compare) on a free port,
# loads KEYS (default 100,000) keys with a 1-second TTL, waits 1.5 s, shows
# that DBSIZE and used_memory have not moved, then reads every key and shows
# both fall. Stops the server at the end.
set -eu
cd "$(dirname "$0")/../.."
SERVER=${1:-build/04-expiry-lazy/server}
KEYS=${2:-100000}

port=$((20000 + RANDOM % 40000))
if [ "$(basename "$SERVER")" = redis-server ]; then
  "$SERVER" --port "$port" --save '' --appendonly no --enable-debug-command yes >/dev/null &
else
  "$SERVER" --port "$port" >/dev/null &
fi
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
cli() { redis-cli -p "$port" "$@"; }
cli debug set-active-expire 0 >/dev/null 2>&1 || true # only real Redis has active expiry here

report() {
  local mem
  mem=$(cli info memory | tr -d '\r' | sed -n 's/^used_memory://p')
  printf '%-34s DBSIZE %8s   used_memory %10s bytes\n' "$1" "$(cli dbsize)" "$mem"
}

report "empty server:"
awk -v n="$KEYS" 'BEGIN { for (i = 0; i < n; i++) { k = "session:" i;
  printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$5\r\nvalue\r\n$2\r\nPX\r\n$4\r\n1000\r\n", length(k), k } }' |
  cli --pipe >/dev/null
report "loaded $KEYS keys, TTL 1 s:"
sleep 1.5
report "1.5 s later, all expired:"
awk -v n="$KEYS" 'BEGIN { for (i = 0; i < n; i++) { k = "session:" i;
  printf "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", length(k), k } }' | cli --pipe >/dev/null
report "after reading every key once:"
printf '%-34s %s\n' "expired_keys:" "$(cli info stats | tr -d '\r' | sed -n 's/^expired_keys://p')"
