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
  run raw --expect 4 -- DELEX "$(key)"
  [ "$output" = "$(printf ':1\r\n')" ]
  [ "$(rcli exists "$(key)")" = "0" ]
  [ "$(rcli dbsize)" -eq $((before - 1)) ]
  run raw --expect 4 -- DELEX "$(key)"
  [ "$output" = "$(printf ':0\r\n')" ]
  [ "$(rcli get "$(key other)")" = "w" ]
}

@test "IFEQ deletes only when the value is equal" {
  rcli set "$(key)" v1
  run rcli delex "$(key)" IFEQ v2
  [ "$output" = "0" ]
  [ "$(rcli get "$(key)")" = "v1" ]
  run rcli delex "$(key)" IFEQ v1
  [ "$output" = "1" ]
  [ "$(rcli exists "$(key)")" = "0" ]
}

@test "IFNE deletes only when the value differs" {
  rcli set "$(key)" v1
  run rcli delex "$(key)" IFNE v1
  [ "$output" = "0" ]
  [ "$(rcli get "$(key)")" = "v1" ]
  run rcli delex "$(key)" IFNE v2
  [ "$output" = "1" ]
  [ "$(rcli exists "$(key)")" = "0" ]
}

@test "on a missing key every condition answers 0, IFNE and IFDNE included, and creates nothing" {
  for cond in "IFEQ v" "IFNE v" "IFDEQ 0123456789abcdef" "IFDNE 0123456789abcdef" ""; do
    run rcli delex "$(key nosuch)" $cond
    [ "$output" = "0" ] || { echo "DELEX nosuch $cond: $output"; return 1; }
  done
  [ "$(rcli exists "$(key nosuch)")" = "0" ]
}

@test "an expired key counts as missing" {
  rcli set "$(key a)" v px 100
  rcli set "$(key b)" v px 100
  sleep 0.3
  run rcli delex "$(key a)"
  [ "$output" = "0" ]
  run rcli delex "$(key b)" IFNE other
  [ "$output" = "0" ]
}

@test "IFDEQ and IFDNE compare with DIGEST's digest, in either case" {
  rcli set "$(key)" "Hello world"
  digest=$(rcli digest "$(key)")
  [[ "$digest" =~ ^[0-9a-f]{16}$ ]]
  other=$( [ "$digest" = 0000000000000000 ] && echo 1111111111111111 || echo 0000000000000000)
  run rcli delex "$(key)" IFDEQ "$other"
  [ "$output" = "0" ]
  run rcli delex "$(key)" IFDNE "$digest"
  [ "$output" = "0" ]
  [ "$(rcli exists "$(key)")" = "1" ]
  run rcli delex "$(key)" IFDEQ "$(tr a-f A-F <<<"$digest")"
  [ "$output" = "1" ]
  [ "$(rcli exists "$(key)")" = "0" ]
  rcli set "$(key)" "Hello world"
  run rcli delex "$(key)" IFDNE "$other"
  [ "$output" = "1" ]
  [ "$(rcli exists "$(key)")" = "0" ]
}

@test "a malformed digest on an existing key is an error, and nothing is deleted" {
  rcli set "$(key)" v
  for bad in xyz 0123456789abcde 0123456789abcdef0 0123456789abcdeg; do
    run rcli delex "$(key)" IFDEQ "$bad"
    [[ "$output" == "ERR "*"must be exactly 16 hexadecimal characters"* ]] ||
      { echo "DELEX k IFDEQ $bad: $output"; return 1; }
    run rcli delex "$(key)" IFDNE "$bad"
    [[ "$output" == "ERR "*"must be exactly 16 hexadecimal characters"* ]]
  done
  [ "$(rcli get "$(key)")" = "v" ]
}

@test "conditions are read in any case, and compare bytes, NUL included" {
  raw --expect 5 -- SET "$(key)" 'a\x00b' >/dev/null
  run raw --expect 4 -- DELEX "$(key)" ifeq a
  [ "$output" = "$(printf ':0\r\n')" ]
  run raw --expect 4 -- DELEX "$(key)" IfNe 'a\x00b'
  [ "$output" = "$(printf ':0\r\n')" ]
  run raw --expect 4 -- DELEX "$(key)" iFeQ 'a\x00b'
  [ "$output" = "$(printf ':1\r\n')" ]
}

@test "anything but one condition with its value is a syntax error, and deletes nothing" {
  rcli set "$(key)" v
  for opts in "IFEQ" "IFDNE" "FOO v" "IFEQ v IFNE w" "IFEQ v IFEQ v" "IFEQ v extra" \
    "NX" "XX" "GET" "KEEPTTL" "EX 10" "PX abc"; do
    run rcli delex "$(key)" $opts
    [ "$output" = "ERR syntax error" ] || { echo "DELEX k $opts: $output"; return 1; }
  done
  [ "$(rcli get "$(key)")" = "v" ]
}

@test "DELEX needs a key" {
  run rcli delex
  [ "$output" = "ERR wrong number of arguments for 'delex' command" ]
}
