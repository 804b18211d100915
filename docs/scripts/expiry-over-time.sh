#!/usr/bin/env bash
# expiry-over-time.sh -- chapters 05 and 06: how many keys a server holds while
# a million keys expire and nobody reads them, what the reclaiming costs in
# CPU, and what latency a client sees meanwhile.
#
#   docs/scripts/expiry-over-time.sh [SERVER ...]
#
# Each SERVER is a binary that takes --port N (build/NN-name/server), or
# redis-server for a real Redis, optionally written LABEL=SERVER to name its
# line on the plot. Default: steps 04 and 05 and redis-server. The servers run
# one after the other, each on a free port, and each is stopped afterwards.
#
# For each server: load KEYS keys (default 1,000,000), each with an absolute
# deadline (PEXPIREAT) drawn uniformly from [T0, T0 + SPREAD_MS), T0 being
# LEAD_MS after the load starts, so every server gets the same schedule.
# Then, without reading a key, sample DBSIZE every 100 ms until
# T0 + SECONDS_AFTER seconds, and measure over [T0, end]: the server's CPU
# time (utime + stime from /proc), INFO's expire_cycle_cpu_milliseconds where
# the server has it, and `redis-cli --latency` (PING round trips, ms) from
# T0 + 0.5 s for 9 s. Prints one summary line per server and draws OUT (a
# PNG, with gnuplot).
#
# Environment: KEYS, SPREAD_MS (10000), SECONDS_AFTER (15), LEAD_MS (12000:
# time allowed for the load), OUT (build/plots/keys-over-time.png; the
# chapters' copies in docs/img/ are made with OUT=docs/img/...), DATA (a
# directory to keep each server's samples in, "seconds DBSIZE" per line).
set -eu
cd "$(dirname "$0")/../.."
KEYS=${KEYS:-1000000}
SPREAD_MS=${SPREAD_MS:-10000}
SECONDS_AFTER=${SECONDS_AFTER:-15}
LEAD_MS=${LEAD_MS:-12000}
OUT=${OUT:-build/plots/keys-over-time.png}
[ $# -gt 0 ] || set -- build/04-expiry-lazy/server build/05-active-sampling/server redis-server

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

. "$(dirname "$0")/lib.sh" # now_ms, pick_port

label_of() {
  case $1 in
    *=*) echo "${1%%=*}" ;;
    *redis-server) echo "Redis $("${1}" --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p')" ;;
    *) basename "$(dirname "$1")" ;;
  esac
}

# info_field NAME: one field of INFO, or "-" when the server has none.
info_field() {
  local v
  v=$(redis-cli -p "$port" info all | tr -d '\r' | sed -n "s/^$1://p")
  echo "${v:--}"
}

# cpu_ms: the server's user + system CPU time so far, in ms.
cpu_ms() {
  local ticks
  ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  echo $((ticks * 1000 / $(getconf CLK_TCK)))
}

# Columns: keys held at T0; the most keys held past their deadline before
# T0 + SPREAD_MS (held minus the keys not yet due), and when; keys held at
# T0 + 10 s and at the end (all of them stale: every deadline has passed); the
# first time at most 1% of the keys are held; CPU time and time in the expire
# cycle over [T0, end], in ms (in brackets: the cycle's busiest second), and
# that CPU time as a share of one core; PING latency. The server's own
# counters follow.
printf '%-20s %8s %16s %8s %8s %7s %7s %10s %6s %s\n' server held@0 'peak stale (at)' \
  held@10s "held@${SECONDS_AFTER}s" '<=1%@s' cpu_ms 'cycle (1s)' cpu% 'latency min/avg/max ms (pings)'
series=()
for spec in "$@"; do
  server=${spec#*=}
  label=$(label_of "$spec")
  port=$(pick_port)
  if [ "$(basename "$server")" = redis-server ]; then
    "$server" --port "$port" --save '' --appendonly no >"$work/log" 2>&1 &
  else
    "$server" --port "$port" >"$work/log" 2>&1 &
  fi
  pid=$!
  for _ in $(seq 1 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done

  # Load: SET then PEXPIREAT, a fixed random schedule (srand(1)).
  t0=$(($(now_ms) + LEAD_MS))
  awk -v n="$KEYS" -v t0="$t0" -v spread="$SPREAD_MS" 'BEGIN { srand(1)
    for (i = 0; i < n; i++) { k = "session:" i; w = sprintf("%.0f", t0 + int(rand() * spread))
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$5\r\nvalue\r\n", length(k), k
      printf "*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(w), w } }' |
    redis-cli -p "$port" --pipe >/dev/null
  if [ "$(now_ms)" -ge "$t0" ]; then
    echo "$label: loading took longer than LEAD_MS=$LEAD_MS ms; raise it" >&2
    exit 1
  fi

  # Sample DBSIZE every 100 ms on one connection, stamped with the time since T0.
  dat="$work/$(echo "$label" | tr -c 'A-Za-z0-9.\n-' _).dat"
  samples=$(((t0 + SECONDS_AFTER * 1000 - $(now_ms)) / 100 + 2))
  redis-cli -p "$port" -r "$samples" -i 0.1 dbsize | while read -r n; do
    printf '%.2f %s\n' "$(($(now_ms) - t0))e-3" "$n"
  done >"$dat" &
  sampler=$!
  while [ "$(now_ms)" -lt "$t0" ]; do sleep 0.01; done
  cpu0=$(cpu_ms)
  cyc0=$(info_field expire_cycle_cpu_milliseconds)
  # The cycle's time, once a second, to find its busiest second.
  redis-cli -p "$port" -r "$SECONDS_AFTER" -i 1 info stats | tr -d '\r' |
    sed -n 's/^expire_cycle_cpu_milliseconds://p' >"$work/cycle" &
  cycle_sampler=$!
  sleep 0.5
  latency=$(redis-cli -p "$port" --latency -i 9)
  wait "$sampler" "$cycle_sampler"
  cpu1=$(cpu_ms)
  cyc1=$(info_field expire_cycle_cpu_milliseconds)
  end_ms=$(($(now_ms) - t0))
  stats="stale_perc=$(info_field expired_stale_perc)"
  stats+=" time_cap=$(info_field expired_time_cap_reached_count)"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=

  # DBSIZE at the first sample at or after t seconds.
  at() { awk -v t="$1" '$1 >= t { print $2; exit }' "$dat"; }
  reclaimed=$(awk -v lim=$((KEYS / 100)) '$1 > 0 && $2 <= lim { print $1; exit }' "$dat")
  cycle=-
  [ "$cyc0" = - ] || cycle="$((cyc1 - cyc0)) $(awk 'NR > 1 && $1 - last > max { max = $1 - last }
    { last = $1 } END { printf "(%d)", max }' "$work/cycle")"
  read -r lmin lmax lavg lcount <<<"$latency"
  peak=$(awk -v n="$KEYS" -v s="$SPREAD_MS" '$1 >= 0 && $1 <= s / 1000 {
    stale = $2 - n * (1 - $1 * 1000 / s); if (stale > max) { max = stale; at = $1 } }
    END { printf "%d (%.1f s)", max, at }' "$dat")
  printf '%-20s %8s %16s %8s %8s %7s %7s %10s %5s%% %s/%s/%s (%s)   %s\n' "$label" "$(at 0)" \
    "$peak" "$(at 10)" "$(at "$SECONDS_AFTER")" "${reclaimed:-never}" $((cpu1 - cpu0)) "$cycle" \
    "$(awk -v c=$((cpu1 - cpu0)) -v t="$end_ms" 'BEGIN { printf "%.1f", 100 * c / t }')" \
    "$lmin" "$lavg" "$lmax" "$lcount" "$stats"
  series+=("$label" "$dat")
  [ -z "${DATA:-}" ] || { mkdir -p "$DATA"; cp "$dat" "$DATA/"; }
done

# One line per server, and the keys that have not expired yet for reference.
plot="plot"
for ((i = 0; i < ${#series[@]}; i += 2)); do
  plot+=" '${series[i + 1]}' using 1:(\$2/1000) with lines lw 2 title '${series[i]}',"
done
spread_s="($SPREAD_MS / 1000.0)"
plot+=" [0:$((SPREAD_MS / 1000 + 1))] $KEYS * (x > $spread_s ? 0 : 1 - x / $spread_s) / 1000"
plot+=" with lines dt 2 lc rgb 'gray40' title 'keys not yet expired'"
mkdir -p "$(dirname "$OUT")"
keys_text=$(echo "$KEYS" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta')
gnuplot <<EOF
set terminal pngcairo size 900,540 font 'DejaVu Sans,11'
set output '$OUT'
set title '$keys_text keys with a TTL, deadlines spread uniformly over $((SPREAD_MS / 1000)) s, no reads'
set xlabel 'seconds since the first deadline'
set ylabel 'keys held (DBSIZE), thousands'
set xrange [-1:$SECONDS_AFTER]
set yrange [0:$((KEYS * 11 / 10000))]
set grid
set key bottom left box opaque
$plot
EOF
echo "wrote $OUT"
