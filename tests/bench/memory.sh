#!/usr/bin/env bash
# memory.sh -- memory per key: load MEM_KEYS small keys into a fresh server
# and divide the growth of used_memory (INFO memory) and of the resident set
# (VmRSS in /proc/PID/status) by the keys. Keys are key:0 ... key:N-1, each
# with the 3-byte value "abc", sent as one RESP stream through
# redis-cli --pipe; then once more with a TTL on every key (SET ... EX 10000,
# which steps 02 and 03 do not have). One line per load in
# $RESULTS/memory.tsv. Environment: RESULTS, BENCH_BUILD, MEM_KEYS (1000000),
# MEM_SERVERS (redis 02 03 04 05 06 07 08 and the newest step, 12).
set -u
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
trap stop_all_servers EXIT

MEM_KEYS=${MEM_KEYS:-1000000}
MEM_SERVERS=${MEM_SERVERS:-"redis 02 03 04 05 06 07 08 $(newest_step)"}
out=$RESULTS/memory.tsv
printf 'server\tttl\tkeys\tused_before\tused_after\trss_before\trss_after\tused_per_key\trss_per_key\n' >"$out"

# The load: SET key:i abc [EX 10000] for i in 0..n-1, as RESP.
load_stream() { # n with_ttl
  awk -v n="$1" -v ttl="$2" 'BEGIN {
    for (i = 0; i < n; i++) {
      k = "key:" i
      if (ttl == "yes")
        printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nabc\r\n$2\r\nEX\r\n$5\r\n10000\r\n", length(k), k
      else
        printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nabc\r\n", length(k), k
    } }'
}

for s in $MEM_SERVERS; do
  for ttl in no yes; do
    if [ "$ttl" = yes ] && [ "$s" != redis ] && [ "$s" \< 04 ]; then continue; fi
    bin=$(server_binary "$s") || exit 1
    start_server "$bin" || exit 1
    pid=$SERVER_PID port=$SERVER_PORT
    u0=$(info_field "$port" used_memory) r0=$(rss_bytes "$pid")
    load_stream "$MEM_KEYS" "$ttl" | redis-cli -p "$port" --pipe >"$RESULTS/memory-pipe.log" 2>&1
    keys=$(redis-cli -p "$port" dbsize)
    u1=$(info_field "$port" used_memory) r1=$(rss_bytes "$pid")
    stop_server "$pid"
    if [ "$keys" != "$MEM_KEYS" ]; then
      echo "memory: $s (ttl $ttl) holds $keys keys, not $MEM_KEYS; see $RESULTS/memory-pipe.log" >&2
      exit 1
    fi
    read -r upk rpk < <(awk -v u0="$u0" -v u1="$u1" -v r0="$r0" -v r1="$r1" -v n="$keys" \
      'BEGIN { printf "%.1f %.1f\n", (u1 - u0) / n, (r1 - r0) / n }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$ttl" "$keys" "$u0" "$u1" "$r0" "$r1" \
      "$upk" "$rpk" >>"$out"
    printf '  %-6s ttl=%-3s  used_memory %6s B/key   RSS %6s B/key\n' "$s" "$ttl" "$upk" "$rpk"
  done
done
rm -f "$RESULTS/memory-pipe.log"
