# replication.bash -- helpers chapter 09's suites share (load it after
# ../helpers/server): several servers at once, one of them under test and
# real redis-server 7.0.15 processes on the other end; a wait for a replica
# to catch up; and a comparison of two servers' keys, values and deadlines.
# Every check prints what it sent, expected and received, as expect.bash's do.

# start_as NAME [flags...]: start_server, and keep its port, pid, log and
# directory as NAME_PORT, NAME_PID, NAME_LOG, NAME_DIR; stop_all stops it.
# start_server sets PORT for the last start: the helpers below take a port.
STARTED=()
start_as() {
  local name=$1
  shift
  start_server "$@" || return 1
  printf -v "${name}_PORT" %s "$PORT"
  printf -v "${name}_PID" %s "$SERVER_PID"
  printf -v "${name}_LOG" %s "$SERVER_LOG"
  printf -v "${name}_DIR" %s "$SERVER_DIR"
  STARTED+=("$SERVER_PID $SERVER_LOG")
}

# redis_as NAME [flags...]: start_as, with a real redis-server: the other end.
# A 7.0.15 master streams a snapshot to a replica that can take it only after
# repl-diskless-sync-delay (5 s); here it starts at once.
redis_as() {
  SERVER=redis-server start_as "$@" --repl-diskless-sync-delay 0
}

# master_flags: what a master under test needs: none for ours, and for the
# reference run (a real redis-server under test) no diskless delay either.
master_flags() {
  if is_reference; then echo --repl-diskless-sync-delay 0; fi
}

# stop_all: stop every server start_as started, newest first, each required
# to exit cleanly (stop_server); all are stopped even if one fails.
stop_all() {
  local i entry failed=0
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
    entry=${STARTED[i]}
    SERVER_PID=${entry%% *} SERVER_LOG=${entry#* }
    stop_server || failed=1
  done
  STARTED=()
  return "$failed"
}

# stop_one NAME: stop that server now (a restart, a lost link).
stop_one() {
  local pid_var="${1}_PID" log_var="${1}_LOG" i
  SERVER_PID=${!pid_var} SERVER_LOG=${!log_var}
  stop_server || return 1
  for i in "${!STARTED[@]}"; do
    [ "${STARTED[i]%% *}" = "${!pid_var}" ] && unset 'STARTED[i]'
  done
  STARTED=("${STARTED[@]}")
}

# info_of PORT SECTION: INFO SECTION of that server, CRs removed.
info_of() {
  redis-cli -p "$1" info "$2" | tr -d '\r'
}

# field_of PORT SECTION NAME: one field of it.
field_of() {
  info_of "$1" "$2" | sed -n "s/^$3://p"
}

# wait_synced MASTER_PORT REPLICA_PORT WITHIN_MS: poll until the replica's
# link is up and its offset is the master's (every write applied); fail
# with the last offsets seen.
wait_synced() {
  local m=$1 rp=$2 within_ms=$3 deadline mo ro link
  SENT="INFO replication on $m and $rp, every 50 ms for $within_ms ms"
  deadline=$(($(now_ms) + within_ms))
  while :; do
    mo=$(field_of "$m" replication master_repl_offset)
    ro=$(field_of "$rp" replication slave_repl_offset)
    link=$(field_of "$rp" replication master_link_status)
    [ "$link" = up ] && [ -n "$mo" ] && [ "$mo" = "$ro" ] && return 0
    if [ "$(now_ms)" -ge "$deadline" ]; then
      status='' fail_exchange "master_link_status:up and slave_repl_offset equal to the master's master_repl_offset within $within_ms ms" \
        "master_link_status:${link:-?}, master_repl_offset:${mo:-?}, slave_repl_offset:${ro:-?} (the last answers)"
      return
    fi
    sleep 0.05
  done
}

# wait_field PORT SECTION NAME WANT WITHIN_MS: poll one INFO field.
wait_field() {
  local p=$1 section=$2 name=$3 want=$4 within_ms=$5 seen deadline
  SENT="redis-cli -p $p INFO $section, field $name, every 50 ms for $within_ms ms"
  deadline=$(($(now_ms) + within_ms))
  while :; do
    seen=$(field_of "$p" "$section" "$name")
    [ "$seen" = "$want" ] && return 0
    if [ "$(now_ms)" -ge "$deadline" ]; then
      status='' fail_exchange "$name:$want within $within_ms ms" "$name:$seen (the last answer)"
      return
    fi
    sleep 0.05
  done
}

# keys_of PORT PREFIX N: for PREFIX:0 .. PREFIX:N-1, the key, its value and
# its PEXPIRETIME, one key a line, then the DBSIZE: what two servers must
# agree on. One connection, so it is one snapshot of a quiet server.
keys_of() {
  local p=$1 prefix=$2 n=$3
  awk -v p="$prefix" -v n="$n" 'BEGIN {
    for (i = 0; i < n; i++) printf "GET %s:%d\nPEXPIRETIME %s:%d\n", p, i, p, i
    print "DBSIZE"
  }' | redis-cli -p "$p" --no-raw | awk -v p="$prefix" '
    /^\([0-9]+\.[0-9]+s\)$/ { next } # redis-cli'"'"'s note of a slow reply
    { n++ } n % 2 == 1 { v = $0; next } { printf "%s:%d %s %s\n", p, (n / 2) - 1, v, $0 }
    END { if (n % 2 == 1) print "dbsize " v }'
}

# expect_same_keys MASTER_PORT REPLICA_PORT PREFIX N: keys_of both agree.
expect_same_keys() {
  local want got
  want=$(keys_of "$1" "$3" "$4")
  got=$(keys_of "$2" "$3" "$4")
  SENT="GET and PEXPIRETIME of $3:0..$3:$(($4 - 1)), then DBSIZE, to the master ($1) and the replica ($2)"
  [ "$want" = "$got" ] && return 0
  status='' fail_exchange "the master's answers on the replica" \
    "$(diff <(echo "$want") <(echo "$got") | head -12 | tr '\n' ' ')(diff: < master, > replica)"
}
