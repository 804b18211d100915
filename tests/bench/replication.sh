#!/usr/bin/env bash
# replication.sh -- chapter 09's master beside Redis's, each followed by real
# redis-server 7.0.15 replicas. Called by bench.sh, which sets the
# environment:
#
#   RESULTS, BENCH_BUILD   as for every part
#   ROUNDS, N, NP, CLIENTS as for the throughput part (5, 200000, 1000000, 50)
#   REPL_SERVERS     the masters (redis 09 and the newest step, 12)
#   REPL_KEYSPACE    keys loaded into each master before the SET runs, and
#                    redis-benchmark's -r ($KEYSPACE, 1000000)
#   REPL_SYNC_KEYS   keys of the full sync, half of them with a TTL (1000000)
#   REPL_SYNC_RUNS   full syncs timed per master and replica (3)
#   REPL_LAG_N       SETs of the steady load the lag is sampled under (300000)
#
# Three measurements, with one CPU for the masters and the other for
# redis-benchmark and the replicas (pin_cpus in lib.sh), so every master
# feeds the same consumers on the same CPU:
#
# 1. SET with 0, 1 and 2 replicas ($RESULTS/replication.tsv). Each round
#    starts every master afresh, loads it with the keyspace (as throughput.sh
#    does, and for its reasons) and starts two empty redis-server replicas
#    for each. With 0 replicas, then with one attached (REPLICAOF), then two,
#    redis-benchmark runs SET as the throughput part runs it, without
#    pipelining and with -P 16, on Redis, 09, 12 and Redis again. Before
#    each run every replica of that master must have its link up and have
#    applied everything (its slave_repl_offset equal to the master's
#    master_repl_offset, repl_probe.py synced); after it, the time until
#    they have again is its catch-up time. The master's CPU time (cpu_ns)
#    over the run, divided by the requests, is its CPU per request.
# 2. The lag under a steady load ($RESULTS/replication-lag.tsv and
#    replication-lag-runs.tsv): with one replica attached, redis-benchmark
#    SET from REPL_LAG_CLIENTS clients without pipelining, while
#    repl_probe.py lag samples the master's and the replica's INFO
#    replication every 100 ms.
# 3. The full sync ($RESULTS/replication-sync.tsv): a master loaded with
#    REPL_SYNC_KEYS keys (half_ttl_stream), then an empty replica started
#    and sent REPLICAOF; the time until its link is up and its DBSIZE is the
#    master's (repl_probe.py sync, polling every 10 ms). Replicas: a
#    redis-server, and this project's replica of each step measured (of a
#    Redis master) or of the same step (of its own master). The probe also
#    notes when the transfer began (master_sync_in_progress:1, once the
#    replica has the +FULLRESYNC the master sends after its fork), which
#    splits the time into the handshake and the transfer. A Redis master
#    is timed twice: with its default, a diskless sync (the snapshot written
#    straight to the replica's socket), and with repl-diskless-sync no (the
#    snapshot written to a file, then sent), which is what this project's
#    master always does; both with --repl-diskless-sync-delay 0, where its
#    default waits 5 s for more replicas before it starts.
set -u
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
DIRS=()                  # the servers' directories, removed with them
probe_dir=$(mktemp -d)   # set_run's FIFO and the catch-up it measured
trap 'stop_all_servers; rm -rf "$probe_dir" "${DIRS[@]+"${DIRS[@]}"}"' EXIT

ROUNDS=${ROUNDS:-5} N=${N:-200000} NP=${NP:-1000000} CLIENTS=${CLIENTS:-50}
REPL_SERVERS=${REPL_SERVERS:-"redis 09 $(newest_step)"}
REPL_KEYSPACE=${REPL_KEYSPACE:-${KEYSPACE:-1000000}}
REPL_SYNC_KEYS=${REPL_SYNC_KEYS:-1000000}
REPL_SYNC_RUNS=${REPL_SYNC_RUNS:-3}
REPL_LAG_N=${REPL_LAG_N:-300000}
REPL_LAG_CLIENTS=10   # redis-benchmark -c of the steady load
MAX_REPLICAS=2        # replicas per master in measurement 1
REPL_WAIT_MS=300000   # how long a replica may take to sync or catch up
PROBE=tests/bench/repl_probe.py
pin_cpus
echo "$PIN_NOTE; the replicas on the benchmark's CPU" >"$RESULTS/replication-pinning.txt"

# ---- Servers ----------------------------------------------------------------------

# start_master LABEL: start that master on the servers' CPU in a new
# directory; SERVER_PID and SERVER_PORT as start_server sets them.
start_master() {
  local bin dir flags=()
  bin=$(server_binary "$1") || return 1
  dir=$(mktemp -d)
  DIRS+=("$dir")
  is_redis "$bin" && flags=(--repl-diskless-sync-delay 0)
  SERVER_WRAPPER=$SERVER_PIN BENCH_DIR=$dir start_server "$bin" "$dir/log" "${flags[@]+"${flags[@]}"}"
}

# start_replica LABEL: start an empty server (redis-server for redis, else
# that step), with --save '', on the benchmark's CPU, in a new directory.
start_replica() {
  local bin dir
  bin=$(server_binary "$1") || return 1
  dir=$(mktemp -d)
  DIRS+=("$dir")
  SERVER_WRAPPER=$CLIENT_PIN BENCH_DIR=$dir start_server "$bin" "$dir/log"
}

# ---- 1 and 2: SET with replicas, and the lag ---------------------------------------

bench_cmd() { # port pipeline -> the redis-benchmark command line of measurement 1
  local n=$N
  [ "$2" -gt 1 ] && n=$NP
  echo "$CLIENT_PIN${CLIENT_PIN:+ }redis-benchmark -h 127.0.0.1 -p $1 -c $CLIENTS -n $n -r $REPL_KEYSPACE -P $2 -t set --csv"
}
lag_cmd() { # port -> the steady load of measurement 2
  echo "$CLIENT_PIN${CLIENT_PIN:+ }redis-benchmark -h 127.0.0.1 -p $1 -c $REPL_LAG_CLIENTS -n $REPL_LAG_N -r $REPL_KEYSPACE -t set --csv"
}
{
  bench_cmd PORT 1 | sed 's/-P 1 /-P 1 (or 16, with -n NP) /'
  lag_cmd PORT
} >"$RESULTS/replication-command.txt"

keyspace_file=$RESULTS/replication-keyspace.resp
write_keyspace "$REPL_KEYSPACE" "$keyspace_file"
# set_run's catch-up probe: the FIFO that starts its clock, and its answer.
fifo=$probe_dir/run-over catchup_file=$probe_dir/catchup-ms
mkfifo "$fifo"

out=$RESULTS/replication.tsv
printf 'round\tserver\treplicas\ttest\tpipeline\trequests\trps\tcpu_ns\tcpu_us_per_req\tp50_ms\tp99_ms\tcatchup_ms\n' >"$out"
lag_out=$RESULTS/replication-lag.tsv
printf 'round\tserver\tt_ms\tmaster_offset\tack_offset\tlag_s\treplica_offset\n' >"$lag_out"
lag_runs=$RESULTS/replication-lag-runs.tsv
printf 'round\tserver\tstart_ms\tend_ms\trequests\trps\n' >"$lag_runs"

# replica_ports MASTER COUNT: the ports of that master's first COUNT
# replicas, comma-separated.
replica_ports() {
  local k list=""
  for k in $(seq 1 "$2"); do list+="${list:+,}${rport[$1,$k]}"; done
  echo "$list"
}

# set_run ROUND LABEL COUNT PIPELINE: one redis-benchmark SET run on that
# master with COUNT replicas attached; one line in $out.
set_run() {
  local round=$1 label=$2 count=$3 pipeline=$4 s=${2%-again} n=$N c0 c1 csv rps p50 p99 ns per
  local catchup=NA ports probe
  [ "$pipeline" -gt 1 ] && n=$NP
  ports=$(replica_ports "$s" "$count")
  if ! kill -0 "${mpid[$s]}" 2>/dev/null ||
    { [ "$count" -gt 0 ] && ! python3 "$PROBE" synced "${mport[$s]}" "$ports" "$REPL_WAIT_MS" >/dev/null; }; then
    echo "round $round: master $s is gone, or its replicas are not in sync" >&2
    printf '%s\t%s\t%s\tset\t%s\t%s\tNA\tNA\tNA\tNA\tNA\tNA\n' "$round" "$label" "$count" "$pipeline" "$n" >>"$out"
    return
  fi
  # The catch-up probe connects before the run, and starts its clock when
  # a line on the FIFO tells it that the run is over.
  if [ "$count" -gt 0 ]; then
    python3 "$PROBE" synced "${mport[$s]}" "$ports" "$REPL_WAIT_MS" after-a-line <"$fifo" >"$catchup_file" &
    probe=$!
    exec 7>"$fifo"
  fi
  c0=$(cpu_ns "${mpid[$s]}")
  csv=$(timeout 900 $(bench_cmd "${mport[$s]}" "$pipeline") 2>/dev/null)
  c1=$(cpu_ns "${mpid[$s]}" 2>/dev/null || echo NA)
  if [ "$count" -gt 0 ]; then
    echo >&7
    exec 7>&-
    if wait "$probe"; then
      catchup=$(cat "$catchup_file")
    else
      echo "round $round: the replicas of $s did not catch up" >&2
    fi
  fi
  run_figures "$csv" "$c0" "$c1" "$n"
  printf '%s\t%s\t%s\tset\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$label" "$count" "$pipeline" "$n" \
    "$rps" "$ns" "$per" "$p50" "$p99" "$catchup" >>"$out"
  printf '  round %s  SET -P %-2s  %-11s %s replicas %12s req/s  %8s us CPU/req  caught up in %s ms\n' \
    "$round" "$pipeline" "$label" "$count" "$rps" "$per" "$catchup"
}

# lag_run ROUND MASTER: the steady load on that master, its first replica
# sampled meanwhile; the samples to $lag_out, the run's window to $lag_runs.
lag_run() {
  local round=$1 s=$2 samples probe t0 t1 csv rps
  samples=$(mktemp)
  python3 "$PROBE" synced "${mport[$s]}" "${rport[$s,1]}" "$REPL_WAIT_MS" >/dev/null || return 1
  python3 "$PROBE" lag "${mport[$s]}" "${rport[$s,1]}" "$samples" &
  probe=$!
  t0=$(now_ms)
  csv=$(timeout 900 $(lag_cmd "${mport[$s]}") 2>/dev/null)
  t1=$(now_ms)
  kill "$probe" 2>/dev/null
  wait "$probe" 2>/dev/null
  rps=$(printf '%s\n' "$csv" | tr -d '"' | awk -F, 'NR > 1 && $2 ~ /^[0-9.]+$/ { print $2; exit }')
  awk -v r="$round" -v s="$s" 'NR > 1 { print r "\t" s "\t" $0 }' "$samples" >>"$lag_out"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$s" "$t0" "$t1" "$REPL_LAG_N" "${rps:-NA}" >>"$lag_runs"
  printf '  round %s  lag under SET -c %s: %-6s %s req/s, %s samples\n' "$round" "$REPL_LAG_CLIENTS" "$s" \
    "${rps:-NA}" "$(($(wc -l <"$samples") - 1))"
  rm -f "$samples"
}

# Redis runs first and again last in each sequence, as in throughput.sh:
# report.py takes the mean of the two.
sequence=$REPL_SERVERS
case " $REPL_SERVERS " in *" redis "*) sequence="$REPL_SERVERS redis-again" ;; esac

started=$SECONDS
for round in $(seq 1 "$ROUNDS"); do
  declare -A mpid mport rport
  for s in $REPL_SERVERS; do
    start_master "$s" || exit 1
    mpid[$s]=$SERVER_PID mport[$s]=$SERVER_PORT
    load_keyspace "$keyspace_file" "$REPL_KEYSPACE" "$s" "${mport[$s]}" || exit 1
    for k in $(seq 1 $MAX_REPLICAS); do
      start_replica redis || exit 1
      rport[$s,$k]=$SERVER_PORT
    done
  done
  for count in $(seq 0 $MAX_REPLICAS); do
    if [ "$count" -gt 0 ]; then
      for s in $REPL_SERVERS; do
        ms=$(python3 "$PROBE" sync "${rport[$s,$count]}" "${mport[$s]}" "$REPL_KEYSPACE" "$REPL_WAIT_MS") ||
          { echo "replication: replica $count of $s did not sync" >&2; exit 1; }
        echo "  round $round  replica $count of $s synced in ${ms% *} ms"
      done
    fi
    for pipeline in 1 16; do
      for label in $sequence; do set_run "$round" "$label" "$count" "$pipeline"; done
    done
    if [ "$count" = 1 ]; then
      for s in $REPL_SERVERS; do lag_run "$round" "$s" || echo "round $round: no lag run on $s" >&2; done
    fi
  done
  stop_all_servers
  rm -rf "${DIRS[@]}"
  DIRS=()
  unset mpid mport rport
done
rm -f "$keyspace_file"
echo "  SET with replicas and the lag, $ROUNDS round(s): $((SECONDS - started)) s"

# ---- 3: the full sync --------------------------------------------------------------

sync_out=$RESULTS/replication-sync.tsv
printf 'master\tmode\treplica\tkeys\trun\tsync_ms\ttransfer_start_ms\n' >"$sync_out"
ours=$(printf '%s\n' $REPL_SERVERS | grep -v '^redis$' | tr '\n' ' ')
started=$SECONDS

for s in $REPL_SERVERS; do
  start_master "$s" || exit 1
  master_pid=$SERVER_PID master_port=$SERVER_PORT
  half_ttl_stream "$REPL_SYNC_KEYS" | redis-cli -p "$master_port" --pipe >"$RESULTS/keyspace-load.log" 2>&1
  keys=$(redis-cli -p "$master_port" dbsize)
  [ "$keys" = "$REPL_SYNC_KEYS" ] || { echo "replication: $s holds $keys keys, not $REPL_SYNC_KEYS" >&2; exit 1; }
  modes=disk replicas="redis $s"
  if [ "$s" = redis ]; then modes="diskless disk" replicas="redis $ours"; fi
  for mode in $modes; do
    if [ "$s" = redis ]; then
      redis-cli -p "$master_port" config set repl-diskless-sync "$([ "$mode" = diskless ] && echo yes || echo no)" \
        >/dev/null || exit 1
    fi
    for run in $(seq 1 "$REPL_SYNC_RUNS"); do
      for r in $replicas; do
        start_replica "$r" || exit 1
        times=$(python3 "$PROBE" sync "$SERVER_PORT" "$master_port" "$REPL_SYNC_KEYS" "$REPL_WAIT_MS") ||
          times="NA NA"
        read -r ms transfer <<<"$times"
        stop_server "$SERVER_PID"
        rm -rf "${DIRS[-1]}"
        unset 'DIRS[-1]'
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$mode" "$r" "$REPL_SYNC_KEYS" "$run" "$ms" "$transfer" \
          >>"$sync_out"
        printf '  full sync of %s keys: master %-6s (%-8s) -> replica %-6s %6s ms (transfer from %s ms)\n' \
          "$REPL_SYNC_KEYS" "$s" "$mode" "$r" "$ms" "$transfer"
      done
    done
  done
  stop_server "$master_pid"
done
echo "  full syncs: $((SECONDS - started)) s"
