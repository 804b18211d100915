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
config_value() { rcli config get "$1" | sed -n 2p; }
stat() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }

@test "CONFIG GET expire-budget-keys answers 1000, an array in RESP2 and a map in RESP3" {
  run raw --expect 48 -- CONFIG GET expire-budget-keys
  [ "$output" = "$(printf '*2\r\n$18\r\nexpire-budget-keys\r\n$4\r\n1000\r\n')" ]
  run raw --close-expected < <(printf 'HELLO 3\r\nCONFIG GET expire-budget-keys\r\nQUIT\r\n')
  [[ "$output" == *"$(printf '%%1\r\n$18\r\nexpire-budget-keys\r\n$4\r\n1000\r\n+OK\r\n')" ]]
}

@test "CONFIG SET expire-budget-keys takes 1 to 1000000 and answers OK" {
  for n in 10 1 1000000 1000; do
    run raw --expect 5 -- CONFIG SET expire-budget-keys "$n"
    [ "$output" = "$(printf '+OK\r\n')" ]
    [ "$(config_value expire-budget-keys)" = "$n" ]
  done
}

@test "a budget out of range, or not an integer, is refused and changes nothing" {
  rcli config set expire-budget-keys 500
  for bad in 0 -1 1000001 99999999999; do
    run rcli config set expire-budget-keys "$bad"
    [ "$output" = "$(set_error expire-budget-keys "argument must be between 1 and 1000000 inclusive")" ] ||
      { echo "CONFIG SET expire-budget-keys $bad: $output"; return 1; }
  done
  for bad in abc 1.5 "" 12x; do
    run rcli config set expire-budget-keys "$bad"
    [ "$output" = "$(set_error expire-budget-keys "argument couldn't be parsed into an integer")" ] ||
      { echo "CONFIG SET expire-budget-keys '$bad': $output"; return 1; }
  done
  [ "$(config_value expire-budget-keys)" = "500" ]
  rcli config set expire-budget-keys 1000
}

@test "at a budget of 10, 10,000 expired keys take at least 500 full turns of the loop" {
  rcli flushall
  run rcli config set expire-budget-keys 10
  [ "$output" = "OK" ]
  before=$(stat expired_time_cap_reached_count)
  load_keys "$(key)" 10000 PX 100
  wait_dbsize 0 10000
  after=$(stat expired_time_cap_reached_count)
  rcli config set expire-budget-keys 1000
  echo "expired_time_cap_reached_count grew by $((after - before))"
  [ $((after - before)) -ge 500 ]
}

@test "back at 1000, the same 10,000 keys take few full turns" {
  rcli flushall
  [ "$(config_value expire-budget-keys)" = "1000" ]
  before=$(stat expired_time_cap_reached_count)
  load_keys "$(key)" 10000 PX 100
  wait_dbsize 0 10000
  after=$(stat expired_time_cap_reached_count)
  echo "expired_time_cap_reached_count grew by $((after - before))"
  [ $((after - before)) -le 100 ]
}

@test "one CONFIG GET names several parameters, and CONFIG GET still answers the start-up ones" {
  run rcli config get expire-budget-keys appendonly save nosuch expire-budget-keys
  [ "$(paste -d= - - <<<"$output" | sort | tr '\n' ' ')" = "appendonly=no expire-budget-keys=1000 save= " ]
  run raw --expect 15 -- CONFIG GET databases
  [ "$output" = "$(printf '*2\r\n$9\r\ndatabases\r\n$1\r\n1\r\n')" ]
}

@test "CONFIG SET needs a parameter and a value; other parameters cannot be set" {
  run rcli config set expire-budget-keys
  [ "$output" = "ERR wrong number of arguments for 'config|set' command" ]
  run rcli config set nosuch 1
  [ "$output" = "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'" ]
  [ "$(config_value expire-budget-keys)" = "1000" ]
}
