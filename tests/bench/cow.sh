#!/usr/bin/env bash
# cow.sh SERVER KEYS EXPIRING -- what a BGSAVE costs in copy-on-write memory
# while keys expire (chapter 08).
#
# Starts SERVER (a step from 08 on, or redis-server) in a directory of its
# own, sets KEYS keys key:N = abc, of which the first EXPIRING get a PXAT 4 s
# after the start, and runs a BGSAVE slowed with --rdb-key-save-delay 40 (µs
# per key, Redis's setting), so that the keys expire while the child writes.
# Prints one line: the keys left, the server's RSS before the fork, the
# child's largest private dirty memory seen in /proc while it ran, and what
# the server reports as rdb_last_cow_size (bytes).
set -u
[ $# -eq 3 ] || { echo "usage: $0 SERVER KEYS EXPIRING" >&2; exit 2; }
bin=$1 n=$2 exp=$3
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../helpers/port.sh"
port=$(pick_port) || exit 1
dir=$(mktemp -d)
[ "$(basename "$bin")" = redis-server ] || bin=$(realpath "$bin")
(cd "$dir" && exec "$bin" --port "$port" --save '' --rdb-key-save-delay 40) >"$dir/log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
at=$(($(date +%s%3N) + 4000))
python3 - "$n" "$exp" "$at" <<'PY' | redis-cli -p "$port" --pipe >/dev/null
import sys
n, exp, at = map(int, sys.argv[1:])
out, a = sys.stdout.buffer, b"%d" % at
for i in range(n):
    k = b"key:%d" % i
    if i < exp:
        out.write(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nabc\r\n$4\r\nPXAT\r\n$%d\r\n%s\r\n" % (len(k), k, len(a), a))
    else:
        out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nabc\r\n" % (len(k), k))
PY
info() { redis-cli -p "$port" info persistence | tr -d '\r' | sed -n "s/^$1://p"; }
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
redis-cli -p "$port" bgsave >/dev/null
peak=0
while [ "$(info rdb_bgsave_in_progress)" = 1 ]; do
  child=$(pgrep -P "$pid" | head -1)
  if [ -n "$child" ]; then
    kb=$(awk '/^Private_Dirty/ {print $2}' "/proc/$child/smaps_rollup" 2>/dev/null)
    [ -n "$kb" ] && [ "$kb" -gt "$peak" ] && peak=$kb
  fi
  sleep 0.2
done
echo "keys=$n expiring=$exp left=$(redis-cli -p "$port" dbsize) rss_before_kB=$rss" \
  "child_private_dirty_peak_kB=$peak rdb_last_cow_size=$(info rdb_last_cow_size)"
