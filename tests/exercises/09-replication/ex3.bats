#!/usr/bin/env bats
# Grader for chapter 09, exercise 3: --min-replicas-to-write N and
# --min-replicas-max-lag S.
#
# Redis's min-replicas-to-write (0 by default: off) and min-replicas-max-lag
# (10 s). A replica is good while it is online and its last REPLCONF ACK is
# at most S seconds old; a master with fewer than N good replicas refuses
# every write a client sends with
#   -NOREPLICAS Not enough good replicas to write.
# and serves the rest (checkGoodReplicasStatus() and
# refreshGoodSlavesCount() in replication.c, processCommand() in server.c,
# 7.0.15). Either setting at 0 turns the check off. INFO replication has
# min_slaves_good_slaves:<count> after connected_slaves while both are set,
# and no such line otherwise. A key whose time passes is still deleted, and
# its DEL sent: no client asked for that write. A replica never refuses its
# master's writes for this. CONFIG GET answers both settings; each flag
# takes a number from 0 to 2147483647, and anything else stops the start-up.
#
# The replicas are real redis-server 7.0.15 processes. One is stopped with
# SIGSTOP so that its ACKs stop coming, and continued with SIGCONT (also
# in teardown, before every server is stopped).
#
# Run it: make exercise STEP=09 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server
load ../../09-replication/replication

NOREPLICAS="NOREPLICAS Not enough good replicas to write."

teardown() {
  [ -z "${STOPPED_PID:-}" ] || kill -CONT "$STOPPED_PID" 2>/dev/null || true
  stop_all
}


# expect_good PORT N: INFO replication says min_slaves_good_slaves:N, just
# after connected_slaves, within 10 s.
expect_good() {
  wait_field "$1" replication min_slaves_good_slaves "$2" 10000 || return
  send_as "INFO replication on $1" info_of "$1" replication
  expect_regex $'\nconnected_slaves:[0-9]+\nmin_slaves_good_slaves:'"$2"$'\n'
}

@test "with --min-replicas-to-write 1 and no replica, every write is refused with NOREPLICAS, reads are served, INFO counts 0 good replicas" {
  start_as M --min-replicas-to-write 1
  send config get min-replicas-to-write
  expect_reply $'min-replicas-to-write\n1'
  send config get min-replicas-max-lag
  expect_reply $'min-replicas-max-lag\n10'
  expect_each "$NOREPLICAS" "set k v" "set k v px 100" "del k" "expire k 10" "pexpireat k 1" \
    "persist k" "flushall"
  expect_each "" "get k"
  expect_each "0" "dbsize" "exists k"
  expect_each "PONG" "ping"
  expect_good "$M_PORT" 0
}

@test "the check is off with either setting at 0: writes are taken, and INFO has no min_slaves_good_slaves" {
  start_as A
  send config get min-replicas-to-write
  expect_reply $'min-replicas-to-write\n0'
  send set k v
  expect_reply "OK"
  send_as "INFO replication" info_of "$PORT" replication
  expect_no_match "*min_slaves_good_slaves*"
  stop_all
  start_as B --min-replicas-to-write 1 --min-replicas-max-lag 0
  send set k v
  expect_reply "OK"
  send_as "INFO replication" info_of "$PORT" replication
  expect_no_match "*min_slaves_good_slaves*"
}

@test "with --min-replicas-to-write 2, writes are refused with one real replica, taken with two, and refused again when one goes" {
  start_as M $(master_flags) --min-replicas-to-write 2 --min-replicas-max-lag 10
  redis_as R1 --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R1_PORT" 10000
  expect_good "$M_PORT" 1
  PORT=$M_PORT
  send set k v
  expect_reply "$NOREPLICAS"
  redis_as R2 --replicaof 127.0.0.1 "$M_PORT"
  wait_synced "$M_PORT" "$R2_PORT" 10000
  expect_good "$M_PORT" 2
  PORT=$M_PORT
  send set k v
  expect_reply "OK"
  wait_synced "$M_PORT" "$R1_PORT" 10000
  send_as "redis-cli -p $R1_PORT GET k (the replica)" redis-cli -p "$R1_PORT" get k
  expect_reply "v"
  stop_one R2
  expect_good "$M_PORT" 1
  PORT=$M_PORT
  send set k w
  expect_reply "$NOREPLICAS"
  send get k
  expect_reply "v"
}

@test "a replica stopped for longer than --min-replicas-max-lag is no longer good: writes are refused, yet expired keys are deleted and their DELs sent" {
  start_as M $(master_flags) --min-replicas-to-write 1 --min-replicas-max-lag 2
  redis_as R --replicaof 127.0.0.1 "$M_PORT"
  PORT=$M_PORT
  # Keys that expire while the replica is away: with active expiry off,
  # 'lazy' waits for a GET and 'wheel' for it to be switched on again.
  rcli debug set-active-expire 0 >/dev/null
  expect_good "$M_PORT" 1
  PORT=$M_PORT
  send set lazy x px 100
  expect_reply "OK"
  send set wheel x px 100
  expect_reply "OK"
  send set kept x
  expect_reply "OK"
  wait_synced "$M_PORT" "$R_PORT" 10000
  kill -STOP "$R_PID"
  STOPPED_PID=$R_PID
  expect_good "$M_PORT" 0
  PORT=$M_PORT
  send set other x
  expect_reply "$NOREPLICAS"
  # A read that finds an expired key deletes it, writes refused or not.
  send get lazy
  expect_reply ""
  rcli debug set-active-expire 1 >/dev/null
  wait_dbsize 1 10000
  kill -CONT "$R_PID"
  STOPPED_PID=
  expect_good "$M_PORT" 1
  PORT=$M_PORT
  send set other x
  expect_reply "OK"
  wait_synced "$M_PORT" "$R_PORT" 10000
  # Only the master's DELs delete on a replica: the two keys are gone there.
  send_as "redis-cli -p $R_PORT DBSIZE (the replica)" redis-cli -p "$R_PORT" dbsize
  expect_reply "2"
}

@test "a replica with --min-replicas-to-write 1 still applies its master's writes; its own clients get READONLY" {
  redis_as M
  start_as R --min-replicas-to-write 1 --replicaof 127.0.0.1 "$M_PORT"
  redis-cli -p "$M_PORT" set k v >/dev/null
  wait_synced "$M_PORT" "$R_PORT" 10000
  PORT=$R_PORT
  send get k
  expect_reply "v"
  send set k w
  expect_reply "READONLY You can't write against a read only replica."
}

@test "--min-replicas-to-write and --min-replicas-max-lag take a number from 0 to 2147483647; anything else stops the start-up" {
  start_as A --min-replicas-to-write 3 --min-replicas-max-lag 2147483647
  send config get min-replicas-to-write
  expect_reply $'min-replicas-to-write\n3'
  send config get min-replicas-max-lag
  expect_reply $'min-replicas-max-lag\n2147483647'
  stop_all
  refused_start --min-replicas-to-write -1
  refused_start --min-replicas-to-write two
  refused_start --min-replicas-max-lag 2147483648
  refused_start --min-replicas-max-lag x
}
