#!/usr/bin/env bash
# burst.sh -- a million keys with the same deadline: what do clients see
# while the server deletes them? For each server (BURST_SERVERS: 05 06 redis)
# it loads BURST_KEYS keys (SET key:i abc, then PEXPIREAT key:i T, the same T
# for every key, BURST_LEAD_MS after the load starts), and then, three times
# (three loads, so that the measurements never compete):
#
#   0. quiet: no client but one asking DBSIZE every 100 ms; the server's CPU
#      time over [T, T + BURST_WINDOW] (from /proc), which is what deleting
#      the keys costs, and the time until no key is left;
#   1. redis-benchmark -t get -n 50000 -c 10 --csv, once while the keys are
#      still alive (the baseline) and once started at T (the burst): its
#      p50, p99 and max latency;
#   2. tests/bench/burst_probe.py from T - 1 s to T + BURST_WINDOW s: 10
#      clients sending GET in a closed loop, every request's latency kept,
#      DBSIZE every 100 ms; percentiles before and after T, the time until
#      no key is left, and a 100 ms series for the plot. (The server's CPU
#      time in this run is mostly serving the probe, and is not recorded.)
#
# The GETs ask for keys that do not exist, so they measure how long the
# server makes a request wait, not lazy expiry. Results:
# $RESULTS/burst.tsv, $RESULTS/burst/<server>-series.tsv.
set -u
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
trap stop_all_servers EXIT

BURST_KEYS=${BURST_KEYS:-1000000}
BURST_SERVERS=${BURST_SERVERS:-"05 06 redis"}
BURST_WINDOW=${BURST_WINDOW:-10}
# Time for the load (two commands a key) and the baseline run before T.
BURST_LEAD_MS=${BURST_LEAD_MS:-$((8000 + BURST_KEYS / 100))}
HZ=$(getconf CLK_TCK)
out=$RESULTS/burst.tsv
mkdir -p "$RESULTS/burst"
# loadavg_1min: the machine's load average at the end of the measurement,
# how much else wanted its cores meanwhile.
printf 'server\tmethod\tphase\trequests\tp50_ms\tp99_ms\tp999_ms\tmax_ms\tempty_after_s\tcpu_ms\tloadavg_1min\n' >"$out"
loadavg() { cut -d' ' -f1 /proc/loadavg; }

# load PORT T: the keys, each with deadline T (Unix ms).
load() {
  awk -v n="$BURST_KEYS" -v t="$2" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nabc\r\n", length(k), k
    printf "*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(t), t } }' |
    redis-cli -p "$1" --pipe >/dev/null 2>&1
}

wait_until() { # Unix ms
  while [ "$(now_ms)" -lt "$1" ]; do sleep 0.005; done
}

bench_get() { # port -> "requests p50 p99 max" from redis-benchmark --csv
  redis-benchmark -h 127.0.0.1 -p "$1" -t get -n 50000 -c 10 -r 1000000 --csv 2>/dev/null |
    tr -d '"' | awk -F, 'NR > 1 && $2 ~ /^[0-9.]+$/ { print 50000, $5, $7, $8; exit }'
}

for s in $BURST_SERVERS; do
  bin=$(server_binary "$s") || exit 1

  # 0. Quiet: the cost of the deletions alone.
  start_server "$bin" || exit 1
  pid=$SERVER_PID port=$SERVER_PORT
  t0=$(($(now_ms) + BURST_LEAD_MS))
  load "$port" "$t0"
  if [ "$(now_ms)" -ge "$t0" ]; then
    echo "burst: loading $BURST_KEYS keys into $s took too long; raise BURST_LEAD_MS" >&2
    exit 1
  fi
  wait_until "$t0"
  c0=$(cpu_ticks "$pid")
  empty=$(redis-cli -p "$port" -r $((BURST_WINDOW * 10)) -i 0.1 dbsize 2>/dev/null |
    awk '$1 == 0 && !done { e = (NR - 1) / 10; done = 1 } END { if (done) printf "%.1f", e }')
  c1=$(cpu_ticks "$pid")
  stop_server "$pid"
  cpu_ms=$(((c1 - c0) * 1000 / HZ))
  printf '%s\tquiet\tburst\t-\t-\t-\t-\t-\t%s\t%s\t%s\n' "$s" "${empty:--1}" "$cpu_ms" "$(loadavg)" >>"$out"
  printf '  %-6s no client: keys gone after %s s, %s ms of CPU over %s s\n' "$s" "${empty:-(never)}" \
    "$cpu_ms" "$BURST_WINDOW"

  # 1. redis-benchmark, before and at T.
  start_server "$bin" || exit 1
  pid=$SERVER_PID port=$SERVER_PORT
  t0=$(($(now_ms) + BURST_LEAD_MS))
  load "$port" "$t0"
  if [ $(($(now_ms) + 3000)) -ge "$t0" ]; then
    echo "burst: loading $BURST_KEYS keys into $s took too long; raise BURST_LEAD_MS" >&2
    exit 1
  fi
  read -r n p50 p99 max <<<"$(bench_get "$port")"
  printf '%s\tredis-benchmark\tbefore\t%s\t%s\t%s\t-\t%s\t-\t-\t%s\n' "$s" "$n" "$p50" "$p99" "$max" "$(loadavg)" >>"$out"
  wait_until "$t0"
  read -r n p50 p99 max <<<"$(bench_get "$port")"
  printf '%s\tredis-benchmark\tburst\t%s\t%s\t%s\t-\t%s\t-\t-\t%s\n' "$s" "$n" "$p50" "$p99" "$max" "$(loadavg)" >>"$out"
  printf '  %-6s redis-benchmark at the deadline: p50 %s ms, p99 %s ms, max %s ms\n' "$s" "$p50" "$p99" "$max"
  stop_server "$pid"

  # 2. The probe, from T - 1 s to T + BURST_WINDOW s.
  start_server "$bin" || exit 1
  pid=$SERVER_PID port=$SERVER_PORT
  t0=$(($(now_ms) + BURST_LEAD_MS))
  load "$port" "$t0"
  if [ $(($(now_ms) + 1000)) -ge "$t0" ]; then
    echo "burst: loading $BURST_KEYS keys into $s took too long; raise BURST_LEAD_MS" >&2
    exit 1
  fi
  python3 tests/bench/burst_probe.py --port "$port" --clients 10 --start-ms $((t0 - 1000)) \
    --end-ms $((t0 + BURST_WINDOW * 1000)) --t0-ms "$t0" \
    --series "$RESULTS/burst/$s-series.tsv" --summary "$RESULTS/burst/$s-summary.tsv" &
  probe=$!
  wait "$probe"
  stop_server "$pid"
  awk -v s="$s" -v load="$(loadavg)" -F'\t' 'NR > 1 {
    printf "%s\tprobe\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\t%s\n", s, $1, $2, $3, $4, $5, $6, $7, load }' \
    "$RESULTS/burst/$s-summary.tsv" >>"$out"
  awk -F'\t' -v s="$s" '$1 == "burst" {
    printf "  %-6s probe over %s s from the deadline: p50 %s ms, p99 %s ms, p99.9 %s ms, max %s ms; empty after %s s\n",
      s, '"$BURST_WINDOW"', $3, $4, $5, $6, $7 }' "$RESULTS/burst/$s-summary.tsv"
done
