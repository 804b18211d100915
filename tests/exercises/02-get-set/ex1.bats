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
  run raw --expect 4 -- STRLEN "$(key)"
  [ "$output" = "$(printf ':5\r\n')" ]
}

@test "STRLEN of a missing key is 0, and creates nothing" {
  run raw --expect 4 -- STRLEN "$(key missing)"
  [ "$output" = "$(printf ':0\r\n')" ]
  run rcli --no-raw get "$(key missing)"
  [ "$output" = "(nil)" ]
}

@test "STRLEN of an empty value is 0" {
  rcli set "$(key)" ""
  run rcli strlen "$(key)"
  [ "$output" = "0" ]
}

@test "STRLEN counts bytes, not characters, NUL, CR and LF included" {
  rcli set "$(key utf8)" "é"
  run rcli strlen "$(key utf8)"
  [ "$output" = "2" ]
  raw --expect 5 -- SET "$(key bin)" 'a\x00b\r\nc' >/dev/null
  run rcli strlen "$(key bin)"
  [ "$output" = "6" ]
}

@test "STRLEN follows overwrites" {
  rcli set "$(key)" "a longer value"
  rcli set "$(key)" "short"
  run rcli strlen "$(key)"
  [ "$output" = "5" ]
}

@test "STRLEN of a 1 MB value is 1048576" {
  head -c 1048576 /dev/zero | tr '\0' 'x' | rcli -x set "$(key)" >/dev/null
  run rcli strlen "$(key)"
  [ "$output" = "1048576" ]
}

@test "STRLEN takes exactly one key" {
  run rcli strlen
  [ "$output" = "ERR wrong number of arguments for 'strlen' command" ]
  run rcli strlen a b
  [ "$output" = "ERR wrong number of arguments for 'strlen' command" ]
}
