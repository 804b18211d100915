#!/usr/bin/env bats
# Chapter 09: the server as a master. The handshake a replica sees, real
# redis-server 7.0.15 replicas following it through writes with short TTLs,
# a link broken and continued from the backlog, WAIT, INFO and ROLE.
# Grades any server: make grade STEP=09, or make test STEP=09 SERVER=path.
# Each test's name starts with its stage (tests/09-replication/stages).
#
# Every test starts its own servers; teardown stops them all. Nothing here
# sleeps a fixed time before looking: a replica's progress is polled for
# (wait_synced), with a deadline.

load ../helpers/server
load ../08-snapshot/snapshot # send_lines, sleep_until_ms
load replication

CAPTURE="$BATS_TEST_DIRNAME/repl_capture.py"

teardown() {
  [ -z "${SLOW_PID:-}" ] || kill "$SLOW_PID" 2>/dev/null || true
  stop_all
}

@test "09-1 the handshake: PING answers +PONG, each REPLCONF +OK, PSYNC ? -1 +FULLRESYNC <40 hex characters> <offset>, then a snapshot" {
  start_as M $(master_flags)
  rcli set greeting hello >/dev/null
  send_as "PING, REPLCONF listening-port 7777, REPLCONF capa eof capa psync2, PSYNC ? -1, each reply read before the next (repl_capture.py --verbose)" \
    "$PYTHON" "$CAPTURE" --master "127.0.0.1:$PORT" --wait-ms 100 --verbose
  [ "$status" -eq 0 ] || fail_exchange "exit status 0: the four replies, a snapshot and a stream"
  expect_regex "^> \+PONG
> \+OK
> \+OK
> \+FULLRESYNC [0-9a-f]{40} [0-9]+$"
}

@test "09-1 the stream after the snapshot starts with SELECT 0 and carries each write" {
  start_as M $(master_flags)
  printf 'SET a 1\nDEL a\n' >"$BATS_TEST_TMPDIR/commands"
  send_as "SET a 1, DEL a from a client, while repl_capture.py plays a replica" \
    "$PYTHON" "$CAPTURE" --master "127.0.0.1:$PORT" --commands "$BATS_TEST_TMPDIR/commands" --wait-ms 300
  expect_reply $'SELECT 0\nSET a 1\nDEL a'
}

@test "09-1 REPLCONF ACK is never answered, an unknown REPLCONF option is refused, PSYNC with replies pending is refused" {
  start_as M $(master_flags)
  # ACK gets no reply, so the first 7 bytes back are PING's +PONG.
  send_raw '*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$1\r\n5\r\n*1\r\n$4\r\nPING\r\n' --expect 7
  expect_bytes '+PONG\r'
  send replconf nosuch 1
  expect_reply "ERR Unrecognized REPLCONF option: nosuch"
  send replconf listening-port
  expect_reply "ERR syntax error"
  send_raw '*1\r\n$4\r\nPING\r\n*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n' --expect 60
  expect_contains "-ERR SYNC and PSYNC are invalid with pending output"
}

@test "09-2 one and two real replicas follow through writes with short TTLs: the same keys, values and PEXPIRETIMEs" {
  start_as M $(master_flags)
  load_keys before 200 EX 1000
  redis_as R1 --replicaof 127.0.0.1 "$M_PORT"
  redis_as R2 --replicaof 127.0.0.1 "$M_PORT"
  PORT=$M_PORT
  load_keys short 300 PX 200
  load_keys long 300 PX 100000
  load_keys plain 100
  # What expires on the master (the wheel, or lazily) goes as a DEL.
  wait_dbsize 600 5000
  wait_synced "$M_PORT" "$R1_PORT" 10000
  wait_synced "$M_PORT" "$R2_PORT" 10000
  for prefix in before short long plain; do
    expect_same_keys "$M_PORT" "$R1_PORT" $prefix 300
    expect_same_keys "$M_PORT" "$R2_PORT" $prefix 300
  done
}

@test "09-2 a link killed mid-stream continues from the backlog: +CONTINUE, and the same keys" {
  start_as M $(master_flags)
  redis_as R1 --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R1_PORT" 10000
  PORT=$M_PORT
  load_keys a 100 PX 100000
  redis-cli -p "$M_PORT" client kill type replica >/dev/null
  load_keys b 100 PX 100000
  wait_synced "$M_PORT" "$R1_PORT" 10000
  expect_same_keys "$M_PORT" "$R1_PORT" a 100
  expect_same_keys "$M_PORT" "$R1_PORT" b 100
  send_as "INFO stats on the master, sync_partial_ok" field_of "$M_PORT" stats sync_partial_ok
  expect_reply 1
  send_as "the replica's log" grep -c "Successful partial resynchronization" "$R1_LOG"
  expect_reply 1
}

@test "09-2 the master restarted from its snapshot (chapter 08): its replica syncs again to the same keys" {
  start_as M $(master_flags)
  redis_as R1 --replicaof 127.0.0.1 "$M_PORT"
  PORT=$M_PORT
  load_keys a 100 PX 100000
  load_keys b 100
  wait_synced "$M_PORT" "$R1_PORT" 10000
  rcli save >/dev/null
  stop_one M
  START_PORT=$M_PORT start_as M2 $(master_flags) --dir "$M_DIR"
  PORT=$M2_PORT
  load_keys c 100 PX 100000
  wait_synced "$M2_PORT" "$R1_PORT" 15000
  send dbsize # the 200 keys of its snapshot and the 100 written since
  expect_reply 300
  for prefix in a b c; do expect_same_keys "$M2_PORT" "$R1_PORT" $prefix 100; done
}

@test "09-2 WAIT counts the replicas that acknowledged this client's writes, and times out with the count" {
  start_as M $(master_flags)
  redis_as R1 --replicaof 127.0.0.1 "$M_PORT"
  redis_as R2 --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R1_PORT" 10000
  wait_synced "$M_PORT" "$R2_PORT" 10000
  PORT=$M_PORT
  send_lines "SET w 1" "WAIT 2 5000" "GET w"
  expect_reply $'OK\n(integer) 2\n"1"'
  send_lines "WAIT 3 200"
  expect_reply "(integer) 2"
}

@test "09-2 INFO replication and ROLE name the replicas, their state and offsets" {
  start_as M $(master_flags)
  redis_as R1 --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R1_PORT" 10000
  PORT=$M_PORT
  rcli set k v >/dev/null
  wait_synced "$M_PORT" "$R1_PORT" 10000
  send_as "INFO replication" info_of "$M_PORT" replication
  expect_contains "role:master"
  expect_contains "connected_slaves:1"
  expect_regex "slave0:ip=127\.0\.0\.1,port=$R1_PORT,state=online,offset=[0-9]+,lag=[0-9]+"
  expect_regex "master_replid:[0-9a-f]{40}"
  expect_contains "repl_backlog_active:1"
  # The replica's offset in ROLE is its last ACK, which comes every second.
  # The master's is master_repl_offset, read before and after: a PING of
  # the master's own may fall between, and then it looks again.
  local i off
  for i in 1 2 3; do
    off=$(field_of "$M_PORT" replication master_repl_offset)
    send ROLE
    [ "$(field_of "$M_PORT" replication master_repl_offset)" = "$off" ] && break
  done
  expect_regex "^master
$off
127\.0\.0\.1
$R1_PORT
[0-9]+$"
}

# slow_replica PORT: a replica that never reads (slow_replica.py), in the
# background; its pid in SLOW_PID, killed by the test's teardown.
slow_replica() {
  "$PYTHON" "$BATS_TEST_DIRNAME/slow_replica.py" "$1" &
  SLOW_PID=$!
  wait_field "$1" replication connected_slaves 1 5000
}

# write_mb PORT MB: MB megabytes of SETs (100 kB values), by redis-benchmark.
write_mb() {
  send_as "redis-benchmark -p $1 -t set -n $(($2 * 10)) -d 100000 -r 1000 -q" \
    redis-benchmark -p "$1" -t set -n $(($2 * 10)) -d 100000 -r 1000 -q
  [ "$status" -eq 0 ] || fail_exchange "redis-benchmark completes: the master answers while a replica lags"
}

@test "09-2 a replica that never reads is dropped at its output limit's hard bound, and the other clients are answered meanwhile" {
  start_as M $(master_flags) --client-output-buffer-limit "replica 4mb 0 0"
  slow_replica "$M_PORT"
  write_mb "$M_PORT" 30
  wait_field "$M_PORT" replication connected_slaves 0 5000
  PORT=$M_PORT
  send ping
  expect_reply PONG
  send_as "grep 'for overcoming of output buffer limits' in the master's log" \
    grep -c 'for overcoming of output buffer limits' "$M_LOG"
  expect_reply 1
}

@test "09-2 over the soft bound, a replica is dropped only once it has stayed over for longer than its seconds" {
  start_as M $(master_flags) --client-output-buffer-limit "replica 0 1mb 60"
  slow_replica "$M_PORT"
  write_mb "$M_PORT" 20
  send_as "INFO replication on the master after 20 MB for a replica that reads nothing, soft limit 1 MB for 60 s" \
    field_of "$M_PORT" replication connected_slaves
  expect_reply 1
  kill "$SLOW_PID" 2>/dev/null || true

  start_as S $(master_flags) --client-output-buffer-limit "replica 0 1mb 1"
  slow_replica "$S_PORT"
  write_mb "$S_PORT" 20
  # Redis counts whole seconds, and drops on a write once more than 1 has
  # passed: write again after 2.5 s.
  sleep_until_ms $(($(now_ms) + 2500))
  redis-cli -p "$S_PORT" set after-the-wait 1 >/dev/null
  wait_field "$S_PORT" replication connected_slaves 0 5000
}
