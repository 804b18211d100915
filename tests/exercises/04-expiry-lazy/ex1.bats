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
  send_multibulk 5 SETEX "$(key)" 50 hello
  expect_bytes '+OK\r\n'
  send get "$(key)"
  expect_reply "hello"
  expect_ttl_about "$(key)" 50
}

@test "PSETEX takes milliseconds: after PSETEX p 100000 v, TTL p is 100" {
  send psetex "$(key)" 100000 v
  expect_reply "OK"
  expect_ttl_about "$(key)" 100
  send pttl "$(key)"
  expect_num PTTL "$output" -gt 98000
  expect_num PTTL "$output" -le 100000
}

@test "a key set by PSETEX 100 is gone after its time" {
  rcli psetex "$(key)" 100 v
  sleep 0.3
  send_typed get "$(key)"
  expect_reply "(nil)"
  send_typed ttl "$(key)"
  expect_reply "(integer) -2"
}

@test "a TTL of zero or less is an invalid expire time, named after the command" {
  send setex "$(key)" 0 v
  expect_reply "ERR invalid expire time in 'setex' command"
  send psetex "$(key)" -5 v
  expect_reply "ERR invalid expire time in 'psetex' command"
  send setex "$(key)" -1 v
  expect_reply "ERR invalid expire time in 'setex' command"
  send psetex "$(key)" 0 v
  expect_reply "ERR invalid expire time in 'psetex' command"
}

@test "a TTL that overflows is an invalid expire time" {
  send setex "$(key)" 99999999999999999 v
  expect_reply "ERR invalid expire time in 'setex' command"
  send psetex "$(key)" 9223372036854775807 v
  expect_reply "ERR invalid expire time in 'psetex' command"
}

@test "a TTL that is not an integer is ERR value is not an integer or out of range" {
  send setex "$(key)" abc v
  expect_reply "ERR value is not an integer or out of range"
  send psetex "$(key)" 1.5 v
  expect_reply "ERR value is not an integer or out of range"
  send setex "$(key)" 99999999999999999999 v
  expect_reply "ERR value is not an integer or out of range"
}

@test "a failed SETEX changes nothing" {
  rcli set "$(key)" old
  rcli setex "$(key)" 0 new
  rcli setex "$(key)" abc new
  send get "$(key)"
  expect_reply "old"
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
}

@test "SETEX replaces the value and the TTL; a plain SET then removes the TTL" {
  rcli setex "$(key)" 1000 one
  rcli setex "$(key)" 50 two
  send get "$(key)"
  expect_reply "two"
  expect_ttl_about "$(key)" 50
  rcli set "$(key)" three
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
}

@test "SETEX and PSETEX take exactly a key, a TTL and a value" {
  send setex "$(key)" 10
  expect_reply "ERR wrong number of arguments for 'setex' command"
  send setex "$(key)" 10 v extra
  expect_reply "ERR wrong number of arguments for 'setex' command"
  send psetex "$(key)" 10
  expect_reply "ERR wrong number of arguments for 'psetex' command"
  send psetex "$(key)" 10 v extra
  expect_reply "ERR wrong number of arguments for 'psetex' command"
}
