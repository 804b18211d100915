#!/usr/bin/env bash
# expiry-lateness.sh -- chapter 06: how long keys nobody reads stay in memory
# after their deadline, on each server given.
#
#   docs/scripts/expiry-lateness.sh [SERVER ...]
#
# Each SERVER is a binary that takes --port N (default: steps 05 and 06). For
# each one: start it on a free port, load KEYS keys (default 20,000) with
# absolute deadlines (SET, then PEXPIREAT) spread evenly over SPREAD_MS
# (default 5,000) from T0, T0 being LEAD_MS (default 3,000) after the load
# starts. Read no key. Sample DBSIZE every 100 ms from T0 until it is 0 (or
# T0 + SPREAD_MS + 10 s), and compare each sample with the number of keys
# whose deadline is still ahead: the difference is the keys held past their
# deadline ("stale"). Prints, per server: the most stale keys seen and when;
# the mean lateness, which is the area under the stale curve divided by KEYS
# (the total time keys spent stale, shared among them); when DBSIZE reached
# 0, counted from the last deadline; and INFO's expire_wheel_max_lateness_ms
# where the server has it (the exact worst case, measured per key).
set -eu
cd "$(dirname "$0")/../.."
KEYS=${KEYS:-20000}
SPREAD_MS=${SPREAD_MS:-5000}
LEAD_MS=${LEAD_MS:-3000}
[ $# -gt 0 ] || set -- build/05-active-sampling/server build/06-timewheel/server

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

. "$(dirname "$0")/lib.sh" # now_ms, pick_port

info_field() {
  local v
  v=$(redis-cli -p "$port" info stats | tr -d '\r' | sed -n "s/^$1://p")
  echo "${v:--}"
}

printf '%-20s %22s %14s %16s %18s\n' server 'most stale keys (at)' 'mean lateness' 'empty after last' 'wheel max lateness'
for server in "$@"; do
  port=$(pick_port)
  "$server" --port "$port" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] || { echo "$server did not start on port $port" >&2; exit 1; }

  # Key i's deadline: T0 + floor(i * SPREAD_MS / KEYS).
  t0=$(($(now_ms) + LEAD_MS))
  awk -v n="$KEYS" -v t0="$t0" -v spread="$SPREAD_MS" 'BEGIN {
    for (i = 0; i < n; i++) { k = "late:" i; w = sprintf("%.0f", t0 + int(i * spread / n))
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length(k), k
      printf "*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(w), w } }' |
    redis-cli -p "$port" --pipe >/dev/null
  [ "$(now_ms)" -lt "$t0" ] || { echo "loading took longer than LEAD_MS=$LEAD_MS ms" >&2; exit 1; }
  while [ "$(now_ms)" -lt "$t0" ]; do sleep 0.01; done

  # "ms-since-T0 DBSIZE", every 100 ms, until DBSIZE is 0.
  dat="$work/samples"
  samples=$(((SPREAD_MS + 10000) / 100))
  redis-cli -p "$port" -r "$samples" -i 0.1 dbsize | while read -r n; do
    echo "$(($(now_ms) - t0)) $n"
    [ "$n" != 0 ] || break
  done >"$dat" || true
  wheel=$(info_field expire_wheel_max_lateness_ms)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=

  awk -v n="$KEYS" -v s="$SPREAD_MS" -v label="$(basename "$(dirname "$server")")" -v wheel="$wheel" '
    function ahead(t) { return t >= s ? 0 : (t < 0 ? n : n - int(t * n / s) - 1) } # deadlines > t
    { stale = $2 - ahead($1); if (stale < 0) stale = 0
      if (stale > most) { most = stale; most_at = $1 }
      if (NR > 1) area += (stale + last_stale) / 2 * ($1 - last_t)
      last_t = $1; last_stale = stale; if ($2 == 0 && empty == "") empty = $1 - s }
    END { printf "%-20s %12d (%4.1f s) %11.0f ms %16s %18s\n", label, most, most_at / 1000,
      area / n, empty == "" ? "never" : empty " ms", wheel == "-" ? "-" : wheel " ms" }' "$dat"
done
