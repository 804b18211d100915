#!/usr/bin/env bats
# Grader for chapter 03, exercise 3: RENAME and RENAMENX.
#
#   RENAME key newkey
#   RENAMENX key newkey
#
# RENAME answers OK, or "ERR no such key"; RENAME k k is OK when k exists and
# keeps its value. RENAMENX answers 1, or 0 when newkey exists (so RENAMENX
# k k is 0), or "ERR no such key". Whatever newkey held is replaced, and its
# value freed.
#
# Run it: make exercise STEP=03 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

used_memory() { rcli info memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

@test "RENAME moves the value to the new name and answers OK" {
  rcli set "$(key a)" hello
  before=$(rcli dbsize)
  send_multibulk 5 RENAME "$(key a)" "$(key b)"
  expect_bytes '+OK\r\n'
  send get "$(key b)"
  expect_reply "hello"
  send exists "$(key a)"
  expect_reply "0"
  send dbsize
  expect_num DBSIZE "$output" -eq "$before"
}

@test "RENAME of a missing key is ERR no such key, and changes nothing" {
  rcli set "$(key b)" keep
  send rename "$(key nosuch)" "$(key b)"
  expect_reply "ERR no such key"
  send get "$(key b)"
  expect_reply "keep"
  send rename "$(key nosuch)" "$(key nosuch)"
  expect_reply "ERR no such key"
}

@test "RENAME onto an existing key replaces it: one key fewer" {
  rcli set "$(key a)" new
  rcli set "$(key b)" old
  before=$(rcli dbsize)
  send rename "$(key a)" "$(key b)"
  expect_reply "OK"
  send get "$(key b)"
  expect_reply "new"
  send dbsize
  expect_num DBSIZE "$output" -eq $((before - 1))
}

@test "RENAME k k answers OK and keeps the value, byte for byte" {
  head -c 1000000 /dev/urandom >"$BATS_TEST_TMPDIR/v"
  rcli -x set "$(key)" <"$BATS_TEST_TMPDIR/v" >/dev/null
  before=$(rcli dbsize)
  for _ in 1 2 3; do
    send rename "$(key)" "$(key)"
    expect_reply "OK"
  done
  send_as "redis-cli GET $(key), its first 1000000 bytes compared by cmp with the 1 MB value set" \
    bash -c "redis-cli -p $PORT get '$(key)' | head -c 1000000 | cmp - '$BATS_TEST_TMPDIR/v'"
  expect_status 0
  send dbsize
  expect_num DBSIZE "$output" -eq "$before"
}

@test "RENAME onto an existing key frees the value it replaces" {
  head -c 1000000 /dev/zero | tr '\0' 'x' >"$BATS_TEST_TMPDIR/mb"
  rcli -x set "$(key dst)" <"$BATS_TEST_TMPDIR/mb" >/dev/null
  before=$(used_memory)
  for i in $(seq 1 10); do
    rcli -x set "$(key src)" <"$BATS_TEST_TMPDIR/mb" >/dev/null
    rcli rename "$(key src)" "$(key dst)" >/dev/null
  done
  after=$(used_memory)
  SENT="redis-cli INFO memory before and after ten RENAME src dst, each over a 1 MB value"
  expect_num "used_memory growth (after - before, $after - $before)" $((after - before)) -lt 500000
}

@test "keys are binary safe in RENAME" {
  raw --expect 5 -- SET 'a\x00\r\n'"$(key)" v >/dev/null
  send_multibulk 5 RENAME 'a\x00\r\n'"$(key)" 'b\x00\r\n'"$(key)"
  expect_bytes '+OK\r\n'
  send_multibulk 7 GET 'b\x00\r\n'"$(key)"
  expect_bytes '$1\r\nv\r\n'
}

@test "RENAMENX answers 1 and renames when newkey is free" {
  rcli set "$(key a)" v
  send_multibulk 4 RENAMENX "$(key a)" "$(key b)"
  expect_bytes ':1\r\n'
  send get "$(key b)"
  expect_reply "v"
  send exists "$(key a)"
  expect_reply "0"
}

@test "RENAMENX answers 0 and changes nothing when newkey exists" {
  rcli set "$(key a)" one
  rcli set "$(key b)" two
  send_multibulk 4 RENAMENX "$(key a)" "$(key b)"
  expect_bytes ':0\r\n'
  send get "$(key a)"
  expect_reply "one"
  send get "$(key b)"
  expect_reply "two"
}

@test "RENAMENX k k is 0; RENAMENX of a missing key is ERR no such key" {
  rcli set "$(key)" v
  send renamenx "$(key)" "$(key)"
  expect_reply "0"
  send get "$(key)"
  expect_reply "v"
  send renamenx "$(key nosuch)" "$(key other)"
  expect_reply "ERR no such key"
  send renamenx "$(key nosuch)" "$(key)"
  expect_reply "ERR no such key"
}

@test "RENAME and RENAMENX take exactly two keys" {
  send rename "$(key)"
  expect_reply "ERR wrong number of arguments for 'rename' command"
  send rename a b c
  expect_reply "ERR wrong number of arguments for 'rename' command"
  send renamenx "$(key)"
  expect_reply "ERR wrong number of arguments for 'renamenx' command"
  send renamenx a b c
  expect_reply "ERR wrong number of arguments for 'renamenx' command"
}
