#!/usr/bin/env bats
# Grader for chapter 04, exercise 3: GETEX.
#
#   GETEX key [EX seconds | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]
#
# The value, like GET, and the TTL changed as the option says. Redis's order
# of checks: options first (a syntax error whatever the key), then the key
# (a missing key is nil before the number is read), then the number (zero or
# less, or an overflow, is "invalid expire time in 'getex' command"). An
# EXAT/PXAT already past answers the value and deletes the key.
#
# Run it: make exercise STEP=04 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "GETEX without an option answers the value and leaves the TTL alone" {
  rcli set "$(key plain)" v
  run raw --expect 7 -- GETEX "$(key plain)"
  [ "$output" = "$(printf '$1\r\nv\r\n')" ]
  run r ttl "$(key plain)"
  [ "$output" = "(integer) -1" ]
  rcli set "$(key ttl)" v ex 50
  run rcli getex "$(key ttl)"
  [ "$output" = "v" ]
  run r ttl "$(key ttl)"
  [ "$output" = "(integer) 50" ]
}

@test "GETEX EX and PX set a TTL relative to now" {
  rcli set "$(key)" v
  run rcli getex "$(key)" EX 100
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
  run rcli getex "$(key)" px 50000
  [ "$output" = "v" ]
  run rcli pttl "$(key)"
  [ "$output" -gt 48000 ] && [ "$output" -le 50000 ]
}

@test "GETEX EXAT and PXAT set an absolute expire time" {
  rcli set "$(key)" v
  at=$(($(date +%s) + 1000))
  run rcli getex "$(key)" exat "$at"
  [ "$output" = "v" ]
  run r expiretime "$(key)"
  [ "$output" = "(integer) $at" ]
  run rcli getex "$(key)" PXAT "${at}123"
  [ "$output" = "v" ]
  run r pexpiretime "$(key)"
  [ "$output" = "(integer) ${at}123" ]
}

@test "GETEX PERSIST answers the value and removes the TTL" {
  rcli set "$(key)" v ex 100
  run rcli getex "$(key)" persist
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) -1" ]
}

@test "GETEX k PX 100: the key is gone after its time" {
  rcli set "$(key)" v
  rcli getex "$(key)" px 100
  sleep 0.3
  run r get "$(key)"
  [ "$output" = "(nil)" ]
}

@test "GETEX k EXAT 1 answers the value and deletes the key" {
  rcli set "$(key)" v
  run rcli getex "$(key)" EXAT 1
  [ "$output" = "v" ]
  run r exists "$(key)"
  [ "$output" = "(integer) 0" ]
  rcli set "$(key)" v
  run rcli getex "$(key)" pxat 1000
  [ "$output" = "v" ]
  run r exists "$(key)"
  [ "$output" = "(integer) 0" ]
}

@test "a missing key is nil before the number is checked" {
  run raw --expect 5 -- GETEX "$(key nosuch)" EX 0
  [ "$output" = "$(printf '$-1\r\n')" ]
  run r getex "$(key nosuch)" EX abc
  [ "$output" = "(nil)" ]
  run r getex "$(key nosuch)"
  [ "$output" = "(nil)" ]
}

@test "an expired key is nil" {
  rcli set "$(key)" v px 100
  sleep 0.3
  run r getex "$(key)" ex 100
  [ "$output" = "(nil)" ]
  run r exists "$(key)"
  [ "$output" = "(integer) 0" ]
}

@test "on an existing key, zero or less is an invalid expire time, and nothing changes" {
  rcli set "$(key)" v ex 100
  for opt in "EX 0" "EX -1" "PX 0" "EXAT 0" "PXAT -5"; do
    run rcli getex "$(key)" $opt
    [ "$output" = "ERR invalid expire time in 'getex' command" ]
  done
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
}

@test "a number that overflows is an invalid expire time; PXAT LLONG_MAX is valid" {
  rcli set "$(key)" v
  for opt in "EX 9223372036854775807" "PX 9223372036854775807" "EXAT 9223372036854775807"; do
    run rcli getex "$(key)" $opt
    [ "$output" = "ERR invalid expire time in 'getex' command" ]
  done
  run rcli getex "$(key)" PXAT 9223372036854775807
  [ "$output" = "v" ]
  run r pexpiretime "$(key)"
  [ "$output" = "(integer) 9223372036854775807" ]
}

@test "a number that is not an integer is ERR value is not an integer or out of range" {
  rcli set "$(key)" v
  run rcli getex "$(key)" EX abc
  [ "$output" = "ERR value is not an integer or out of range" ]
  run rcli getex "$(key)" PX 1.5
  [ "$output" = "ERR value is not an integer or out of range" ]
}

@test "two different options, a missing number, or an option of SET's is a syntax error" {
  rcli set "$(key)" v ex 100
  for opt in "EX 10 PX 10" "PXAT 1 EXAT 1" "PERSIST EX 10" "EX 10 PERSIST" "KEEPTTL" "NX" "EX" "PXAT" "foo"; do
    run rcli getex "$(key)" $opt
    [ "$output" = "ERR syntax error" ] || { echo "GETEX k $opt: $output"; return 1; }
  done
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
}

@test "the same option twice is allowed, and the last one wins" {
  rcli set "$(key)" v
  run rcli getex "$(key)" EX 10 ex 20
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 20" ]
  run rcli getex "$(key)" PERSIST persist
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) -1" ]
}

@test "options are checked before the key: a missing key with a bad option is a syntax error" {
  run rcli getex "$(key nosuch)" foo
  [ "$output" = "ERR syntax error" ]
  run rcli getex "$(key nosuch)" EX 10 PX 10
  [ "$output" = "ERR syntax error" ]
}

@test "GETEX needs a key" {
  run rcli getex
  [ "$output" = "ERR wrong number of arguments for 'getex' command" ]
}
