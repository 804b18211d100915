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
# T0 + 0.5 s for 9 s. Prints one summary line per server (the CPU time as a
# share of one core over the window it was measured in, [T0, end], which the
# column window_s gives: the last sample ends a little after T0 +
# SECONDS_AFTER) and draws OUT (a
# PNG, with gnuplot): keys held, and below, on a log axis, the stale keys
# (held minus the keys not yet due, counted exactly from the schedule), each
# server in its colour from tests/bench/colours.tsv.
#
# Environment: KEYS, SPREAD_MS (10000), SECONDS_AFTER (15), LEAD_MS (12000:
# time allowed for the load), OUT (build/plots/keys-over-time.png; the
# chapters' copies in docs/img/ are made with OUT=docs/img/...), DATA (a
# directory to keep the run in: each server's samples, "seconds DBSIZE
# not-yet-due" per line, with the files series and params that name them,
# summary.tsv, the summary lines' figures, and command, which draws the
# plot again from the directory: docs/plots/NAME/ for docs/img/NAME.png),
# REPLOT (a directory kept with DATA: draw OUT again from it, running no
# server; samples of two columns, from before the third was kept, get it
# from the schedule, which srand(1) makes the same every time).
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

. "$(dirname "$0")/lib.sh" # now_ms, pick_port, colour_key, server_colour

# schedule: each key's deadline, in ms after T0, in the order of the load.
# The load and the count of keys not yet due both read it.
schedule() {
  awk -v n="$KEYS" -v spread="$SPREAD_MS" 'BEGIN { srand(1)
    for (i = 0; i < n; i++) print int(rand() * spread) }'
}

# add_not_due IN OUT: IN's samples ("seconds DBSIZE") with a third column,
# the keys whose deadline had not passed at that time (a key due at d ms is
# expired from d + 1). Samples that have it already are copied.
add_not_due() {
  if awk 'NF >= 3 { found = 1; exit } END { exit !found }' "$1"; then
    cp "$1" "$2"
    return
  fi
  schedule | awk -v n="$KEYS" -v spread="$SPREAD_MS" 'NR == FNR { count[$1]++; next }
    FNR == 1 { for (x = spread - 1; x >= 0; x--) later[x] = later[x + 1] + count[x] }
    { x = int($1 * 1000 + ($1 < 0 ? -0.5 : 0.5))
      print $1, $2, (x <= 0 ? n : x >= spread ? 0 : later[x]) }' - "$1" >"$2"
}

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

# info_field_of STATS NAME: NAME's value in a "name=value name=value" line.
info_field_of() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# cpu_ms: the server's user + system CPU time so far, in ms.
cpu_ms() {
  local ticks
  ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  echo $((ticks * 1000 / $(getconf CLK_TCK)))
}

# keep_data DIR: the samples, and what names them: series (label, palette
# entry, file, a tab between) and params (the run's KEYS, SPREAD_MS,
# SECONDS_AFTER), so that REPLOT can draw the plot again, as command says;
# and summary.tsv, the figures of the summary lines.
keep_data() {
  mkdir -p "$1"
  : >"$1/series"
  for ((i = 0; i < ${#series[@]}; i += 3)); do
    cp "${series[i + 2]}" "$1/"
    printf '%s\t%s\t%s\n' "${series[i]}" "${series[i + 1]}" "$(basename "${series[i + 2]}")" >>"$1/series"
  done
  printf 'KEYS=%s\nSPREAD_MS=%s\nSECONDS_AFTER=%s\n' "$KEYS" "$SPREAD_MS" "$SECONDS_AFTER" >"$1/params"
  cp "$work/summary.tsv" "$1/summary.tsv"
  # shellcheck disable=SC2016 # expanded when the command runs
  echo 'REPLOT="$DIR" OUT="$OUT" bash docs/scripts/expiry-over-time.sh' >"$1/command"
}

# replot DIR: series from a directory kept with DATA. Without a series file
# (kept before there was one), every *.dat in it, named after its file.
replot() {
  local k v label key file
  if [ -f "$1/params" ]; then
    while IFS='=' read -r k v; do
      case $k in KEYS | SPREAD_MS | SECONDS_AFTER) printf -v "$k" %s "$v" ;; esac
    done <"$1/params"
  fi
  series=()
  if [ -f "$1/series" ]; then
    while IFS=$'\t' read -r label key file; do series+=("$label" "$key" "$1/$file"); done <"$1/series"
  else
    for file in "$1"/*.dat; do
      label=$(basename "$file" .dat | tr _ ' ')
      series+=("$label" "$(colour_key "$label")" "$file")
    done
  fi
  for ((i = 0; i < ${#series[@]}; i += 3)); do
    add_not_due "${series[i + 2]}" "$work/$i.dat"
    series[i + 2]=$work/$i.dat
  done
}

# draw: OUT from the series (label, palette entry, samples with the keys not
# yet due). Above, keys held, with the keys not yet due as a wide grey band;
# below, the stale keys on a log axis, where a few thousand among a million
# still show. Where lines coincide (every server holds all the keys until
# the first deadlines, step 06 runs along the band) each server's line is
# drawn thinner than the one before it, so every one stays in sight.
draw() {
  local n=$((${#series[@]} / 3)) i lw rgb top="" low="" fewest band keys_text
  local spread_s="($SPREAD_MS / 1000.0)"
  for ((i = 0; i < ${#series[@]}; i += 3)); do
    lw=$(awk -v k=$((n - 1 - i / 3)) 'BEGIN { print 1.5 + 1.5 * k }')
    rgb=$(server_colour "${series[i + 1]}")
    [ -z "$rgb" ] || rgb="lc rgb '$rgb'"
    top+=", '${series[i + 2]}' using 1:(\$2/1000) with lines lw $lw $rgb title '${series[i]}'"
    low+="${low:+, }'${series[i + 2]}' using 1:(\$2 > \$3 ? \$2 - \$3 : NaN) with lines lw $lw $rgb notitle"
  done
  # The log axis starts at the power of ten below the fewest stale keys drawn.
  fewest=$(for ((i = 0; i < ${#series[@]}; i += 3)); do cat "${series[i + 2]}"; done |
    awk '$2 > $3 && (min == "" || $2 - $3 < min) { min = $2 - $3 } END { print (min == "" ? 1 : min) }')
  # A sample's time is known to its last digit (1 ms; 10 ms in runs kept
  # before): half of that, times the keys due per ms, bounds the error of a
  # stale count, which the panel says.
  local res_ms error
  res_ms=$(awk 'NR == 1 { split($1, p, "."); print 10 ^ (3 - length(p[2])); exit }' "${series[2]}")
  error=$(awk -v r="$res_ms" -v n="$KEYS" -v s="$SPREAD_MS" 'BEGIN { printf "%.0f", r / 2 * n / s }')
  band=$(awk -v n="$n" 'BEGIN { print 1.5 * n + 6 }')
  keys_text=$(echo "$KEYS" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta')
  mkdir -p "$(dirname "$OUT")"
  gnuplot <<EOF
set terminal pngcairo size 900,860 font 'DejaVu Sans,11'
set output '$OUT'
set multiplot title '$keys_text keys with a TTL, deadlines spread uniformly over $((SPREAD_MS / 1000)) s, no reads'
set lmargin 12
set grid
set xrange [-1:$SECONDS_AFTER]
set samples 1000
set origin 0,0.40
set size 1,0.55
set title 'keys held (DBSIZE, every 100 ms)'
set ylabel 'keys held, thousands'
set yrange [0:$((KEYS * 11 / 10000))]
set key bottom left box opaque
plot (x < 0 ? $KEYS : x > $spread_s ? 0 : $KEYS * (1 - x / $spread_s)) / 1000 \\
  with lines lw $band lc rgb 'gray80' title 'keys not yet due (grey band)'$top
set origin 0,0
set size 1,0.40
set title "stale keys: held minus keys not yet due, log scale (sample times to $res_ms ms: ±$error keys)"
unset key
set xlabel 'seconds since the first deadline'
set ylabel 'stale keys'
set logscale y
set format y '10^{%L}'
set yrange [10**floor(log10($fewest)):$((KEYS * 2))]
plot $low
unset multiplot
EOF
  echo "wrote $OUT"
}

if [ -n "${REPLOT:-}" ]; then
  replot "$REPLOT"
  draw
  exit 0
fi

# Columns: keys held at T0; the most keys held past their deadline before
# T0 + SPREAD_MS (held minus the keys not yet due), and when; keys held at
# T0 + 10 s and at the end (all of them stale: every deadline has passed); the
# first time at most 1% of the keys are held; CPU time and time in the expire
# cycle over [T0, end], in ms (in brackets: the cycle's busiest second), and
# that CPU time as a share of one core; PING latency. The server's own
# counters follow.
printf '%-20s %8s %16s %8s %8s %7s %7s %8s %10s %6s %s\n' server held@0 'peak stale (at)' \
  held@10s "held@${SECONDS_AFTER}s" '<=1%@s' cpu_ms window_s 'cycle (1s)' cpu% 'latency min/avg/max ms (pings)'
# The same figures, one column each, for DATA.
printf 'server\theld_0\tpeak_stale\tpeak_stale_s\theld_10s\theld_end\tat_most_1pct_s\tcpu_ms\twindow_s\tcpu_pct\tcycle_ms\tcycle_busiest_second_ms\tping_min_ms\tping_avg_ms\tping_max_ms\tpings\texpired_stale_perc\texpired_time_cap_reached_count\tloadavg_1min\n' \
  >"$work/summary.tsv"
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
  schedule | awk -v t0="$t0" '{ k = "session:" (NR - 1); w = sprintf("%.0f", t0 + $1)
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$5\r\nvalue\r\n", length(k), k
      printf "*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(w), w }' |
    redis-cli -p "$port" --pipe >/dev/null
  if [ "$(now_ms)" -ge "$t0" ]; then
    echo "$label: loading took longer than LEAD_MS=$LEAD_MS ms; raise it" >&2
    exit 1
  fi

  # Sample DBSIZE every 100 ms on one connection, stamped with the time since
  # T0 to the millisecond (about 100 keys fall due in each one).
  dat="$work/$(echo "$label" | tr -c 'A-Za-z0-9.\n-' _).dat"
  samples=$(((t0 + SECONDS_AFTER * 1000 - $(now_ms)) / 100 + 2))
  redis-cli -p "$port" -r "$samples" -i 0.1 dbsize | while read -r n; do
    printf '%.3f %s\n' "$(($(now_ms) - t0))e-3" "$n"
  done >"$dat.raw" &
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
  add_not_due "$dat.raw" "$dat"

  # DBSIZE at the first sample at or after t seconds.
  at() { awk -v t="$1" '$1 >= t { print $2; exit }' "$dat"; }
  reclaimed=$(awk -v lim=$((KEYS / 100)) '$1 > 0 && $2 <= lim { print $1; exit }' "$dat")
  cycle=-
  [ "$cyc0" = - ] || cycle="$((cyc1 - cyc0)) $(awk 'NR > 1 && $1 - last > max { max = $1 - last }
    { last = $1 } END { printf "(%d)", max }' "$work/cycle")"
  read -r lmin lmax lavg lcount <<<"$latency"
  read -r peak_n peak_at < <(awk -v s="$SPREAD_MS" '$1 >= 0 && $1 <= s / 1000 {
    stale = $2 - $3; if (stale > max) { max = stale; at = $1 } }
    END { printf "%d %.1f\n", max, at }' "$dat")
  window=$(awk -v t="$end_ms" 'BEGIN { printf "%.2f", t / 1000 }')
  share=$(awk -v c=$((cpu1 - cpu0)) -v t="$end_ms" 'BEGIN { printf "%.1f", 100 * c / t }')
  printf '%-20s %8s %16s %8s %8s %7s %7s %8s %10s %5s%% %s/%s/%s (%s)   %s\n' "$label" "$(at 0)" \
    "$peak_n ($peak_at s)" "$(at 10)" "$(at "$SECONDS_AFTER")" "${reclaimed:-never}" $((cpu1 - cpu0)) \
    "$window" "$cycle" "$share" "$lmin" "$lavg" "$lmax" "$lcount" "$stats"
  cycle_ms=${cycle%% *}
  busiest=$(echo "$cycle" | sed -n 's/.*(\(.*\))/\1/p')
  # The machine's load average (1 min) at the end of the run: how much else
  # wanted the 2 cores meanwhile.
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$(at 0)" \
    "$peak_n" "$peak_at" "$(at 10)" "$(at "$SECONDS_AFTER")" "${reclaimed:-never}" $((cpu1 - cpu0)) \
    "$window" "$share" "$cycle_ms" "${busiest:--}" "$lmin" "$lavg" "$lmax" "$lcount" \
    "$(info_field_of "$stats" stale_perc)" "$(info_field_of "$stats" time_cap)" \
    "$(cut -d' ' -f1 /proc/loadavg)" >>"$work/summary.tsv"
  series+=("$label" "$(colour_key "$label" "$server")" "$dat")
  [ -z "${DATA:-}" ] || keep_data "$DATA"
done
draw
