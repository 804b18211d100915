#!/usr/bin/env bash
# expiry-burst.sh -- chapter 06: a million keys expiring in the same
# millisecond: what clients see meanwhile, and what the deleting costs.
#
#   docs/scripts/expiry-burst.sh [SERVER ...]
#
# Each SERVER is a binary that takes --port N (default: steps 05 and 06). For
# each one: start it on a free port and load KEYS keys (default 1,000,000),
# each with SET and then PEXPIREAT T (SET's PXAT option comes in chapter 07):
# one deadline T for all, LEAD_MS (default 15,000) after the load starts.
# Then:
#   - before: `redis-benchmark -t get -n 50000 -c 10 --csv` with nothing due;
#   - from then until about T + 3 s: `redis-cli --latency` (a PING every
#     10 ms), which also sees step 06's wheel move the keys down its levels
#     before their deadline;
#   - during: the same redis-benchmark, started 200 ms before T;
#   - from then on: DBSIZE every 100 ms until it reads 0 (at most 30 s);
#   - after: report when DBSIZE first read 0, counted from T; INFO's
#     expire_cycle_cpu_milliseconds from the end of the first benchmark to
#     then, and that divided by KEYS; and the server's CPU time (utime +
#     stime from /proc) over the same span.
# Prints, per server, p50/p99/max of GET (ms) before and during, the PING
# min/avg/max, and the costs; and INFO's expire_wheel_max_lateness_ms where
# the server has it.
set -eu
cd "$(dirname "$0")/../.."
KEYS=${KEYS:-1000000}
LEAD_MS=${LEAD_MS:-15000}
[ $# -gt 0 ] || set -- build/05-active-sampling/server build/06-timewheel/server

pid=
trap '[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }' EXIT

. "$(dirname "$0")/lib.sh" # now_ms, pick_port

info_field() { redis-cli -p "$port" info stats | tr -d '\r' | sed -n "s/^$1://p"; }

cpu_ms() { echo $(($(awk '{ print $14 + $15 }' "/proc/$pid/stat") * 1000 / $(getconf CLK_TCK))); }

# GET p50/p99/max in ms, from redis-benchmark's CSV line.
bench() {
  redis-benchmark -p "$port" -t get -n 50000 -c 10 --csv 2>/dev/null | tr -d '"' |
    awk -F, '$1 == "GET" { printf "%s/%s/%s", $5, $7, $8 }'
}

wait_until() { while [ "$(now_ms)" -lt "$1" ]; do sleep 0.01; done; }

printf '%-20s %22s %22s %20s %12s %10s %12s\n' server 'GET before p50/p99/max' \
  'GET during p50/p99/max' 'PING min/avg/max ms' 'empty at' 'cycle ms' 'cpu ms'
for server in "$@"; do
  port=$(pick_port)
  "$server" --port "$port" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] || { echo "$server did not start on port $port" >&2; exit 1; }

  t=$(($(now_ms) + LEAD_MS))
  awk -v n="$KEYS" -v t="$t" 'BEGIN { for (i = 0; i < n; i++) { k = "burst:" i
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length(k), k
    printf "*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(t), t } }' |
    redis-cli -p "$port" --pipe >/dev/null
  [ "$(($(now_ms) + 7000))" -lt "$t" ] || { echo "loading took too long; raise LEAD_MS" >&2; exit 1; }
  before=$(bench)

  cycle0=$(info_field expire_cycle_cpu_milliseconds)
  cpu0=$(cpu_ms)
  latency_file=$(mktemp)
  redis-cli -p "$port" --latency -i $(((t + 3000 - $(now_ms)) / 1000)) >"$latency_file" &
  pinger=$!
  wait_until $((t - 200))
  # DBSIZE every 100 ms, stamped with the time since T, until it reads 0.
  redis-cli -p "$port" -r 300 -i 0.1 dbsize | while read -r n; do
    [ "$n" != 0 ] || { echo $(($(now_ms) - t)); break; }
  done >"$latency_file.empty" &
  sampler=$!
  during=$(bench)
  wait "$sampler" || true
  empty_at=$(cat "$latency_file.empty")
  rm -f "$latency_file.empty"
  wait "$pinger"
  read -r pmin pmax pavg _ <"$latency_file"
  rm -f "$latency_file"
  cycle1=$(info_field expire_cycle_cpu_milliseconds)
  cpu1=$(cpu_ms)
  expired=$(info_field expired_keys)
  lateness=$(info_field expire_wheel_max_lateness_ms)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=

  printf '%-20s %22s %22s %20s %9s ms %10s %12s   (expired_keys %s; %.0f ns of cycle per key%s)\n' \
    "$(basename "$(dirname "$server")")" "$before" "$during" "$pmin/$pavg/$pmax" "+${empty_at:-never}" \
    $((cycle1 - cycle0)) $((cpu1 - cpu0)) "$expired" "$(echo "($cycle1 - $cycle0) * 1000000 / $KEYS" | bc -l)" \
    "${lateness:+; expire_wheel_max_lateness_ms $lateness}"
done
