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
  send_multibulk 11 GETDEL "$(key)"
  expect_bytes '$5\r\nhello\r\n'
  send_typed get "$(key)"
  expect_reply "(nil)"
  send dbsize
  expect_num DBSIZE "$output" -eq $((before - 1))
}

@test "GETDEL of a missing key is nil" {
  send_multibulk 5 GETDEL "$(key nosuch)"
  expect_bytes '$-1\r\n'
}

@test "GETDEL of an expired key is nil, and the key is gone" {
  rcli set "$(key)" v px 100
  sleep 0.3
  send_typed getdel "$(key)"
  expect_reply "(nil)"
  send_typed exists "$(key)"
  expect_reply "(integer) 0"
}

@test "GETDEL of a key with a TTL deletes the key and its TTL" {
  rcli set "$(key)" v ex 100
  send getdel "$(key)"
  expect_reply "v"
  send_typed ttl "$(key)"
  expect_reply "(integer) -2"
  rcli set "$(key)" again
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
}

@test "GETDEL counts a hit for a key it finds and a miss for one it does not" {
  rcli set "$(key)" v
  hits=$(stat keyspace_hits) misses=$(stat keyspace_misses)
  rcli getdel "$(key)"
  SENT="redis-cli GETDEL $(key) of a key that exists, then INFO stats"
  expect_num keyspace_hits "$(stat keyspace_hits)" -eq $((hits + 1))
  expect_num keyspace_misses "$(stat keyspace_misses)" -eq "$misses"
  rcli getdel "$(key)"
  SENT="redis-cli GETDEL $(key) again, of a key now missing, then INFO stats"
  expect_num keyspace_hits "$(stat keyspace_hits)" -eq $((hits + 1))
  expect_num keyspace_misses "$(stat keyspace_misses)" -eq $((misses + 1))
}

@test "GETDEL returns a large value byte for byte, then frees it" {
  head -c 4000000 /dev/urandom >"$BATS_TEST_TMPDIR/v"
  rcli -x set "$(key)" <"$BATS_TEST_TMPDIR/v" >/dev/null
  before=$(used_memory)
  send_as "redis-cli GETDEL $(key), its first 4000000 bytes compared by cmp with the 4 MB value set" \
    bash -c "redis-cli -p $PORT getdel '$(key)' | head -c 4000000 | cmp - '$BATS_TEST_TMPDIR/v'"
  expect_status 0
  after=$(used_memory)
  SENT="redis-cli INFO memory before and after GETDEL of a 4 MB value"
  expect_num "used_memory freed (before - after, $before - $after)" $((before - after)) -gt 3000000
}

@test "GETDEL takes exactly one key" {
  send getdel
  expect_reply "ERR wrong number of arguments for 'getdel' command"
  send getdel a b
  expect_reply "ERR wrong number of arguments for 'getdel' command"
}
