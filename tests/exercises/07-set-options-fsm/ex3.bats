#!/usr/bin/env bats
# Grader for chapter 07, exercise 3: GETEX with SET's lexer and expiry machine.
#
#   GETEX key [EX seconds | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]
#
# The value, like GET, and the TTL changed as the option says. Redis's order
# of checks: the grammar over the whole list first (NX, XX, GET, KEEPTTL,
# an IF* condition, an unknown word, a missing number, or two different
# expiry options: ERR syntax error, whatever the key), then the key (a
# missing key is nil, even for GETEX nosuchkey EX 0), then the number
# ("invalid expire time in 'getex' command", or not an integer). The same
# option may repeat and the last number wins; as in SET, the argument after
# EX is its number whatever it looks like. An EXAT/PXAT already past answers
# the value and deletes the key. SET must still refuse PERSIST, and the
# chapter's SET suite must still pass: one table, two vocabularies.
#
# Run it: make exercise STEP=07 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

r() { rcli --no-raw "$@"; }

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

@test "GETEX EX and PX set a TTL relative to now, in any case" {
  rcli set "$(key)" v
  run rcli getex "$(key)" eX 100
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
  run rcli getex "$(key)" px 50000
  [ "$output" = "v" ]
  run rcli pttl "$(key)"
  [ "$output" -gt 48000 ]
  [ "$output" -le 50000 ]
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
  run rcli getex "$(key)" Persist
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

@test "GETEX k EXAT 1 and PXAT 1000 answer the value and delete the key" {
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
  run r getex "$(key nosuch)" PXAT -1
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
    [ "$output" = "ERR invalid expire time in 'getex' command" ] ||
      { echo "GETEX k $opt: $output"; return 1; }
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

@test "a number that is not an integer is ERR value is not an integer, even an option word after EX" {
  rcli set "$(key)" v
  for opt in "EX abc" "PX 1.5" "EX NX" "EX PERSIST" "EXAT EX"; do
    run rcli getex "$(key)" $opt
    [ "$output" = "ERR value is not an integer or out of range" ] ||
      { echo "GETEX k $opt: $output"; return 1; }
  done
}

@test "SET's options, unknown words, missing numbers and two expiry options are syntax errors" {
  rcli set "$(key)" v ex 100
  for opt in "EX 10 PX 10" "PXAT 1 EXAT 1" "PERSIST EX 10" "EX 10 PERSIST" "KEEPTTL" "NX" \
    "XX" "GET" "IFEQ v" "IFNE v" "EX 10 GET" "EX" "PXAT" "foo" "PERSISTX"; do
    run rcli getex "$(key)" $opt
    [ "$output" = "ERR syntax error" ] || { echo "GETEX k $opt: $output"; return 1; }
  done
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
}

@test "the grammar is checked over the whole list before any number or key" {
  rcli set "$(key)" v ex 100
  run rcli getex "$(key)" EX abc PX 10
  [ "$output" = "ERR syntax error" ]
  run rcli getex "$(key)" EX 0 NX
  [ "$output" = "ERR syntax error" ]
  run rcli getex "$(key nosuch)" foo
  [ "$output" = "ERR syntax error" ]
  run rcli getex "$(key nosuch)" EX 10 PX 10
  [ "$output" = "ERR syntax error" ]
}

@test "the same option twice is allowed, and the last one wins" {
  rcli set "$(key)" v
  run rcli getex "$(key)" EX 10 ex 20
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 20" ]
  run rcli getex "$(key)" EX abc EX 30
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 30" ]
  run rcli getex "$(key)" PERSIST persist
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) -1" ]
}

@test "SET still refuses GETEX's PERSIST" {
  rcli set "$(key)" v ex 100
  run rcli set "$(key)" w PERSIST
  [ "$output" = "ERR syntax error" ]
  run rcli set "$(key)" w EX 10 PERSIST
  [ "$output" = "ERR syntax error" ]
  [ "$(rcli get "$(key)")" = "v" ]
}

@test "GETEX needs a key" {
  run rcli getex
  [ "$output" = "ERR wrong number of arguments for 'getex' command" ]
}

@test "the rest of SET is unchanged: chapter 07's SET suite passes" {
  run bats --tap "$BATS_TEST_DIRNAME/../../07-set-options-fsm/set.bats"
  echo "$output" | grep -v '^ok '
  [ "$status" -eq 0 ]
}
