#!/usr/bin/env bats
# Chapter 09: the server as a replica of a real redis-server 7.0.15 master.
# The sync in both of the master's transfer forms, the stream applied, a
# replica that never deletes a key on its own clock but hides it, what its
# readers see when its clock is off from its master's (a scripted master,
# skewed_master.py), REPLICAOF NO ONE, a broken link continued, and a master
# that sends bad bytes.
# Grades any server: make grade STEP=09, or make test STEP=09 SERVER=path.
# Each test's name starts with its stage (tests/09-replication/stages).
#
# Every test starts its own servers; teardown stops them all. A replica's
# progress is polled for (wait_synced), never slept for.

load ../helpers/server
load ../08-snapshot/snapshot # send_lines, sleep_until_ms
load replication

FAKE_MASTER="$BATS_TEST_DIRNAME/fake_master.py"
SKEWED_MASTER="$BATS_TEST_DIRNAME/skewed_master.py"

teardown() {
  [ -n "${FAKE_PID:-}" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
  stop_all
}

@test "09-4 a replica of a real master, snapshot streamed (\$EOF:): the same keys, values and PEXPIRETIMEs, then the stream" {
  redis_as M
  PORT=$M_PORT
  load_keys before 200 PX 100000
  load_keys plain 50
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$M_PORT
  load_keys after 200 EX 1000
  redis-cli -p "$M_PORT" expire plain:0 500 >/dev/null
  redis-cli -p "$M_PORT" persist before:0 >/dev/null
  redis-cli -p "$M_PORT" del before:1 >/dev/null
  wait_synced "$M_PORT" "$R_PORT" 10000
  for prefix in before plain after; do expect_same_keys "$M_PORT" "$R_PORT" $prefix 200; done
}

@test "09-4 a replica of a real master, snapshot as \$<len> from disk: the same keys" {
  redis_as M --repl-diskless-sync no
  PORT=$M_PORT
  load_keys k 300 PX 100000
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  expect_same_keys "$M_PORT" "$R_PORT" k 300
}

@test "09-4 a replica refuses writes with -READONLY, and WAIT; it answers REPLCONF GETACK with its offset (WAIT on the master)" {
  redis_as M
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$R_PORT
  send_typed set x 1
  expect_reply "(error) READONLY You can't write against a read only replica."
  send_typed wait 1 100
  expect_prefix "(error) ERR WAIT cannot be used with replica instances."
  PORT=$M_PORT
  send_lines "SET w 1" "WAIT 1 5000"
  expect_reply $'OK\n(integer) 1'
  send_as "ROLE on the replica" redis-cli -p "$R_PORT" role
  expect_reply "slave
127.0.0.1
$M_PORT
connected
$(field_of "$R_PORT" replication slave_repl_offset)"
}

@test "09-5 a replica never deletes on its own clock: an expired key is hidden from GET, TTL and EXISTS, counted by DBSIZE, until the master's DEL" {
  redis_as M
  PORT=$M_PORT
  rcli debug set-active-expire 0 >/dev/null # the master deletes only when asked
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$M_PORT
  rcli set gone v px 100 >/dev/null
  rcli set stays v >/dev/null
  wait_synced "$M_PORT" "$R_PORT" 10000
  sleep_until_ms $(($(now_ms) + 300))
  PORT=$R_PORT
  send_typed get gone
  expect_reply "(nil)"
  send_typed pttl gone
  expect_reply "(integer) -2"
  send_typed exists gone
  expect_reply "(integer) 0"
  send_typed dbsize
  expect_reply "(integer) 2"
  # The master's GET finds it expired, deletes it, and sends DEL.
  redis-cli -p "$M_PORT" get gone >/dev/null
  wait_dbsize 1 5000
}

@test "09-5 the keys of the master's snapshot stay on the replica, expired or not, until DELs come" {
  redis_as M
  PORT=$M_PORT
  rcli debug set-active-expire 0 >/dev/null
  load_keys old 50 PX 50
  load_keys live 50 PX 100000
  sleep_until_ms $(($(now_ms) + 200))
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$R_PORT
  send_typed dbsize
  expect_reply "(integer) 100"
  send_typed exists old:0 old:49 live:0
  expect_reply "(integer) 1"
}

@test "09-5 REPLICAOF NO ONE: a master from then on; the keys already overdue go, and its replicas hear DELs" {
  redis_as M
  PORT=$M_PORT
  rcli debug set-active-expire 0 >/dev/null
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$M_PORT
  load_keys due 100 PX 100
  load_keys live 10
  wait_synced "$M_PORT" "$R_PORT" 10000
  sleep_until_ms $(($(now_ms) + 300))
  PORT=$R_PORT
  send_typed dbsize
  expect_reply "(integer) 110"
  send_typed replicaof no one
  expect_reply "OK"
  wait_dbsize 10 5000
  send_as "INFO replication" info_of "$R_PORT" replication
  expect_contains "role:master"
}

@test "09-5 a link killed mid-stream continues with PSYNC <replid> <offset+1>: +CONTINUE, and the same keys" {
  redis_as M
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$M_PORT
  load_keys a 100 PX 100000
  wait_synced "$M_PORT" "$R_PORT" 10000
  rcli client kill type replica >/dev/null
  load_keys b 100 PX 100000
  wait_synced "$M_PORT" "$R_PORT" 10000
  expect_same_keys "$M_PORT" "$R_PORT" a 100
  expect_same_keys "$M_PORT" "$R_PORT" b 100
  send_as "INFO stats on the master, sync_partial_ok" field_of "$M_PORT" stats sync_partial_ok
  expect_reply 1
}

@test "09-4 a replica restarted, with the master written to while it was down, syncs again to the same keys" {
  redis_as M
  PORT=$M_PORT
  load_keys a 100 PX 100000
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  stop_one R
  PORT=$M_PORT
  load_keys b 100 PX 100000
  redis-cli -p "$M_PORT" del a:0 >/dev/null
  start_as R2 --replicaof 127.0.0.1 "$M_PORT" --dir "$R_DIR"
  wait_synced "$M_PORT" "$R2_PORT" 10000
  PORT=$R2_PORT
  send dbsize # a:1..a:99 and b:0..b:99
  expect_reply 199
  expect_same_keys "$M_PORT" "$R2_PORT" a 100
  expect_same_keys "$M_PORT" "$R2_PORT" b 100
}

# The clock-skew test: SKEW_MS between the replica's clock and its
# masters', keys meant to live TTL_MS (skewed_master.py's header has the
# script). Wide margins: every check falls at least half a second from the
# deadline or DEL that decides it; under memcheck, whose replica takes
# seconds to load a snapshot, more than two.
SKEW_MS=2000 TTL_MS=4000
if [ -n "${VALGRIND:-}" ]; then SKEW_MS=5000 TTL_MS=10000; fi

# expect_key_at MS KEY WANT: at T0+MS, GET KEY on the replica answers WANT.
expect_key_at() {
  sleep_until_ms $((T0 + $1))
  SENT="GET $2 on the replica at T0+$1 ms (T0: when the master sent its SETs)"
  send_typed get "$2"
  expect_reply "$3"
}

@test "09-5 clock skew: a replica ahead of its master hides a key early, one behind serves it late, and once promoted keeps it by its own clock" {
  start_script "$SKEWED_MASTER" "$SKEW_MS" "$TTL_MS"
  start_as R --replicaof 127.0.0.1 "$FAKE_PORT"
  SENT="skewed_master.py's log, polled for 10 s for its SETs"
  local i
  for i in $(seq 200); do grep -q "^set " "$BATS_TEST_TMPDIR/fake.log" && break; sleep 0.05; done
  T0=$(sed -n 's/^set //p' "$BATS_TEST_TMPDIR/fake.log" | head -1)
  [ -n "$T0" ] || { status='' fail_exchange "a line 'set T0'" "$(cat "$BATS_TEST_TMPDIR/fake.log")"; return; }
  wait_dbsize 4 $((TTL_MS - SKEW_MS - 500)) # from:fake, ahead, behind, lazy
  # Half-way to the DELs: ahead's deadline has passed by the replica's clock.
  expect_key_at $((TTL_MS - SKEW_MS / 2)) ahead "(nil)"
  send_typed dbsize
  expect_reply "(integer) 4"
  send_typed get behind
  expect_reply '"v"'
  # behind's master thinks SKEW_MS/2 is left; the replica's clock says
  # three times that, give or take SKEW_MS/4.
  send_typed pttl behind
  expect_regex "^\(integer\) [0-9]+$"
  expect_num "PTTL behind" "${output#(integer) }" -ge $((SKEW_MS * 5 / 4))
  expect_num "PTTL behind" "${output#(integer) }" -lt $((SKEW_MS * 7 / 4))
  # The DELs of ahead and behind, sent at T0+TTL_MS: lazy's never comes.
  wait_dbsize 2 $((TTL_MS + SKEW_MS))
  # A second after its master's deadline, lazy is still served...
  expect_key_at $((TTL_MS + SKEW_MS / 2)) lazy '"v"'
  # ...and once promoted, the replica deletes it by its own clock, at
  # T0+TTL_MS+SKEW_MS: no DEL from anywhere.
  send_typed replicaof no one
  expect_reply "OK"
  send_typed get lazy
  expect_reply '"v"'
  wait_dbsize 1 $((SKEW_MS + 2000))
  send_typed get lazy
  expect_reply "(nil)"
}

# start_script SCRIPT ARGS...: a scripted master (fake_master.py,
# skewed_master.py) on a free port, as FAKE_PORT, logging to fake.log.
start_script() {
  local script=$1 i
  shift
  FAKE_PORT=$(pick_port)
  "$PYTHON" "$script" "$FAKE_PORT" "$@" >"$BATS_TEST_TMPDIR/fake.log" 2>&1 &
  FAKE_PID=$!
  for i in $(seq 50); do grep -q listening "$BATS_TEST_TMPDIR/fake.log" 2>/dev/null && return 0; sleep 0.05; done
  echo "$(basename "$script") did not start: $(cat "$BATS_TEST_TMPDIR/fake.log")" >&2
  return 1
}

# start_fake MODE: fake_master.py, MODE's bad bytes (or good ones).
start_fake() { start_script "$FAKE_MASTER" "$1"; }

# bad_master MODE: a replica of a master that sends MODE's bad bytes fails
# the sync, says so in its log, tries again, and keeps the keys it had.
bad_master() {
  start_fake "$1"
  start_as R
  rcli set mine 1 >/dev/null
  send_typed replicaof 127.0.0.1 "$FAKE_PORT"
  expect_reply "OK"
  # Two connections: the first failed, and the replica came back.
  SENT="fake_master.py's log, polled for 10 s for a second connection"
  local i
  for i in $(seq 200); do
    grep -q "^connection 2:" "$BATS_TEST_TMPDIR/fake.log" && break
    sleep 0.05
  done
  grep -q "^connection 2:" "$BATS_TEST_TMPDIR/fake.log" ||
    status='' fail_exchange "a second connection from the replica" "$(cat "$BATS_TEST_TMPDIR/fake.log")"
  send_typed get from:fake
  expect_reply "(nil)"
}

@test "09-6 a malformed +FULLRESYNC fails the sync with a log line and a retry, and loads nothing" {
  bad_master bad-fullresync
  own_promise "the keys held before stay; redis-server $(redis-server --version | cut -d' ' -f3)'s log has its own words"
  send_typed get mine
  expect_reply '"1"'
  send_as "the replica's log" grep -c "wrong +FULLRESYNC" "$R_LOG"
  expect_regex "^[1-9]"
}

@test "09-6 a snapshot with a bad checksum fails the sync with a log line and a retry; the keyspace is never half-loaded" {
  # redis-server 7.0.15 exits here: rdbReportError() (rdb.c) runs its
  # redis-check-rdb on the transfer and stops the server, "Aborting now".
  own_promise "a retry after a bad checksum: redis-server 7.0.15 exits, and its keyspace is emptied first"
  bad_master bad-checksum
  send_typed get mine
  expect_reply '"1"'
  send_as "the replica's log" grep -c "Failed trying to load the MASTER synchronization DB" "$R_LOG"
  expect_regex "^[1-9]"
}

@test "09-6 a truncated transfer fails the sync with a log line and a retry" {
  bad_master truncated
  own_promise "the keys held before stay"
  send_typed get mine
  expect_reply '"1"'
  send_as "the replica's log" grep -c "connection lost" "$R_LOG"
  expect_regex "^[1-9]"
}

@test "09-6 a command of the master's that the replica refuses is skipped, and counted in its offset: the link stays up and the next write applies" {
  start_fake errors
  start_as R --replicaof 127.0.0.1 "$FAKE_PORT"
  local end
  SENT="fake_master.py's log, polled for 10 s for the stream's end and an ACK of it"
  for i in $(seq 200); do
    end=$(sed -n 's/^stream ends at offset //p' "$BATS_TEST_TMPDIR/fake.log")
    [ -n "$end" ] && grep -qx "ack $end" "$BATS_TEST_TMPDIR/fake.log" && break
    sleep 0.05
  done
  grep -qx "ack ${end:-?}" "$BATS_TEST_TMPDIR/fake.log" ||
    status='' fail_exchange "a REPLCONF ACK of offset ${end:-?}, where the stream ends" "$(tr '\n' ' ' <"$BATS_TEST_TMPDIR/fake.log")"
  # Its refusals stay with it: to its master a replica sends only ACKs.
  send_as "fake_master.py's log: what the replica sent after the sync, ACKs aside" \
    sh -c "sed -n 's/^after the sync: //p' '$BATS_TEST_TMPDIR/fake.log' | grep -v '^REPLCONF ACK '"
  expect_reply ""
  send_as "the replica's log" grep -c "== CRITICAL == This replica is sending an error to its master" "$R_LOG"
  expect_reply "2"
  send_typed get after:errors
  expect_reply '"1"'
  send_typed exists alone
  expect_reply "(integer) 0"
  wait_field "$R_PORT" replication master_link_status up 1000
}

@test "09-6 a good snapshot from the same fake master loads: the test's master is right, and REPLICAOF connects at once" {
  start_fake good
  start_as R
  send_typed replicaof 127.0.0.1 "$FAKE_PORT"
  expect_reply "OK"
  # It connects before it answers, as 7.0.15's replicationSetMaster() does,
  # not at its cron's next tick, a second later.
  send_as "the replica's log, read once REPLICAOF has answered" grep -c "Connecting to MASTER" "$R_LOG"
  expect_regex "^[1-9]"
  wait_field "$R_PORT" replication master_link_status up 10000
  send_typed get from:fake
  expect_reply '"master"'
}
