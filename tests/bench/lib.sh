# lib.sh -- helpers shared by the benchmark scripts of tests/bench/ (sourced).
#
# A "server" is named by a label and a binary: redis=redis-server,
# 07=build/bench/07-set-options-fsm/server. start_server
# starts one on a free port and sets SERVER_PID and SERVER_PORT; stop_server
# stops it. Every server started is remembered and stopped by
# stop_all_servers, which the scripts run on exit, so an interrupted
# benchmark leaves nothing behind.

BENCH_PIDS=()

. "$(dirname "${BASH_SOURCE[0]}")/../helpers/port.sh"  # pick_port, wait_for_pong
. "$(dirname "${BASH_SOURCE[0]}")/../helpers/clock.sh" # now_ms

# is_redis BINARY: is it a real redis-server (which wants a few more flags)?
is_redis() {
  [ "$(basename "$1")" = redis-server ]
}

# start_server BINARY [LOG [FLAG...]]: start it on a free port, with the
# FLAGs after its own, and wait until it answers PING. Retries on another
# port if the chosen one was taken meanwhile.
# It runs in BENCH_DIR when that is set, else in a new empty directory: from
# chapter 08 on a server keeps its snapshot where it runs. A step that takes
# --save (08 on) gets --save '' unless BENCH_SAVE is set, as Redis does: no
# snapshot in the middle of a measurement.
start_server() {
  local bin=$1 log=${2:-/dev/null} attempt port pid dir save=()
  shift $(($# < 2 ? $# : 2))
  dir=${BENCH_DIR:-$(mktemp -d)}
  [ "$(basename "$bin")" = redis-server ] || bin=$(realpath "$bin")
  if is_redis "$bin" || "$bin" --help 2>/dev/null | grep -q -- '--save'; then
    save=(--save "${BENCH_SAVE:-}")
  fi
  for attempt in 1 2 3 4 5; do
    port=$(pick_port) || return 1
    # SERVER_WRAPPER, when set, is a command to run the server under
    # (valgrind ..., or taskset: see pin_cpus); it is split into words.
    if is_redis "$bin"; then
      (cd "$dir" && exec ${SERVER_WRAPPER:-} "$bin" --port "$port" --bind 127.0.0.1 "${save[@]}" \
        --appendonly no "$@") >"$log" 2>&1 &
    else
      (cd "$dir" && exec ${SERVER_WRAPPER:-} "$bin" --port "$port" "${save[@]}" "$@") >"$log" 2>&1 &
    fi
    pid=$!
    BENCH_PIDS+=("$pid")
    if wait_for_pong "$port" "$pid"; then
      SERVER_PID=$pid
      SERVER_PORT=$port
      return 0
    fi
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  echo "bench: could not start $bin" >&2
  return 1
}

# stop_server PID: SIGTERM, and wait for it to exit. It is forgotten, so
# that stop_all_servers never signals a later process given the same PID.
stop_server() {
  local pid=$1 i
  for i in "${!BENCH_PIDS[@]}"; do
    [ "${BENCH_PIDS[i]}" = "$pid" ] && unset 'BENCH_PIDS[i]'
  done
  kill "$pid" 2>/dev/null || return 0
  wait "$pid" 2>/dev/null || true
}

stop_all_servers() {
  local pid
  for pid in "${BENCH_PIDS[@]+"${BENCH_PIDS[@]}"}"; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  BENCH_PIDS=()
}

# cpu_ticks PID: user + system CPU time of the process so far (all its
# threads), in clock ticks (getconf CLK_TCK per second).
cpu_ticks() {
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# cpu_ns PID: the same CPU time, in nanoseconds. The kernel keeps it exactly
# per thread (the first field of /proc/PID/task/TID/schedstat: time spent
# running), where utime and stime are counted in ticks of 10 ms: a 2-second
# run then reads within ±0.5%, and an unlucky one is charged a whole tick
# too many or too few. Falls back to the ticks if schedstat is missing.
# (awk prints with %.0f: Debian's mawk caps %d at 2^31 - 1, which is 2.1 s.)
cpu_ns() {
  local pid=$1
  if [ -r "/proc/$pid/schedstat" ]; then
    cat /proc/"$pid"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%.0f\n", t }'
  else
    echo $(($(cpu_ticks "$pid") * 1000000000 / $(getconf CLK_TCK)))
  fi
}

# pin_cpus: on a machine of two CPUs or more, with taskset, give the servers
# the last CPU and the benchmark client the others: SERVER_PIN and
# CLIENT_PIN become command prefixes ("taskset -c 1", "taskset -c 0"), and
# PIN_NOTE says what was done. BENCH_PIN=0 turns it off. Left to the
# scheduler, the client and the server now share a CPU, now not: Redis's
# own CPU time per request moved by ±7 to ±16% over 5 rounds (half the
# range, per test); pinned, by ±3 to ±10%. Every server, Redis too, gets
# the same CPU.
pin_cpus() {
  local n
  n=$(nproc 2>/dev/null || echo 1)
  SERVER_PIN="" CLIENT_PIN="" PIN_NOTE="not pinned"
  if [ "${BENCH_PIN:-1}" != 0 ] && [ "$n" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    local others=0
    [ "$n" -gt 2 ] && others="0-$((n - 2))"
    SERVER_PIN="taskset -c $((n - 1))"
    CLIENT_PIN="taskset -c $others"
    PIN_NOTE="servers on CPU $((n - 1)), redis-benchmark on CPU $others (taskset)"
  fi
}

# rss_bytes PID: resident set size, from /proc/PID/status.
rss_bytes() {
  awk '$1 == "VmRSS:" { print $2 * 1024 }' "/proc/$1/status"
}

# info_field PORT NAME: one field of INFO, or empty.
info_field() {
  redis-cli -p "$1" info all 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"
}

# server_binary LABEL: the binary for a label: redis, or a step number (07:
# $BENCH_BUILD/07-set-options-fsm/server, the step's name from
# tests/tools/step_name.py).
server_binary() {
  local label=$1 build=$BENCH_BUILD name
  if [ "$label" = redis ]; then
    command -v redis-server
    return
  fi
  name=$(python3 "$(dirname "${BASH_SOURCE[0]}")/../tools/step_name.py" --steps-only "$label") &&
    [ -x "$build/$name/server" ] && { echo "$build/$name/server"; return; }
  echo "bench: no server for step $label under $build" >&2
  return 1
}

# newest_step: the newest step's label (12), from steps/ (the build may
# still hold a step renamed since).
newest_step() {
  basename "$(ls -d steps/[0-9][0-9]-*/main.c | tail -1 | xargs dirname)" | cut -c1-2
}

# step_before_newest: the label of the step before it in steps/ (09 while
# chapters 10 and 11 are not written), the plain step the newest, the fast
# path, is measured against (tests/tools/step_name.py --before).
step_before_newest() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/../tools/step_name.py" --before "$(newest_step)" | cut -c1-2
}

# step_name LABEL: 07 -> 07-set-options-fsm; redis -> redis.
step_name() {
  local bin
  if [ "$1" = redis ]; then echo redis; return; fi
  bin=$(server_binary "$1") || return 1
  basename "$(dirname "$bin")"
}

# write_keyspace N FILE: the keyspace redis-benchmark -r N draws from
# (key:000000000000 to key:{N-1, 12 digits}), each key holding the 3 bytes
# its SET writes, as one RESP stream of SETs (throughput.sh says why the
# runs load it first).
write_keyspace() {
  awk -v n="$1" 'BEGIN {
    for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$3\r\nVXK\r\n", i }' >"$2"
}

# load_keyspace FILE N LABEL PORT: send FILE (write_keyspace N) through
# redis-cli --pipe, and fail unless the server then holds N keys.
load_keyspace() {
  local file=$1 n=$2 label=$3 port=$4 keys
  redis-cli -p "$port" --pipe <"$file" >"$RESULTS/keyspace-load.log" 2>&1
  keys=$(redis-cli -p "$port" dbsize)
  if [ "$keys" != "$n" ]; then
    echo "bench: server $label holds ${keys:-no} keys after the load, not $n" >&2
    return 1
  fi
}

# run_figures CSV C0 C1 N: the figures of one redis-benchmark run of N
# requests, from its --csv output and the server's cpu_ns before (C0) and
# after (C1, NA when it could not be read): sets rps, p50 and p99 (ms), ns
# (the server's CPU time over the run) and per (its µs per request), NA
# where a figure is missing.
run_figures() {
  local csv=$1 c0=$2 c1=$3 n=$4 line
  # --csv: a header, then "TEST","rps","avg","min","p50","p95","p99","max".
  line=$(printf '%s\n' "$csv" | tr -d '"' | awk -F, 'NR > 1 && $2 ~ /^[0-9.]+$/ { print $2, $5, $7; exit }')
  read -r rps p50 p99 <<<"${line:-NA NA NA}"
  if [ "$c1" = NA ] || [ "$rps" = NA ]; then
    ns=NA per=NA
  else
    ns=$((c1 - c0))
    per=$(awk -v t="$ns" -v n="$n" 'BEGIN { printf "%.4f", t / 1e3 / n }')
  fi
}

# half_ttl_stream N: SET key:i abc for i in 0..N-1, with EX 10000 (2.8
# hours: none expires during a run) on every other key, as RESP.
half_ttl_stream() {
  awk -v n="$1" 'BEGIN {
    for (i = 0; i < n; i++) {
      k = "key:" i
      if (i % 2)
        printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nabc\r\n$2\r\nEX\r\n$5\r\n10000\r\n", length(k), k
      else
        printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nabc\r\n", length(k), k
    } }'
}

# median VALUE...: the middle one (the lower of the two middle ones).
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
