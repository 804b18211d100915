#!/usr/bin/env bash
# callgrind.sh -- instructions per command, counted by callgrind: a figure
# that does not move with the load of the machine, so a regression shows up
# without timing noise. One line per measurement in $RESULTS/callgrind.tsv.
#
# For each server (CG_SERVERS: the step before the newest, 09, plain; the
# newest, 12, the fast path; and Redis for comparison) it starts the server
# under valgrind --tool=callgrind, stores CG_KEYSPACE keys (key:000000000000
# ...: the names redis-benchmark -r uses), and then, for PING, SET and GET,
# without pipelining and with -P 16, one client:
#
#   1. zero the counters (callgrind_control -z), run the command P times
#      (one batch: the connection, redis-benchmark's CONFIG GET at start-up,
#      one round trip), dump the counters: the baseline;
#   2. run it CG_N + P times the same way, dump again;
#   3. instructions per command = (second - baseline) / CG_N, less what the
#      idle server executes in the extra time (its timers; measured by
#      zeroing, sleeping 2 s and dumping).
#
# Every key exists, so SET overwrites a key and GET finds one. The counts
# are user-space instructions of the server process (callgrind's Ir): the
# kernel's share of a request (read, write, epoll_wait) is not in them.
set -u
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
trap stop_all_servers EXIT

CG_N=${CG_N:-10000}
CG_KEYSPACE=${CG_KEYSPACE:-10000}
CG_SERVERS=${CG_SERVERS:-"$(step_before_newest) $(newest_step) redis"}
out=$RESULTS/callgrind.tsv
printf 'server\tcommand\tpipeline\tcommands\tir_baseline\tir_run\tidle_ir_per_s\tseconds\tir_per_command\n' >"$out"
work=$RESULTS/callgrind
rm -rf "$work"
mkdir -p "$work"

# The total of the newest dump file (callgrind.out.1, .2, ...).
dump_total() { # pid
  callgrind_control -d "$1" >/dev/null 2>&1 || return 1
  local f
  f=$(ls "$work"/callgrind.out.* 2>/dev/null | awk -F. '{ print $NF, $0 }' | sort -n | tail -1 | cut -d' ' -f2)
  awk '/^totals:/ { print $2; exit }' "$f"
}

for s in $CG_SERVERS; do
  bin=$(server_binary "$s") || exit 1
  rm -f "$work"/callgrind.out*
  SERVER_WRAPPER="valgrind --tool=callgrind --callgrind-out-file=$work/callgrind.out" \
    start_server "$bin" "$work/valgrind-$s.log" || exit 1
  pid=$SERVER_PID port=$SERVER_PORT
  awk -v n="$CG_KEYSPACE" 'BEGIN { for (i = 0; i < n; i++) {
    k = sprintf("key:%012d", i); printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nxxx\r\n", length(k), k } }' |
    redis-cli -p "$port" --pipe >/dev/null 2>&1

  # The idle server's own work per second (timers, cron).
  callgrind_control -z "$pid" >/dev/null 2>&1
  sleep 2
  idle=$(dump_total "$pid")
  idle_rate=$(awk -v i="$idle" 'BEGIN { printf "%.0f", i / 2 }')

  for cmd in ping_mbulk set get; do
    for p in 1 16; do
      run() { # requests
        redis-benchmark -h 127.0.0.1 -p "$port" -c 1 -n "$1" -r "$CG_KEYSPACE" -P "$p" -t "$cmd" \
          >/dev/null 2>&1
      }
      callgrind_control -z "$pid" >/dev/null 2>&1
      t0=$(now_ms)
      run "$p"
      base=$(dump_total "$pid")
      t1=$(now_ms)
      run $((CG_N + p))
      total=$(dump_total "$pid")
      t2=$(now_ms)
      secs=$(awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN { printf "%.2f", (b - a) / 1000 }')
      per=$(awk -v b="$base" -v t="$total" -v r="$idle_rate" -v s="$secs" -v n="$CG_N" \
        'BEGIN { printf "%.0f", (t - b - r * s) / n }')
      name=$cmd
      [ "$cmd" = ping_mbulk ] && name=ping
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$name" "$p" "$CG_N" "$base" "$total" \
        "$idle_rate" "$secs" "$per" >>"$out"
      printf '  %-9s %-4s -P %-2s  %6s instructions per command\n' "$s" "$name" "$p" "$per"
    done
  done
  stop_server "$pid"
done
