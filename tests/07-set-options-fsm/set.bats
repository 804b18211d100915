#!/usr/bin/env bats
# Chapter 07: SET's whole grammar and every reply form, and DIGEST, through
# redis-cli. The IF* conditions and DIGEST are Redis 8.4 features: against an
# older real Redis those tests are skipped.

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

@test "SET answers OK, and nil when NX or XX does not hold" {
  run r set "$(key)" v nx
  [ "$output" = "OK" ]
  run r set "$(key)" w nx
  [ "$output" = "(nil)" ]
  run r set "$(key missing)" w xx
  [ "$output" = "(nil)" ]
  run r set "$(key)" w xx
  [ "$output" = "OK" ]
  run r get "$(key)"
  [ "$output" = '"w"' ]
}

@test "GET returns the old value, or nil, whether or not the write happens" {
  run r set "$(key)" one get
  [ "$output" = "(nil)" ]
  run r set "$(key)" two get
  [ "$output" = '"one"' ]
  run r set "$(key)" three nx get
  [ "$output" = '"two"' ]
  run r get "$(key)"
  [ "$output" = '"two"' ]
  run r set "$(key missing)" v xx get
  [ "$output" = "(nil)" ]
  run r exists "$(key missing)"
  [ "$output" = "(integer) 0" ]
}

@test "options in any order and any case" {
  run r set "$(key)" v Ex 100 gEt nX
  [ "$output" = "(nil)" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
  run r set "$(key)" w PX 50000 XX GET
  [ "$output" = '"v"' ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 50" ]
}

@test "EXAT and PXAT set absolute times; one in the past leaves no key" {
  at=$(( $(date +%s) + 1000 ))
  r set "$(key a)" v exat "$at"
  run r expiretime "$(key a)"
  [ "$output" = "(integer) $at" ]
  r set "$(key b)" v pxat "$((at * 1000 + 5))"
  run r pexpiretime "$(key b)"
  [ "$output" = "(integer) $((at * 1000 + 5))" ]
  r set "$(key c)" old
  run r set "$(key c)" v pxat 1 get
  [ "$output" = '"old"' ]
  run r exists "$(key c)"
  [ "$output" = "(integer) 0" ]
}

@test "KEEPTTL keeps the TTL; a plain SET drops it" {
  r set "$(key)" v ex 100
  r set "$(key)" w keepttl
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
  r set "$(key)" x
  run r ttl "$(key)"
  [ "$output" = "(integer) -1" ]
  run r set "$(key new)" v keepttl
  [ "$output" = "OK" ]
  run r ttl "$(key new)"
  [ "$output" = "(integer) -1" ]
}

@test "repeating an option is accepted and the last value wins, as in Redis" {
  r set "$(key)" v ex 10 ex 20
  run r ttl "$(key)"
  [ "$output" = "(integer) 20" ]
  run r set "$(key)" v nx nx
  [ "$output" = "(nil)" ]
  run r set "$(key)" w get get
  [ "$output" = '"v"' ]
}

@test "conflicting or unknown options are syntax errors, and change nothing" {
  r set "$(key)" keep ex 100
  for opts in "nx xx" "ex 10 px 10" "keepttl ex 10" "exat 1 pxat 1" "ex" "px" "foo" "ex 10 foo" "get keepttl px"; do
    run r set "$(key)" new $opts
    [ "$output" = "(error) ERR syntax error" ] || { echo "SET ... $opts -> $output"; false; }
  done
  run r get "$(key)"
  [ "$output" = '"keep"' ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
}

@test "bad expire values: not a number, zero, negative, overflow" {
  run r set "$(key)" v ex abc
  [ "$output" = "(error) ERR value is not an integer or out of range" ]
  for opts in "ex 0" "px -1" "exat 0" "pxat -5" "ex 10000000000000000" "px 9223372036854775807"; do
    run r set "$(key)" v $opts
    [ "$output" = "(error) ERR invalid expire time in 'set' command" ] || { echo "$opts -> $output"; false; }
  done
  # A syntax error anywhere wins over a bad number: the grammar is checked first.
  run r set "$(key)" v ex abc nx xx
  [ "$output" = "(error) ERR syntax error" ]
}

@test "IFEQ sets only when the value matches, and never creates the key" {
  needs_redis_84
  r set "$(key)" v
  run r set "$(key)" w ifeq nope
  [ "$output" = "(nil)" ]
  run r set "$(key)" w ifeq v
  [ "$output" = "OK" ]
  run r set "$(key missing)" w ifeq v
  [ "$output" = "(nil)" ]
  run r exists "$(key missing)"
  [ "$output" = "(integer) 0" ]
  run r set "$(key)" x ifeq w get ex 100
  [ "$output" = '"w"' ]
  run r ttl "$(key)"
  [ "$output" = "(integer) 100" ]
}

@test "IFNE sets when the value differs, and creates a missing key" {
  needs_redis_84
  r set "$(key)" v
  run r set "$(key)" w ifne v
  [ "$output" = "(nil)" ]
  run r set "$(key)" w ifne other
  [ "$output" = "OK" ]
  run r set "$(key new)" v ifne anything
  [ "$output" = "OK" ]
  run r get "$(key new)"
  [ "$output" = '"v"' ]
}

@test "DIGEST is XXH3-64 in 16 lowercase hex digits; nil for a missing key" {
  needs_redis_84
  r set "$(key)" "Hello world"
  run r digest "$(key)"
  [ "$output" = '"b6acb9d84a38ff74"' ]
  r set "$(key e)" ""
  run r digest "$(key e)"
  [ "$output" = '"2d06800538d394c2"' ]
  r set "$(key h)" hello
  run r digest "$(key h)"
  [ "$output" = '"9555e8555c62dcfd"' ]
  run r digest "$(key missing)"
  [ "$output" = "(nil)" ]
}

@test "IFDEQ and IFDNE compare digests, without regard to case" {
  needs_redis_84
  r set "$(key)" "Hello world"
  run r set "$(key)" w ifdeq 0000000000000000
  [ "$output" = "(nil)" ]
  run r set "$(key)" w ifdeq B6ACB9D84A38FF74
  [ "$output" = "OK" ]
  run r set "$(key missing)" v ifdeq b6acb9d84a38ff74
  [ "$output" = "(nil)" ]
  run r set "$(key missing)" v ifdne b6acb9d84a38ff74
  [ "$output" = "OK" ]
  run r set "$(key)" x ifdne "$(rcli digest "$(key)")"
  [ "$output" = "(nil)" ]
  run r set "$(key)" x ifdeq xyz
  [[ "$output" == *"must be exactly 16 hexadecimal characters"* ]]
}

@test "at most one condition: IF* options exclude NX, XX and each other" {
  needs_redis_84
  for opts in "ifeq a nx" "xx ifne a" "ifeq a ifeq b" "ifdeq 0000000000000000 ifdne 0000000000000000" "ifeq" "ifdne"; do
    run r set "$(key)" v $opts
    [ "$output" = "(error) ERR syntax error" ] || { echo "$opts -> $output"; false; }
  done
}

@test "DIGEST checks its arity" {
  needs_redis_84
  run r digest
  [ "$output" = "(error) ERR wrong number of arguments for 'digest' command" ]
}
