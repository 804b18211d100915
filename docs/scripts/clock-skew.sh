#!/usr/bin/env bash
# clock-skew.sh -- chapter 09's run: what a replica's reader sees when the
# replica's clock is ahead of its master's and when it is behind, and what
# a failover then does.
#
#   docs/scripts/clock-skew.sh [SERVER] [SKEW_MS] [TTL_MS]
#
# Starts tests/09-replication/skewed_master.py (a scripted master whose
# clock is SKEW_MS off, default 2000; read its header) and SERVER (default
# build/09-replication/server; redis-server runs a real Redis) as its
# replica, each on a free port. At T0 the master sends three keys meant to
# live TTL_MS (default 4000) by their masters' clocks: "ahead" (the
# replica's clock is ahead), "behind" and "lazy" (it is behind; lazy's DEL
# never comes). Every STEP_MS from T0 the script asks the replica for each
# key's GET and PTTL and for DBSIZE, and prints a line; at PROMOTE_MS (T0 +
# TTL_MS + SKEW_MS / 2 + 250) it runs REPLICAOF NO ONE: the failover. Stops both
# at the end.
set -eu
cd "$(dirname "$0")/../.."
SERVER=${1:-build/09-replication/server}
[ "$SERVER" = redis-server ] || SERVER=$(realpath "$SERVER") # it runs in a directory of its own
SKEW_MS=${2:-2000}
TTL_MS=${3:-4000}
STEP_MS=500  # a look every half second, a quarter of a second off
FIRST_MS=250 # each deadline and DEL, so that no look races one
END_MS=$((TTL_MS + 2 * SKEW_MS + 1000))
PROMOTE_MS=$((TTL_MS + SKEW_MS / 2 + FIRST_MS))

dir=$(mktemp -d)
master_port=$((20000 + RANDOM % 20000)) replica_port=$((40000 + RANDOM % 20000))
python3 tests/09-replication/skewed_master.py "$master_port" "$SKEW_MS" "$TTL_MS" >"$dir/master.log" 2>&1 &
master=$!
(cd "$dir" && exec "$SERVER" --port "$replica_port" --save '' --replicaof 127.0.0.1 "$master_port") \
  >"$dir/replica.log" 2>&1 &
replica=$!
trap 'kill $master $replica 2>/dev/null; wait $master $replica 2>/dev/null; rm -rf "$dir"' EXIT

now_ms() { date +%s%3N; }
for _ in $(seq 200); do grep -q '^set ' "$dir/master.log" && break; sleep 0.05; done
t0=$(sed -n 's/^set //p' "$dir/master.log" | head -1)
[ -n "$t0" ] || { echo "clock-skew.sh: the replica did not sync: $(cat "$dir/replica.log")" >&2; exit 1; }

# key_state KEY: "v 3000" (its value and PTTL), or "nil" when hidden or gone.
key_state() {
  local v
  v=$(redis-cli -p "$replica_port" get "$1")
  if [ -z "$v" ]; then echo nil; else echo "$v $(redis-cli -p "$replica_port" pttl "$1")"; fi
}

server_info=$(redis-cli -p "$replica_port" info server | tr -d '\r')
step=$(sed -n 's/^tutorial_step://p' <<<"$server_info")
if [ -n "$step" ]; then echo "replica: step $step"; else
  echo "replica: redis-server $(sed -n 's/^redis_version://p' <<<"$server_info")"; fi
echo "its clock: ${SKEW_MS} ms ahead of ahead's master, ${SKEW_MS} ms behind behind's and lazy's;"
echo "each key meant to live ${TTL_MS} ms by its master's clock; their DELs sent at T0+${TTL_MS} (none for lazy)"
printf '%-8s %-12s %-12s %-12s %s\n' "T0+ms" ahead behind lazy DBSIZE
for ((t = FIRST_MS; t <= END_MS; t += STEP_MS)); do
  wait_ms=$((t0 + t - $(now_ms)))
  [ "$wait_ms" -gt 0 ] && sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
  printf '%-8s %-12s %-12s %-12s %s\n' "$t" "$(key_state ahead)" "$(key_state behind)" "$(key_state lazy)" \
    "$(redis-cli -p "$replica_port" dbsize)"
  if [ "$t" -eq "$PROMOTE_MS" ]; then
    echo "         REPLICAOF NO ONE: $(redis-cli -p "$replica_port" replicaof no one)"
  fi
done
