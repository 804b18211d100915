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
# GETEX behaves as chapter 04's exercise 3 asked: that grader runs first,
# whole, against this server. The tests below are what the state machine
# adds to it: option words in any case, the grammar of the whole list
# before any number or key, and SET left as it was.
#
# Run it: make exercise STEP=07 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "chapter 04's GETEX grader passes against this server" {
  send_as "chapter 04's GETEX grader, tests/exercises/04-expiry-lazy/ex3.bats (bats --tap)" \
    bats --tap "$BATS_TEST_DIRNAME/../04-expiry-lazy/ex3.bats"
  echo "$output" | grep -v '^ok '
  expect_status 0
}

@test "option words are read in any case" {
  rcli set "$(key)" v
  send getex "$(key)" eX 100
  expect_reply "v"
  expect_ttl_about "$(key)" 100
  send getex "$(key)" Persist
  expect_reply "v"
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
  send getex "$(key)" pXaT 1000
  expect_reply "v"
  send_typed exists "$(key)"
  expect_reply "(integer) 0"
}

@test "a missing key is nil, even with a deadline long past" {
  send_typed getex "$(key nosuch)" PXAT -1
  expect_reply "(nil)"
}

@test "a number that is not an integer is ERR value is not an integer, even an option word after EX" {
  rcli set "$(key)" v
  for opt in "EX abc" "PX 1.5" "EX NX" "EX PERSIST" "EXAT EX"; do
    send getex "$(key)" $opt
    expect_reply "ERR value is not an integer or out of range"
  done
}

@test "SET's options, unknown words, missing numbers and two expiry options are syntax errors" {
  set_at=$(now_ms)
  rcli set "$(key)" v ex 100
  for opt in "EX 10 PX 10" "PXAT 1 EXAT 1" "PERSIST EX 10" "EX 10 PERSIST" "KEEPTTL" "NX" \
    "XX" "GET" "IFEQ v" "IFNE v" "EX 10 GET" "EX" "PXAT" "foo" "PERSISTX"; do
    send getex "$(key)" $opt
    expect_reply "ERR syntax error"
  done
  expect_ttl_about "$(key)" 100 "$set_at"
}

@test "the grammar is checked over the whole list before any number or key" {
  rcli set "$(key)" v ex 100
  send getex "$(key)" EX abc PX 10
  expect_reply "ERR syntax error"
  send getex "$(key)" EX 0 NX
  expect_reply "ERR syntax error"
  send getex "$(key nosuch)" foo
  expect_reply "ERR syntax error"
  send getex "$(key nosuch)" EX 10 PX 10
  expect_reply "ERR syntax error"
}

@test "the same option twice: the last number wins, whatever the first one was" {
  rcli set "$(key)" v
  send getex "$(key)" EX abc EX 30
  expect_reply "v"
  expect_ttl_about "$(key)" 30
}

@test "SET still refuses GETEX's PERSIST" {
  rcli set "$(key)" v ex 100
  send set "$(key)" w PERSIST
  expect_reply "ERR syntax error"
  send set "$(key)" w EX 10 PERSIST
  expect_reply "ERR syntax error"
  send get "$(key)"
  expect_reply "v"
}

@test "the rest of SET is unchanged: chapter 07's SET suite passes" {
  send_as "chapter 07's SET suite, tests/07-set-options-fsm/set.bats (bats --tap)" \
    bats --tap "$BATS_TEST_DIRNAME/../../07-set-options-fsm/set.bats"
  echo "$output" | grep -v '^ok '
  expect_status 0
}
