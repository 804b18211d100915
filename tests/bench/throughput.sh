#!/usr/bin/env bash
# throughput.sh -- the same redis-benchmark runs against a real Redis and
# every step, interleaved, ROUNDS times; one line per run in
# $RESULTS/throughput.tsv. Called by bench.sh, which sets the environment:
#
#   RESULTS     directory for the results
#   BENCH_BUILD where the step servers are (build/bench)
#   ROUNDS      rounds (5)
#   N, NP       requests per run without pipelining (200000) and with -P 16 (1000000)
#   CLIENTS     redis-benchmark -c (50)
#   KEYSPACE    redis-benchmark -r (1000000)
#   SERVERS     labels for SET and GET (redis 02 03 04 05 06 07 08 and the
#               newest step, 12)
#   PING_SERVERS labels for PING (redis 01 02 ... 08 and the newest)
#
# Each round starts every server afresh and loads it with the whole keyspace
# (see load_keyspace), then runs each test on each server in turn (SET
# without pipelining on Redis, 02, ..., 08, 12 and Redis again, then
# GET, and so on), so that whatever else the machine is doing hits all
# servers alike.
# For each run it records redis-benchmark's throughput and the server's CPU
# time (the kernel's exact count, from /proc/PID/task/*/schedstat, read just
# before and just after the run: see cpu_ns in lib.sh) divided by the
# requests. The servers run on one CPU and redis-benchmark on the others
# (pin_cpus in lib.sh), so that they do not take turns on the same one.
set -u
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
trap stop_all_servers EXIT

ROUNDS=${ROUNDS:-5} N=${N:-200000} NP=${NP:-1000000} CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-1000000}
SERVERS=${SERVERS:-"redis 02 03 04 05 06 07 08 $(newest_step)"}
PING_SERVERS=${PING_SERVERS:-"redis 01 02 03 04 05 06 07 08 $(newest_step)"}
out=$RESULTS/throughput.tsv
pin_cpus
SERVER_WRAPPER=$SERVER_PIN
echo "$PIN_NOTE" >"$RESULTS/throughput-pinning.txt"

# The tests, in the order they run in every round: "test pipeline".
TESTS=("set 1" "get 1" "set 16" "get 16" "ping_mbulk 1" "ping_mbulk 16")

bench_cmd() { # test pipeline port -> the redis-benchmark command line
  local n=$N
  [ "$2" -gt 1 ] && n=$NP
  echo "$CLIENT_PIN${CLIENT_PIN:+ }redis-benchmark -h 127.0.0.1 -p $3 -c $CLIENTS -n $n -r $KEYSPACE -P $2 -t $1 --csv"
}
bench_cmd "TEST" 1 PORT | sed 's/-P 1 /-P 1 (or 16, with -n NP) /' >"$RESULTS/throughput-command.txt"

# The keyspace redis-benchmark -r draws from (key:000000000000 to
# key:000000999999 for -r 1000000), each key holding the 3 bytes its SET
# writes, as one RESP stream (write_keyspace in lib.sh). Each round loads
# it into every server that has SET before any test runs, so the runs
# measure a server at its full size: SET replaces a value and GET finds its
# key, as on a server in use. Left to the runs themselves, the keyspace would grow during SET, and the growth
# would be measured with them: the dict's doubling, and the first touch of
# every new page of memory. On this virtual machine that first touch costs
# 1.6 µs a page when the memory was in use shortly before and about 9 µs
# when it was not (the host takes back memory the guest frees): the same
# server code measured SET -P 16 at 1.37x Redis in one full run and 1.67x in
# another. How much memory a key costs has its own section (memory.sh).
keyspace_file=$RESULTS/keyspace.resp
write_keyspace "$KEYSPACE" "$keyspace_file"

printf 'round\tserver\ttest\tpipeline\trequests\trps\tcpu_ns\tcpu_us_per_req\tp50_ms\tp99_ms\n' >"$out"
all=$(printf '%s\n' $SERVERS $PING_SERVERS | awk '!seen[$0]++' | tr '\n' ' ')

for round in $(seq 1 "$ROUNDS"); do
  declare -A pid port
  for s in $all; do
    bin=$(server_binary "$s") || exit 1
    start_server "$bin" || exit 1
    pid[$s]=$SERVER_PID
    port[$s]=$SERVER_PORT
  done
  for s in $SERVERS; do load_keyspace "$keyspace_file" "$KEYSPACE" "$s" "${port[$s]}" || exit 1; done
  for t in "${TESTS[@]}"; do
    read -r test pipeline <<<"$t"
    list=$SERVERS
    [ "$test" = ping_mbulk ] && list=$PING_SERVERS
    # Redis runs first and again last ("redis-again"). Every ratio divides
    # by Redis's figure, so report.py takes the mean of the two runs, which
    # bracket the steps' runs: a drift of the machine over the sequence
    # cancels out, and the noise of that one figure shrinks.
    case " $list " in *" redis "*) list="$list redis-again" ;; esac
    for label in $list; do
      s=${label%-again}
      n=$N
      [ "$pipeline" -gt 1 ] && n=$NP
      p=${pid[$s]}
      if ! kill -0 "$p" 2>/dev/null; then
        printf '%s\t%s\t%s\t%s\t%s\tNA\tNA\tNA\tNA\tNA\n' "$round" "$label" "$test" "$pipeline" "$n" >>"$out"
        echo "round $round: server $s is gone" >&2
        continue
      fi
      c0=$(cpu_ns "$p")
      csv=$(timeout 900 $(bench_cmd "$test" "$pipeline" "${port[$s]}") 2>/dev/null)
      c1=$(cpu_ns "$p" 2>/dev/null || echo NA)
      run_figures "$csv" "$c0" "$c1" "$n"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$label" "$test" "$pipeline" "$n" \
        "$rps" "$ns" "$per" "$p50" "$p99" >>"$out"
      printf '  round %s  %-10s -P %-2s  %-11s %12s req/s  %8s us CPU/req\n' "$round" "$test" \
        "$pipeline" "$label" "$rps" "$per"
    done
  done
  for s in $all; do stop_server "${pid[$s]}"; done
  unset pid port
done
