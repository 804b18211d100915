#!/usr/bin/env bats
# Grader for chapter 06, exercise 1: CONFIG GET/SET expire-budget-keys.
#
# The deletion budget becomes a setting. expire-budget-keys is this
# project's own parameter (Redis has none), so there is no reference run;
# its replies follow Redis's for its own parameters. CONFIG GET answers
# 1000; CONFIG SET takes 1 to 1000000 and answers OK; "abc" is "argument
# couldn't be parsed into an integer", 0 or 1000001 "argument must be
# between 1 and 1000000 inclusive", and a refused value changes nothing. The
# new budget holds from the next turn of the loop: at 10, deleting 10,000
# expired keys takes at least 500 turns that use the whole budget
# (expired_time_cap_reached_count); at 1000, a handful (100 at most are
# allowed). CONFIG GET still answers the start-up parameters.
#
# Run it: make exercise STEP=06 EX=1 [SERVER=path]

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

set_error() { echo "ERR CONFIG SET failed (possibly related to argument '$1') - $2"; }
# expect_config NAME VALUE: CONFIG GET NAME answers VALUE (on its second line).
expect_config() {
  send config get "$1"
  [ "$(sed -n 2p <<<"$output")" = "$2" ] || fail_exchange "$(visible "$1") and its value $(visible "$2")"
}
stat() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }

@test "CONFIG GET expire-budget-keys answers 1000, an array in RESP2 and a map in RESP3" {
  send_multibulk 39 CONFIG GET expire-budget-keys
  expect_bytes '*2\r\n$18\r\nexpire-budget-keys\r\n$4\r\n1000\r\n'
  send_raw 'HELLO 3\r\nCONFIG GET expire-budget-keys\r\nQUIT\r\n' --close-expected
  expect_suffix "$(printf '%%1\r\n$18\r\nexpire-budget-keys\r\n$4\r\n1000\r\n+OK\r\n')"
}

@test "CONFIG SET expire-budget-keys takes 1 to 1000000 and answers OK" {
  for n in 10 1 1000000 1000; do
    send_multibulk 5 CONFIG SET expire-budget-keys "$n"
    expect_bytes '+OK\r\n'
    expect_config expire-budget-keys "$n"
  done
}

@test "a budget out of range, or not an integer, is refused and changes nothing" {
  rcli config set expire-budget-keys 500
  for bad in 0 -1 1000001 99999999999; do
    send config set expire-budget-keys "$bad"
    expect_reply "$(set_error expire-budget-keys "argument must be between 1 and 1000000 inclusive")"
  done
  for bad in abc 1.5 "" 12x; do
    send config set expire-budget-keys "$bad"
    expect_reply "$(set_error expire-budget-keys "argument couldn't be parsed into an integer")"
  done
  expect_config expire-budget-keys "500"
  rcli config set expire-budget-keys 1000
}

@test "at a budget of 10, 10,000 expired keys take at least 500 full turns of the loop" {
  rcli flushall
  send config set expire-budget-keys 10
  expect_reply "OK"
  before=$(stat expired_time_cap_reached_count)
  load_keys "$(key)" 10000 PX 100
  wait_dbsize 0 10000
  after=$(stat expired_time_cap_reached_count)
  rcli config set expire-budget-keys 1000
  echo "expired_time_cap_reached_count grew by $((after - before))"
  SENT="at expire-budget-keys 10, 10000 SET k:N v PX 100, then DBSIZE until 0; INFO stats before and after"
  expect_num "growth of expired_time_cap_reached_count ($before to $after)" $((after - before)) -ge 500
}

@test "back at 1000, the same 10,000 keys take few full turns" {
  rcli flushall
  expect_config expire-budget-keys "1000"
  before=$(stat expired_time_cap_reached_count)
  load_keys "$(key)" 10000 PX 100
  wait_dbsize 0 10000
  after=$(stat expired_time_cap_reached_count)
  echo "expired_time_cap_reached_count grew by $((after - before))"
  SENT="at expire-budget-keys 1000, 10000 SET k:N v PX 100, then DBSIZE until 0; INFO stats before and after"
  expect_num "growth of expired_time_cap_reached_count ($before to $after)" $((after - before)) -le 100
}

@test "one CONFIG GET names several parameters, and CONFIG GET still answers the start-up ones" {
  send config get expire-budget-keys appendonly save nosuch expire-budget-keys
  expect_eq "the name=value pairs, sorted" "$(paste -d= - - <<<"$output" | sort | tr '\n' ' ')" "appendonly=no expire-budget-keys=1000 save= "
  send_multibulk 26 CONFIG GET databases
  expect_bytes '*2\r\n$9\r\ndatabases\r\n$1\r\n1\r\n'
}

@test "CONFIG SET needs a parameter and a value; other parameters cannot be set" {
  send config set expire-budget-keys
  expect_reply "ERR wrong number of arguments for 'config|set' command"
  send config set nosuch 1
  expect_reply "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"
  expect_config expire-budget-keys "1000"
}
