#!/usr/bin/env bats
# Grader for chapter 02, exercise 1: STRLEN key.
#
# The length of the value in bytes, 0 for a missing key, and Redis's arity
# error.
#
# Run it: make exercise STEP=02 EX=1 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "STRLEN of a key holding hello is 5, as an integer reply" {
  rcli set "$(key)" hello
  send_multibulk 4 STRLEN "$(key)"
  expect_bytes ':5\r\n'
}

@test "STRLEN of a missing key is 0, and creates nothing" {
  send_multibulk 4 STRLEN "$(key missing)"
  expect_bytes ':0\r\n'
  send_typed get "$(key missing)"
  expect_reply "(nil)"
}

@test "STRLEN of an empty value is 0" {
  rcli set "$(key)" ""
  send strlen "$(key)"
  expect_reply "0"
}

@test "STRLEN counts bytes, not characters, NUL, CR and LF included" {
  rcli set "$(key utf8)" "é"
  send strlen "$(key utf8)"
  expect_reply "2"
  raw --expect 5 -- SET "$(key bin)" 'a\x00b\r\nc' >/dev/null
  send strlen "$(key bin)"
  expect_reply "6"
}

@test "STRLEN follows overwrites" {
  rcli set "$(key)" "a longer value"
  rcli set "$(key)" "short"
  send strlen "$(key)"
  expect_reply "5"
}

@test "STRLEN of a 1 MB value is 1048576" {
  head -c 1048576 /dev/zero | tr '\0' 'x' | rcli -x set "$(key)" >/dev/null
  send strlen "$(key)"
  expect_reply "1048576"
}

@test "STRLEN takes exactly one key" {
  send strlen
  expect_reply "ERR wrong number of arguments for 'strlen' command"
  send strlen a b
  expect_reply "ERR wrong number of arguments for 'strlen' command"
}
