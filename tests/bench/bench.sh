#!/usr/bin/env bash
# bench.sh -- `make bench`: this project's servers next to a real Redis.
#
# Builds optimized servers (-O2 -DNDEBUG, in build/bench), installs the tools
# it needs when missing (tests/tools/deps.sh bench), runs the parts below,
# writes docs/benchmarks.md and the plots docs/img/bench-*.png, and prints a
# summary. Each part is a script of its own in tests/bench/:
#
#   throughput  throughput.sh: redis-benchmark SET, GET and PING, 50 clients,
#               without pipelining and with -P 16, a 1,000,000-key random
#               keyspace loaded beforehand; Redis (twice), steps 02..08 and
#               the newest, 12 (01 for PING) interleaved, ROUNDS rounds; throughput and
#               server CPU time per request
#   memory      memory.sh: used_memory and RSS per key after loading
#               1,000,000 small keys, with and without a TTL
#   snapshot    snapshot.sh: SAVE's wall time, the file's size, the load at
#               start-up and GET's p99 while BGSAVEs run, on 1,000,000 keys
#               (half with a TTL): steps 08 and 12 and Redis
#   callgrind   callgrind.sh: instructions per command (PING, SET, GET) on
#               step 12 (the fast path) and the plain step before it, and
#               on Redis for comparison
#   replication replication.sh: chapter 09's masters (steps 09 and 12) and
#               Redis, each followed by real redis-server replicas: SET's
#               throughput and the master's CPU time per request with 0, 1
#               and 2 replicas (as the throughput part runs SET), ROUNDS
#               rounds; the replica's lag under a steady SET load; the time
#               of a full sync of 1,000,000 keys (half with a TTL), both ways
#               round
#   expiry      docs/scripts/expiry-over-time.sh (when present) with steps 04,
#               05, 06 and Redis, and burst.sh: client latency while a
#               million keys with one deadline expire (05, 06, Redis)
#
#
# Environment (defaults in brackets):
#   ROUNDS   rounds of the throughput part [5]
#   N        requests per run without pipelining [200000]
#   NP       requests per run with -P 16 [1000000]
#   PARTS    parts to run ["throughput memory snapshot callgrind replication
#            expiry"]; the report is written from whatever results are in
#            build/bench/results
#   QUICK=1  a smoke run: 1 round, N=20000, NP=100000, 100,000 keys for memory
#            and expiry, 2,000 commands under callgrind, 100,000 keys, one
#            full sync per pair and 50,000 SETs of steady load for
#            replication. Its report goes to build/bench/benchmarks.md
#            unless OUT is set.
#   REPL_KEYSPACE, REPL_SYNC_KEYS, REPL_LAG_N, REPL_SYNC_RUNS  the
#            replication part's keys loaded for SET [KEYSPACE], keys of the
#            full sync [1000000], SETs of the steady load [300000], full
#            syncs timed per pair of servers [3] (replication.sh)
#   OUT      the report [docs/benchmarks.md]
#   BENCH_PIN=0  leave the throughput runs to the scheduler instead of
#            giving the servers one CPU and redis-benchmark the others
#            (pin_cpus in lib.sh)
set -u
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
trap stop_all_servers EXIT

if [ -n "${QUICK:-}" ]; then
  : "${ROUNDS:=1}" "${N:=20000}" "${NP:=100000}" "${MEM_KEYS:=100000}" "${CG_N:=2000}"
  : "${EXPIRY_KEYS:=100000}" "${BURST_KEYS:=100000}" "${OUT:=build/bench/benchmarks.md}"
  : "${SNAP_KEYS:=100000}" "${SNAP_N:=50000}"
  : "${REPL_KEYSPACE:=100000}" "${REPL_SYNC_KEYS:=100000}" "${REPL_LAG_N:=50000}" "${REPL_SYNC_RUNS:=1}"
  : "${IMG_DIR:=build/bench/img}"
fi
export ROUNDS=${ROUNDS:-5} N=${N:-200000} NP=${NP:-1000000} CLIENTS=${CLIENTS:-50}
export KEYSPACE=${KEYSPACE:-1000000} MEM_KEYS=${MEM_KEYS:-1000000} CG_N=${CG_N:-10000}
export EXPIRY_KEYS=${EXPIRY_KEYS:-1000000} BURST_KEYS=${BURST_KEYS:-1000000}
export SNAP_KEYS=${SNAP_KEYS:-1000000} SNAP_N=${SNAP_N:-300000}
export REPL_KEYSPACE=${REPL_KEYSPACE:-$KEYSPACE} REPL_SYNC_KEYS=${REPL_SYNC_KEYS:-1000000}
export REPL_LAG_N=${REPL_LAG_N:-300000} REPL_SYNC_RUNS=${REPL_SYNC_RUNS:-3}
export OUT=${OUT:-docs/benchmarks.md} IMG_DIR=${IMG_DIR:-docs/img}
PARTS=${PARTS:-"throughput memory snapshot callgrind replication expiry"}
export BENCH_BUILD=build/bench
# Absolute: each server runs in a directory of its own (callgrind writes there).
export RESULTS=$PWD/$BENCH_BUILD/results

# One benchmark at a time: two would share build/bench/results, and each
# would measure the other's load.
mkdir -p "$BENCH_BUILD"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$BENCH_BUILD/lock"
  if ! flock -n 9; then
    echo "bench: another benchmark is running (it holds $BENCH_BUILD/lock); try again when it is done" >&2
    exit 1
  fi
fi

# ---- Tools --------------------------------------------------------------------
# Redis and its client tools, valgrind (callgrind), gnuplot, python3 and the
# build's libxxhash: tests/tools/deps.sh finds them, and installs the missing
# ones on Debian or Ubuntu, as it does for the tests.
bash tests/tools/deps.sh bench || exit 1

# ---- Build ------------------------------------------------------------------------
# CFLAGS from the environment replace the Makefile's default "-O2 -g" and
# keep its warnings and -std=c11, which it appends.
echo "bench: building optimized servers in $BENCH_BUILD (-O2 -g -DNDEBUG)"
CFLAGS="-O2 -g -DNDEBUG" make --no-print-directory -s BUILD="$BENCH_BUILD" all || exit 1
mkdir -p "$RESULTS" "$IMG_DIR" "$(dirname "$OUT")"
for v in ROUNDS N NP CLIENTS KEYSPACE MEM_KEYS CG_N EXPIRY_KEYS BURST_KEYS SNAP_KEYS SNAP_N \
  REPL_KEYSPACE REPL_SYNC_KEYS REPL_LAG_N REPL_SYNC_RUNS; do echo "$v=${!v}"; done \
  >"$RESULTS/params"

# ---- The parts --------------------------------------------------------------------
for part in $PARTS; do
  echo "bench: $part"
  started=$(date +%s)
  case $part in
    throughput) bash tests/bench/throughput.sh || exit 1 ;;
    memory) bash tests/bench/memory.sh || exit 1 ;;
    snapshot) bash tests/bench/snapshot.sh || exit 1 ;;
    callgrind) bash tests/bench/callgrind.sh || exit 1 ;;
    replication) bash tests/bench/replication.sh || exit 1 ;;
    expiry)
      rm -f "$RESULTS/expiry-over-time.txt"
      if [ -f docs/scripts/expiry-over-time.sh ]; then
        rm -rf "$RESULTS/expiry-over-time"
        KEYS=$EXPIRY_KEYS OUT="$IMG_DIR/bench-keys-over-time.png" DATA="$RESULTS/expiry-over-time" \
          bash docs/scripts/expiry-over-time.sh "$BENCH_BUILD"/04-*/server "$BENCH_BUILD"/05-*/server \
          "$BENCH_BUILD"/06-*/server "$(command -v redis-server)" | tee "$RESULTS/expiry-over-time.txt" ||
          echo "bench: docs/scripts/expiry-over-time.sh failed" >&2
      else
        echo "bench: docs/scripts/expiry-over-time.sh is not there: keys over time skipped"
      fi
      bash tests/bench/burst.sh || exit 1
      ;;
    *) echo "bench: unknown part '$part'" >&2; exit 1 ;;
  esac
  echo "bench: $part took $(($(date +%s) - started)) s"
done

# ---- Report ------------------------------------------------------------------------
python3 tests/bench/report.py || exit 1
