#!/usr/bin/env bats
# Grader for chapter 07, exercise 2: a PERSIST option in SET's expiry group.
#
# PERSIST is no Redis option (Redis's SET refuses it): the exercise adds it
# to the state machine to show what one option costs. SET k v PERSIST does
# what a plain SET does, dropping the TTL; PERSIST may repeat, in any case,
# combines with a condition and GET, takes no value, and excludes EX PX EXAT
# PXAT KEEPTTL in either order (a syntax error that changes nothing). After
# EX it is EX's value, as any word is there. The rest of SET must not change:
# the chapter's own SET suite runs against the server too.
#
# The grader sees the server only. The exercise's other half, the unit
# test's reference parser with its items[] (111,151 sequences), the fuzz
# target's copy and `make fsm-docs`, is checked by `make test`, not here.
#
# Run it: make exercise STEP=07 EX=2 [SERVER=path]

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "SET k v PERSIST answers OK, stores the value and drops the TTL" {
  rcli set "$(key)" old ex 100
  send_multibulk 5 SET "$(key)" new PERSIST
  expect_bytes '+OK\r\n'
  send get "$(key)"
  expect_reply "new"
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
  send set "$(key fresh)" v persist
  expect_reply "OK"
  send_typed ttl "$(key fresh)"
  expect_reply "(integer) -1"
}

@test "PERSIST is read in any case and may repeat" {
  for opts in "persist" "Persist PERSIST" "pErSiSt persist PERSIST"; do
    rcli set "$(key)" old ex 100
    send set "$(key)" v $opts
    expect_reply "OK"
    send_typed ttl "$(key)"
    expect_reply "(integer) -1"
  done
}

@test "PERSIST combines with a condition and with GET, in any order" {
  rcli set "$(key)" old ex 100
  send set "$(key)" new PERSIST XX GET
  expect_reply "old"
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
  send_typed set "$(key)" newer nx persist
  expect_reply "(nil)"
  send get "$(key)"
  expect_reply "new"
  rcli pexpire "$(key)" 100000
  send set "$(key)" third GET persist IFEQ new
  expect_reply "new"
  send get "$(key)"
  expect_reply "third"
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
}

@test "PERSIST with EX, PX, EXAT, PXAT or KEEPTTL, in either order, is a syntax error that changes nothing" {
  rcli set "$(key)" old ex 100
  for opts in "PERSIST EX 10" "EX 10 PERSIST" "PX 10 PERSIST" "PERSIST PX 10" \
    "PERSIST EXAT 4102444800" "PXAT 4102444800000 persist" "KEEPTTL PERSIST" "PERSIST KEEPTTL" \
    "PERSIST NX EX 10 PERSIST"; do
    send set "$(key)" new $opts
    expect_reply "ERR syntax error"
  done
  send get "$(key)"
  expect_reply "old"
  expect_ttl_about "$(key)" 100
}

@test "PERSIST takes no value, and after EX it is EX's value" {
  rcli set "$(key)" old ex 100
  send set "$(key)" new PERSIST 10
  expect_reply "ERR syntax error"
  send set "$(key)" new EX PERSIST
  expect_reply "ERR value is not an integer or out of range"
  send set "$(key)" new PERSISTX
  expect_reply "ERR syntax error"
  send get "$(key)"
  expect_reply "old"
}

@test "the rest of SET is unchanged: chapter 07's SET suite passes" {
  send_as "chapter 07's SET suite, tests/07-set-options-fsm/set.bats (bats --tap)" \
    bats --tap "$BATS_TEST_DIRNAME/../../07-set-options-fsm/set.bats"
  echo "$output" | grep -v '^ok '
  expect_status 0
}
