#!/usr/bin/env bats
# Grader for chapter 09, exercise 2: --replica-serve-stale-data yes|no.
#
# Redis's replica-serve-stale-data, yes by default. A replica whose link to
# its master is not up (the master is gone, or the handshake or the
# transfer has not finished) cannot hear the writes and the DELs it misses.
# With yes it serves what it holds, hiding the keys its own clock says have
# expired; with no it answers every command that is not flagged CMD_STALE
# in Redis 7.0.15 (commands.c) with
#   -MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.
# PING, GET, DBSIZE, TTL, EXISTS, SAVE and WAIT are refused; ECHO, INFO,
# ROLE, CONFIG, CLIENT, COMMAND, SELECT, LASTSAVE and REPLICAOF are
# served. Redis checks it after an unknown command, a wrong arity and
# READONLY (processCommand() in server.c): a write still gets READONLY.
# CONFIG GET replica-serve-stale-data answers yes or no; the flag takes
# either in any case, and anything else stops the start-up.
#
# A server under test that refuses PING cannot be started by waiting for
# PONG, so each test starts it as a master and makes it a replica with
# REPLICAOF; its master is a real redis-server 7.0.15, or a port nobody
# listens on.
#
# Run it: make exercise STEP=09 EX=2 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server
load ../../08-snapshot/snapshot # sleep_until_ms
load ../../09-replication/replication

MASTERDOWN="MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
READONLY="READONLY You can't write against a read only replica."

teardown() { stop_all; }


# stale_replica: the server under test, with --replica-serve-stale-data no,
# made the replica of a port nobody listens on; PORT is its port.
stale_replica() {
  local nobody
  nobody=$(pick_port) || return 1
  start_as R --replica-serve-stale-data no
  send replicaof 127.0.0.1 "$nobody"
  expect_reply "OK"
}

@test "a replica whose link is down, with --replica-serve-stale-data no, answers MASTERDOWN to PING, reads, DBSIZE, SAVE and WAIT, and READONLY to writes" {
  stale_replica
  send config get replica-serve-stale-data
  expect_reply $'replica-serve-stale-data\nno'
  expect_each "$MASTERDOWN" "ping" "get k" "exists k" "ttl k" "pttl k" "pexpiretime k" "dbsize" \
    "save" "bgsave" "wait 0 0"
  expect_each "$READONLY" "set k v" "del k" "expire k 10" "persist k" "flushall"
}

@test "it still answers what reads no key (ECHO, INFO, ROLE, CONFIG, CLIENT, COMMAND, SELECT, LASTSAVE); an unknown command and a wrong arity are refused first" {
  stale_replica
  send echo hello
  expect_reply "hello"
  send_as "redis-cli INFO replication" info_of "$PORT" replication
  expect_contains "master_link_status:down"
  send role
  expect_prefix $'slave\n127.0.0.1\n'
  send select 0
  expect_reply "OK"
  send client setname stale-test
  expect_reply "OK"
  send client id
  expect_regex '^[0-9]+$'
  send command count
  expect_regex '^[0-9]+$'
  send lastsave
  expect_regex '^[0-9]+$'
  send nosuch
  expect_prefix "ERR unknown command 'nosuch'"
  send get
  expect_reply "ERR wrong number of arguments for 'get' command"
}

@test "with a redis-server 7.0.15 master: served while the link is up, MASTERDOWN once the master is gone, served again when a master is back, and after REPLICAOF NO ONE" {
  redis_as M
  start_as R --replica-serve-stale-data no
  send replicaof 127.0.0.1 "$M_PORT"
  expect_reply "OK"
  redis-cli -p "$M_PORT" set k v >/dev/null
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$R_PORT
  send get k
  expect_reply "v"
  stop_one M
  wait_field "$R_PORT" replication master_link_status down 10000
  send get k
  expect_reply "$MASTERDOWN"
  START_PORT=$M_PORT redis_as M2
  redis-cli -p "$M2_PORT" set k2 w >/dev/null
  wait_synced "$M2_PORT" "$R_PORT" 15000
  PORT=$R_PORT
  send get k2
  expect_reply "w"
  stop_one M2
  wait_field "$R_PORT" replication master_link_status down 10000
  send ping
  expect_reply "$MASTERDOWN"
  send replicaof no one
  expect_reply "OK"
  send get k2
  expect_reply "w"
  send ping
  expect_reply "PONG"
}

@test "by default a replica whose link is down serves what it holds, and hides a key its own clock says has expired, which DBSIZE still counts" {
  redis_as M
  # The master must not delete k2 before the link goes: no active expiry,
  # and nobody reads it there.
  redis-cli -p "$M_PORT" debug set-active-expire 0 >/dev/null
  redis-cli -p "$M_PORT" set k1 v >/dev/null
  set_at=$(now_ms)
  redis-cli -p "$M_PORT" set k2 v px 300 >/dev/null
  start_as R --replicaof 127.0.0.1 "$M_PORT"
  send config get replica-serve-stale-data
  expect_reply $'replica-serve-stale-data\nyes'
  wait_synced "$M_PORT" "$R_PORT" 10000
  stop_one M
  wait_field "$R_PORT" replication master_link_status down 10000
  PORT=$R_PORT
  send get k1
  expect_reply "v"
  sleep_until_ms $((set_at + 400))
  send ttl k2
  expect_reply "-2"
  send get k2
  expect_reply ""
  send dbsize
  expect_reply "2"
}

@test "--replica-serve-stale-data takes yes or no, in any case; anything else stops the start-up" {
  start_as A --replica-serve-stale-data NO
  send config get replica-serve-stale-data
  expect_reply $'replica-serve-stale-data\nno'
  stop_all
  start_as B --replica-serve-stale-data Yes
  send config get replica-serve-stale-data
  expect_reply $'replica-serve-stale-data\nyes'
  stop_all
  refused_start --replica-serve-stale-data maybe
  refused_start --replica-serve-stale-data 0
}
