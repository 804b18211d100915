#!/usr/bin/env bats
# Grader for chapter 07, exercise 1: DELEX key [IFEQ v | IFNE v | IFDEQ d | IFDNE d].
#
# As in Redis 8.4: 1 when it deleted the key, 0 when the key was missing or
# the condition failed; without a condition, DEL of one key. IFNE and IFDNE
# on a missing key answer 0 (there is nothing to delete), unlike SET's,
# which create it. Digests are DIGEST's, compared without regard to case; a
# malformed one on an existing key is an error ("... must be exactly 16
# hexadecimal characters", the phrase Redis's tests check) and deletes
# nothing. Anything but one condition with its value is a syntax error,
# SET's other options included.
#
# DELEX is new in Redis 8.4: against an older real Redis (the reference run
# of tests/exercises/check.sh) every test is skipped.
#
# Run it: make exercise STEP=07 EX=1 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

setup() { needs_redis_84; }

# needs_redis_84: skip in a reference run against a Redis older than 8.4.
needs_redis_84() {
  if is_reference; then
    v=$(rcli info server | tr -d '\r' | sed -n 's/^redis_version://p')
    [ "$(printf '%s\n8.4.0\n' "$v" | sort -V | head -1)" = 8.4.0 ] ||
      skip "DELEX is new in Redis 8.4 (the reference is $v)"
  fi
}

@test "DELEX without a condition deletes the key like DEL, and answers 1, then 0" {
  rcli set "$(key)" v
  rcli set "$(key other)" w
  before=$(rcli dbsize)
  send_multibulk 4 DELEX "$(key)"
  expect_bytes ':1\r\n'
  send exists "$(key)"
  expect_reply "0"
  send dbsize
  expect_num DBSIZE "$output" -eq $((before - 1))
  send_multibulk 4 DELEX "$(key)"
  expect_bytes ':0\r\n'
  send get "$(key other)"
  expect_reply "w"
}

@test "IFEQ deletes only when the value is equal" {
  rcli set "$(key)" v1
  send delex "$(key)" IFEQ v2
  expect_reply "0"
  send get "$(key)"
  expect_reply "v1"
  send delex "$(key)" IFEQ v1
  expect_reply "1"
  send exists "$(key)"
  expect_reply "0"
}

@test "IFNE deletes only when the value differs" {
  rcli set "$(key)" v1
  send delex "$(key)" IFNE v1
  expect_reply "0"
  send get "$(key)"
  expect_reply "v1"
  send delex "$(key)" IFNE v2
  expect_reply "1"
  send exists "$(key)"
  expect_reply "0"
}

@test "on a missing key every condition answers 0, IFNE and IFDNE included, and creates nothing" {
  for cond in "IFEQ v" "IFNE v" "IFDEQ 0123456789abcdef" "IFDNE 0123456789abcdef" ""; do
    send delex "$(key nosuch)" $cond
    expect_reply "0"
  done
  send exists "$(key nosuch)"
  expect_reply "0"
}

@test "an expired key counts as missing" {
  rcli set "$(key a)" v px 100
  rcli set "$(key b)" v px 100
  sleep 0.3
  send delex "$(key a)"
  expect_reply "0"
  send delex "$(key b)" IFNE other
  expect_reply "0"
}

@test "IFDEQ and IFDNE compare with DIGEST's digest, in either case" {
  rcli set "$(key)" "Hello world"
  send digest "$(key)"
  expect_regex '^[0-9a-f]{16}$'
  digest=$output
  other=$( [ "$digest" = 0000000000000000 ] && echo 1111111111111111 || echo 0000000000000000)
  send delex "$(key)" IFDEQ "$other"
  expect_reply "0"
  send delex "$(key)" IFDNE "$digest"
  expect_reply "0"
  send exists "$(key)"
  expect_reply "1"
  send delex "$(key)" IFDEQ "$(tr a-f A-F <<<"$digest")"
  expect_reply "1"
  send exists "$(key)"
  expect_reply "0"
  rcli set "$(key)" "Hello world"
  send delex "$(key)" IFDNE "$other"
  expect_reply "1"
  send exists "$(key)"
  expect_reply "0"
}

@test "a malformed digest on an existing key is an error, and nothing is deleted" {
  rcli set "$(key)" v
  for bad in xyz 0123456789abcde 0123456789abcdef0 0123456789abcdeg; do
    send delex "$(key)" IFDEQ "$bad"
    expect_match "ERR *must be exactly 16 hexadecimal characters*"
    send delex "$(key)" IFDNE "$bad"
    expect_match "ERR *must be exactly 16 hexadecimal characters*"
  done
  send get "$(key)"
  expect_reply "v"
}

@test "conditions are read in any case, and compare bytes, NUL included" {
  raw --expect 5 -- SET "$(key)" 'a\x00b' >/dev/null
  send_multibulk 4 DELEX "$(key)" ifeq a
  expect_bytes ':0\r\n'
  send_multibulk 4 DELEX "$(key)" IfNe 'a\x00b'
  expect_bytes ':0\r\n'
  send_multibulk 4 DELEX "$(key)" iFeQ 'a\x00b'
  expect_bytes ':1\r\n'
}

@test "anything but one condition with its value is a syntax error, and deletes nothing" {
  rcli set "$(key)" v
  for opts in "IFEQ" "IFDNE" "FOO v" "IFEQ v IFNE w" "IFEQ v IFEQ v" "IFEQ v extra" \
    "NX" "XX" "GET" "KEEPTTL" "EX 10" "PX abc"; do
    send delex "$(key)" $opts
    expect_reply "ERR syntax error"
  done
  send get "$(key)"
  expect_reply "v"
}

@test "DELEX needs a key" {
  send delex
  expect_reply "ERR wrong number of arguments for 'delex' command"
}
