#!/usr/bin/env bats
# Grader for chapter 09, exercise 1: --lazyfree-lazy-expire yes|no, and UNLINK.
#
# Redis's lazyfree-lazy-expire, no by default. With yes, a master frees the
# value of a key it deletes because its time has passed in the background,
# and tells its replicas with UNLINK instead of DEL, so that they free it in
# the background too: propagateDeletion() (db.c, 7.0.15) for a lazy or an
# active expiry, expireGenericCommand() (expire.c) for an EXPIRE whose time
# has already passed. A DEL or UNLINK a client sends goes as it came. UNLINK
# key [key ...] counts as DEL does, and a replica's clients may not send it.
# CONFIG GET lazyfree-lazy-expire answers yes or no; the flag takes either in
# any case, and anything else stops the start-up.
#
# The master's stream is read by tests/09-replication/repl_capture.py, which
# plays a replica. The last test runs the server under test as a replica of
# a real redis-server 7.0.15 started with --lazyfree-lazy-expire yes: the
# keys that expire there must go on the replica too.
#
# Run it: make exercise STEP=09 EX=1 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server
load ../../09-replication/replication

CAPTURE="$BATS_TEST_DIRNAME/../../09-replication/repl_capture.py"

teardown() { stop_all; }

# capture PORT LINE...: the stream the master at PORT sends while a client
# sends each LINE (or sleeps, for "sleep MS"), read by repl_capture.py.
capture() {
  local port=$1
  shift
  printf '%s\n' "$@" >"$BATS_TEST_TMPDIR/commands"
  send_as "$(printf '%s | ' "$@")from a client, while repl_capture.py plays a replica of the master" \
    "$PYTHON" "$CAPTURE" --master "127.0.0.1:$port" --commands "$BATS_TEST_TMPDIR/commands" --wait-ms 600
}

# The commands of the stream tests: a client's DEL and UNLINK, an EXPIRE in
# the past, a lazy expiry (the wheel off), and one by the wheel.
EXPIRY_COMMANDS=(
  "SET a 1" "UNLINK a" "SET b 1" "DEL b" "SET c 1" "EXPIRE c -1"
  "DEBUG SET-ACTIVE-EXPIRE 0" "SET lazy x PX 50" "sleep 150" "GET lazy"
  "DEBUG SET-ACTIVE-EXPIRE 1" "SET wheel x PX 50" "sleep 600"
)


@test "UNLINK counts the keys that existed and removes them, as DEL does; CONFIG GET lazyfree-lazy-expire answers no" {
  start_as M
  rcli set u1 1 >/dev/null
  rcli set u2 2 >/dev/null
  rcli set gone x px 1 >/dev/null
  sleep 0.05
  send_typed unlink u1 u2 u1 gone nothere
  expect_reply "(integer) 2"
  send exists u1 u2
  expect_reply "0"
  send_typed unlink u1
  expect_reply "(integer) 0"
  send unlink
  expect_reply "ERR wrong number of arguments for 'unlink' command"
  send config get lazyfree-lazy-expire
  expect_reply $'lazyfree-lazy-expire\nno'
}

@test "with --lazyfree-lazy-expire yes, every expiry goes to the replicas as UNLINK; a client's DEL and UNLINK go as they came" {
  start_as M $(master_flags) --lazyfree-lazy-expire yes
  send config get lazyfree-lazy-expire
  expect_reply $'lazyfree-lazy-expire\nyes'
  capture "$M_PORT" "${EXPIRY_COMMANDS[@]}"
  expect_reply "SELECT 0
SET a 1
UNLINK a
SET b 1
DEL b
SET c 1
UNLINK c
SET lazy x PXAT <ms>
UNLINK lazy
SET wheel x PXAT <ms>
UNLINK wheel"
}

@test "with --lazyfree-lazy-expire no, as by default, the same expiries go as DEL" {
  start_as M $(master_flags) --lazyfree-lazy-expire no
  capture "$M_PORT" "${EXPIRY_COMMANDS[@]}"
  expect_reply "SELECT 0
SET a 1
UNLINK a
SET b 1
DEL b
SET c 1
DEL c
SET lazy x PXAT <ms>
DEL lazy
SET wheel x PXAT <ms>
DEL wheel"
}

@test "a replica of a redis-server 7.0.15 with --lazyfree-lazy-expire yes deletes what expires there, and refuses a client's UNLINK" {
  redis_as M --lazyfree-lazy-expire yes
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$M_PORT
  load_keys short 50 PX 200
  load_keys long 50
  wait_dbsize 50 10000
  # The replica deletes only on the master's word: 50 UNLINKs.
  PORT=$R_PORT
  wait_dbsize 50 10000
  wait_synced "$M_PORT" "$R_PORT" 10000
  send get long:7
  expect_reply "v"
  send unlink long:7
  expect_reply "READONLY You can't write against a read only replica."
}

@test "--lazyfree-lazy-expire takes yes or no, in any case; anything else stops the start-up" {
  start_as A --lazyfree-lazy-expire YES
  send config get lazyfree-lazy-expire
  expect_reply $'lazyfree-lazy-expire\nyes'
  stop_all
  start_as B --lazyfree-lazy-expire No
  send config get lazyfree-lazy-expire
  expect_reply $'lazyfree-lazy-expire\nno'
  stop_all
  refused_start --lazyfree-lazy-expire maybe
  refused_start --lazyfree-lazy-expire 1
}
