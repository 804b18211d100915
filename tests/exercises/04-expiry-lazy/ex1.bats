#!/usr/bin/env bats
# Grader for chapter 04, exercise 1: SETEX and PSETEX.
#
#   SETEX key seconds value
#   PSETEX key milliseconds value
#
# They behave as SET key value EX/PX, take exactly three arguments, and
# their errors name themselves: "invalid expire time in 'setex' command".
# Short real TTLs with generous margins, as in the step's own suite.
#
# Run it: make exercise STEP=04 EX=1 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "SETEX answers OK, stores the value and a TTL in seconds" {
  run raw --expect 5 -- SETEX "$(key)" 50 hello
  [ "$output" = "$(printf '+OK\r\n')" ]
  [ "$(rcli get "$(key)")" = "hello" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 50" ]
}

@test "PSETEX takes milliseconds: after PSETEX p 100000 v, TTL p is 100" {
  run rcli psetex "$(key)" 100000 v
  [ "$output" = "OK" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
  run rcli pttl "$(key)"
  [ "$output" -gt 98000 ] && [ "$output" -le 100000 ]
}

@test "a key set by PSETEX 100 is gone after its time" {
  rcli psetex "$(key)" 100 v
  sleep 0.3
  run r get "$(key)"
  [ "$output" = "(nil)" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) -2" ]
}

@test "a TTL of zero or less is an invalid expire time, named after the command" {
  run rcli setex "$(key)" 0 v
  [ "$output" = "ERR invalid expire time in 'setex' command" ]
  run rcli psetex "$(key)" -5 v
  [ "$output" = "ERR invalid expire time in 'psetex' command" ]
  run rcli setex "$(key)" -1 v
  [ "$output" = "ERR invalid expire time in 'setex' command" ]
  run rcli psetex "$(key)" 0 v
  [ "$output" = "ERR invalid expire time in 'psetex' command" ]
}

@test "a TTL that overflows is an invalid expire time" {
  run rcli setex "$(key)" 99999999999999999 v
  [ "$output" = "ERR invalid expire time in 'setex' command" ]
  run rcli psetex "$(key)" 9223372036854775807 v
  [ "$output" = "ERR invalid expire time in 'psetex' command" ]
}

@test "a TTL that is not an integer is ERR value is not an integer or out of range" {
  run rcli setex "$(key)" abc v
  [ "$output" = "ERR value is not an integer or out of range" ]
  run rcli psetex "$(key)" 1.5 v
  [ "$output" = "ERR value is not an integer or out of range" ]
  run rcli setex "$(key)" 99999999999999999999 v
  [ "$output" = "ERR value is not an integer or out of range" ]
}

@test "a failed SETEX changes nothing" {
  rcli set "$(key)" old
  rcli setex "$(key)" 0 new
  rcli setex "$(key)" abc new
  [ "$(rcli get "$(key)")" = "old" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) -1" ]
}

@test "SETEX replaces the value and the TTL; a plain SET then removes the TTL" {
  rcli setex "$(key)" 1000 one
  rcli setex "$(key)" 50 two
  [ "$(rcli get "$(key)")" = "two" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 50" ]
  rcli set "$(key)" three
  run r ttl "$(key)"
  [ "$output" = "(integer) -1" ]
}

@test "SETEX and PSETEX take exactly a key, a TTL and a value" {
  run rcli setex "$(key)" 10
  [ "$output" = "ERR wrong number of arguments for 'setex' command" ]
  run rcli setex "$(key)" 10 v extra
  [ "$output" = "ERR wrong number of arguments for 'setex' command" ]
  run rcli psetex "$(key)" 10
  [ "$output" = "ERR wrong number of arguments for 'psetex' command" ]
  run rcli psetex "$(key)" 10 v extra
  [ "$output" = "ERR wrong number of arguments for 'psetex' command" ]
}
