#!/usr/bin/env bash
# snapshot.sh -- chapter 08's snapshots beside Redis's: for each server, load
# SNAP_KEYS keys key:N = abc, every other one with EX 10000, then
#   save_ms      the wall time of one SAVE, as redis-cli sees it
#   bytes        the size of the file it wrote
#   load_ms      the server's own figure for loading that file at start-up
#                ("DB loaded from disk: N seconds", which both print)
#   p99_ms       redis-benchmark's 99th percentile for GET (50 clients, one
#                request each at a time) with no save running, and
#   p99_bgsave_ms the same in a run during which one BGSAVE forks, 300 ms in
#   bgsave_ms    how long that BGSAVE took, ms
# The three are medians of SNAP_RUNS (3) such pairs of runs: one run's p99,
# 3,000 slowest GETs of 300,000, moves by half from one run to the next.
# One line per server in $RESULTS/snapshot.tsv. Environment: RESULTS,
# BENCH_BUILD, SNAP_KEYS (1000000), SNAP_SERVERS (redis 08 and the newest
# step, 12), SNAP_N (GETs per redis-benchmark run, 300000).
set -u
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
trap stop_all_servers EXIT

SNAP_KEYS=${SNAP_KEYS:-1000000}
SNAP_SERVERS=${SNAP_SERVERS:-"redis 08 $(newest_step)"}
SNAP_N=${SNAP_N:-300000}
SNAP_RUNS=${SNAP_RUNS:-3}
out=$RESULTS/snapshot.tsv
printf 'server\tkeys\tsave_ms\tbytes\tload_ms\tp99_ms\tp99_bgsave_ms\tbgsave_ms\n' >"$out"

# p99 PORT: redis-benchmark's GET p99, in ms (its --csv line: "test","rps",
# "avg","min","p50","p95","p99","max").
p99() {
  redis-benchmark -p "$1" -t get -n "$SNAP_N" -c 50 -r "$SNAP_KEYS" --csv 2>/dev/null |
    awk -F'"' '$2 == "GET" { print $14 }'
}

# one_bgsave PORT: a BGSAVE 300 ms into the benchmark run, then wait for it
# to end; writes its wall time, ms, to $RESULTS/bgsave.ms. One fork per
# run, for every server: a server whose saves are quicker would otherwise
# fork more often in the same run, and each fork stalls every client.
one_bgsave() {
  local port=$1 t0
  sleep 0.3
  t0=$(now_ms)
  [ "$(redis-cli -p "$port" bgsave 2>/dev/null)" = "Background saving started" ] || return
  while [ "$(info_field "$port" rdb_bgsave_in_progress)" != 0 ]; do sleep 0.02; done
  echo $(($(now_ms) - t0)) >"$RESULTS/bgsave.ms"
}

for s in $SNAP_SERVERS; do
  bin=$(server_binary "$s") || exit 1
  dir=$(mktemp -d)
  BENCH_DIR=$dir start_server "$bin" "$dir/first.log" || exit 1
  port=$SERVER_PORT pid=$SERVER_PID
  half_ttl_stream "$SNAP_KEYS" | redis-cli -p "$port" --pipe >"$dir/pipe.log" 2>&1
  keys=$(redis-cli -p "$port" dbsize)
  [ "$keys" = "$SNAP_KEYS" ] || { echo "snapshot: $s holds $keys keys, not $SNAP_KEYS" >&2; exit 1; }
  t0=$(now_ms)
  [ "$(redis-cli -p "$port" save)" = OK ] || { echo "snapshot: $s: SAVE failed" >&2; exit 1; }
  save_ms=$(($(now_ms) - t0))
  bytes=$(stat -c %s "$dir/dump.rdb")
  quiets=() saves=() bgsaves=()
  for _ in $(seq "$SNAP_RUNS"); do
    quiets+=("$(p99 "$port")")
    echo "" >"$RESULTS/bgsave.ms"
    one_bgsave "$port" &
    saver=$!
    saves+=("$(p99 "$port")")
    wait "$saver"
    bgsaves+=("$(cat "$RESULTS/bgsave.ms")")
    [ -n "${bgsaves[-1]}" ] || { echo "snapshot: $s: the BGSAVE did not run" >&2; exit 1; }
  done
  p_quiet=$(median "${quiets[@]}") p_save=$(median "${saves[@]}") bgsave_ms=$(median "${bgsaves[@]}")
  stop_server "$pid"
  # The restart loads what SAVE wrote (the BGSAVEs wrote the same keys).
  BENCH_DIR=$dir start_server "$bin" "$dir/second.log" || exit 1
  load_s=$(sed -n 's/.*DB loaded from disk: \([0-9.]*\) seconds.*/\1/p' "$dir/second.log" | head -1)
  loaded=$(redis-cli -p "$SERVER_PORT" dbsize)
  stop_server "$SERVER_PID"
  [ "$loaded" = "$SNAP_KEYS" ] || { echo "snapshot: $s loaded $loaded keys, not $SNAP_KEYS" >&2; exit 1; }
  load_ms=$(awk -v s="$load_s" 'BEGIN { printf "%d", s * 1000 }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$keys" "$save_ms" "$bytes" "$load_ms" "$p_quiet" \
    "$p_save" "$bgsave_ms" >>"$out"
  printf '  %-6s SAVE %5s ms  %9s bytes  load %5s ms  GET p99 %s ms, %s ms with a BGSAVE of %s ms\n' \
    "$s" "$save_ms" "$bytes" "$load_ms" "$p_quiet" "$p_save" "$bgsave_ms"
  rm -rf "$dir"
done
rm -f "$RESULTS/bgsave.ms"
