#!/usr/bin/env bats
# Grader for chapter 04, exercise 2: GETDEL key.
#
# The value, and the key is deleted; nil when it is missing or expired. It
# counts a keyspace hit (or miss) in INFO stats, as GET does: that is what a
# real Redis does.
#
# Run it: make exercise STEP=04 EX=2 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

stat() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }
used_memory() { rcli info memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

@test "GETDEL answers the value and deletes the key" {
  rcli set "$(key)" hello
  before=$(rcli dbsize)
  run raw --expect 11 -- GETDEL "$(key)"
  [ "$output" = "$(printf '$5\r\nhello\r\n')" ]
  run r get "$(key)"
  [ "$output" = "(nil)" ]
  [ "$(rcli dbsize)" -eq $((before - 1)) ]
}

@test "GETDEL of a missing key is nil" {
  run raw --expect 5 -- GETDEL "$(key nosuch)"
  [ "$output" = "$(printf '$-1\r\n')" ]
}

@test "GETDEL of an expired key is nil, and the key is gone" {
  rcli set "$(key)" v px 100
  sleep 0.3
  run r getdel "$(key)"
  [ "$output" = "(nil)" ]
  run r exists "$(key)"
  [ "$output" = "(integer) 0" ]
}

@test "GETDEL of a key with a TTL deletes the key and its TTL" {
  rcli set "$(key)" v ex 100
  run rcli getdel "$(key)"
  [ "$output" = "v" ]
  run r ttl "$(key)"
  [ "$output" = "(integer) -2" ]
  rcli set "$(key)" again
  run r ttl "$(key)"
  [ "$output" = "(integer) -1" ]
}

@test "GETDEL counts a hit for a key it finds and a miss for one it does not" {
  rcli set "$(key)" v
  hits=$(stat keyspace_hits) misses=$(stat keyspace_misses)
  rcli getdel "$(key)"
  [ "$(stat keyspace_hits)" -eq $((hits + 1)) ]
  [ "$(stat keyspace_misses)" -eq "$misses" ]
  rcli getdel "$(key)"
  [ "$(stat keyspace_hits)" -eq $((hits + 1)) ]
  [ "$(stat keyspace_misses)" -eq $((misses + 1)) ]
}

@test "GETDEL returns a large value byte for byte, then frees it" {
  head -c 4000000 /dev/urandom >"$BATS_TEST_TMPDIR/v"
  rcli -x set "$(key)" <"$BATS_TEST_TMPDIR/v" >/dev/null
  before=$(used_memory)
  rcli getdel "$(key)" | head -c 4000000 | cmp - "$BATS_TEST_TMPDIR/v"
  after=$(used_memory)
  [ $((before - after)) -gt 3000000 ]
}

@test "GETDEL takes exactly one key" {
  run rcli getdel
  [ "$output" = "ERR wrong number of arguments for 'getdel' command" ]
  run rcli getdel a b
  [ "$output" = "ERR wrong number of arguments for 'getdel' command" ]
}
