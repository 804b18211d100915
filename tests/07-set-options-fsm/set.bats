#!/usr/bin/env bats
# Chapter 07: SET's whole grammar and every reply form, and DIGEST, through
# redis-cli. The IF* conditions and DIGEST are Redis 8.4 features: against an
# older real Redis those tests are skipped.
# Grades any server: make grade STEP=07, or make test STEP=07 SERVER=path.
# Each test's name starts with its stage (tests/07-set-options-fsm/stages).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

# needs_redis_84: skip in a reference run against a Redis older than 8.4.
needs_redis_84() {
  if is_reference; then
    v=$(rcli info server | tr -d '\r' | sed -n 's/^redis_version://p')
    [ "$(printf '%s\n8.4.0\n' "$v" | sort -V | head -1)" = 8.4.0 ] || skip "needs Redis 8.4 (reference is $v)"
  fi
}

@test "07-2 options in any order and any case" {
  send_typed set "$(key)" v Ex 100 gEt nX
  expect_reply "(nil)"
  expect_ttl_about "$(key)" 100
  send_typed set "$(key)" w PX 50000 XX GET
  expect_reply '"v"'
  expect_ttl_about "$(key)" 50
}

@test "07-2 repeating an option is accepted and the last value wins, as in Redis" {
  r set "$(key)" v ex 10 ex 20 >/dev/null
  expect_ttl_about "$(key)" 20
  send_typed set "$(key)" v nx nx
  expect_reply "(nil)"
  send_typed set "$(key)" w get get
  expect_reply '"v"'
}

@test "07-3 SET answers OK, and nil when NX or XX does not hold" {
  send_typed set "$(key)" v nx
  expect_reply "OK"
  send_typed set "$(key)" w nx
  expect_reply "(nil)"
  send_typed set "$(key missing)" w xx
  expect_reply "(nil)"
  send_typed set "$(key)" w xx
  expect_reply "OK"
  send_typed get "$(key)"
  expect_reply '"w"'
}

@test "07-3 GET returns the old value, or nil, whether or not the write happens" {
  send_typed set "$(key)" one get
  expect_reply "(nil)"
  send_typed set "$(key)" two get
  expect_reply '"one"'
  send_typed set "$(key)" three nx get
  expect_reply '"two"'
  send_typed get "$(key)"
  expect_reply '"two"'
  send_typed set "$(key missing)" v xx get
  expect_reply "(nil)"
  send_typed exists "$(key missing)"
  expect_reply "(integer) 0"
}

@test "07-3 EXAT and PXAT set absolute times; one in the past leaves no key" {
  at=$(( $(date +%s) + 1000 ))
  r set "$(key a)" v exat "$at" >/dev/null
  send_typed expiretime "$(key a)"
  expect_reply "(integer) $at"
  r set "$(key b)" v pxat "$((at * 1000 + 5))" >/dev/null
  send_typed pexpiretime "$(key b)"
  expect_reply "(integer) $((at * 1000 + 5))"
  r set "$(key c)" old >/dev/null
  send_typed set "$(key c)" v pxat 1 get
  expect_reply '"old"'
  send_typed exists "$(key c)"
  expect_reply "(integer) 0"
}

@test "07-3 KEEPTTL keeps the TTL; a plain SET drops it" {
  r set "$(key)" v ex 100 >/dev/null
  r set "$(key)" w keepttl >/dev/null
  expect_ttl_about "$(key)" 100
  r set "$(key)" x >/dev/null
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
  send_typed set "$(key new)" v keepttl
  expect_reply "OK"
  send_typed ttl "$(key new)"
  expect_reply "(integer) -1"
}

@test "07-4 conflicting or unknown options are syntax errors, and change nothing" {
  r set "$(key)" keep ex 100 >/dev/null
  for opts in "nx xx" "ex 10 px 10" "keepttl ex 10" "exat 1 pxat 1" "ex" "px" "foo" "ex 10 foo" "get keepttl px"; do
    # shellcheck disable=SC2086 # each option word is an argument of its own
    send_typed set "$(key)" new $opts
    expect_reply "(error) ERR syntax error"
  done
  send_typed get "$(key)"
  expect_reply '"keep"'
  expect_ttl_about "$(key)" 100
}

@test "07-4 bad expire values: not a number, zero, negative, overflow" {
  send_typed set "$(key)" v ex abc
  expect_reply "(error) ERR value is not an integer or out of range"
  for opts in "ex 0" "px -1" "exat 0" "pxat -5" "ex 10000000000000000" "px 9223372036854775807"; do
    # shellcheck disable=SC2086 # each option word is an argument of its own
    send_typed set "$(key)" v $opts
    expect_reply "(error) ERR invalid expire time in 'set' command"
  done
  # A syntax error anywhere wins over a bad number: the grammar is checked first.
  send_typed set "$(key)" v ex abc nx xx
  expect_reply "(error) ERR syntax error"
}

@test "07-5 IFEQ sets only when the value matches, and never creates the key" {
  needs_redis_84
  r set "$(key)" v >/dev/null
  send_typed set "$(key)" w ifeq nope
  expect_reply "(nil)"
  send_typed set "$(key)" w ifeq v
  expect_reply "OK"
  send_typed set "$(key missing)" w ifeq v
  expect_reply "(nil)"
  send_typed exists "$(key missing)"
  expect_reply "(integer) 0"
  send_typed set "$(key)" x ifeq w get ex 100
  expect_reply '"w"'
  expect_ttl_about "$(key)" 100
}

@test "07-5 IFNE sets when the value differs, and creates a missing key" {
  needs_redis_84
  r set "$(key)" v >/dev/null
  send_typed set "$(key)" w ifne v
  expect_reply "(nil)"
  send_typed set "$(key)" w ifne other
  expect_reply "OK"
  send_typed set "$(key new)" v ifne anything
  expect_reply "OK"
  send_typed get "$(key new)"
  expect_reply '"v"'
}

@test "07-5 DIGEST is XXH3-64 in 16 lowercase hex digits; nil for a missing key" {
  needs_redis_84
  r set "$(key)" "Hello world" >/dev/null
  send_typed digest "$(key)"
  expect_reply '"b6acb9d84a38ff74"'
  r set "$(key e)" "" >/dev/null
  send_typed digest "$(key e)"
  expect_reply '"2d06800538d394c2"'
  r set "$(key h)" hello >/dev/null
  send_typed digest "$(key h)"
  expect_reply '"9555e8555c62dcfd"'
  send_typed digest "$(key missing)"
  expect_reply "(nil)"
}

@test "07-5 IFDEQ and IFDNE compare digests, without regard to case" {
  needs_redis_84
  r set "$(key)" "Hello world" >/dev/null
  send_typed set "$(key)" w ifdeq 0000000000000000
  expect_reply "(nil)"
  send_typed set "$(key)" w ifdeq B6ACB9D84A38FF74
  expect_reply "OK"
  send_typed set "$(key missing)" v ifdeq b6acb9d84a38ff74
  expect_reply "(nil)"
  send_typed set "$(key missing)" v ifdne b6acb9d84a38ff74
  expect_reply "OK"
  send_typed set "$(key)" x ifdne "$(rcli digest "$(key)")"
  expect_reply "(nil)"
  send_typed set "$(key)" x ifdeq xyz
  expect_match "*must be exactly 16 hexadecimal characters*"
}

@test "07-5 at most one condition: IF* options exclude NX, XX and each other" {
  needs_redis_84
  for opts in "ifeq a nx" "xx ifne a" "ifeq a ifeq b" "ifdeq 0000000000000000 ifdne 0000000000000000" "ifeq" "ifdne"; do
    # shellcheck disable=SC2086 # each option word is an argument of its own
    send_typed set "$(key)" v $opts
    expect_reply "(error) ERR syntax error"
  done
}

@test "07-5 DIGEST checks its arity" {
  needs_redis_84
  send_typed digest
  expect_reply "(error) ERR wrong number of arguments for 'digest' command"
}
