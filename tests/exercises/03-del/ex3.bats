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
  run raw --expect 5 -- RENAME "$(key a)" "$(key b)"
  [ "$output" = "$(printf '+OK\r\n')" ]
  [ "$(rcli get "$(key b)")" = "hello" ]
  [ "$(rcli exists "$(key a)")" = "0" ]
  [ "$(rcli dbsize)" -eq "$before" ]
}

@test "RENAME of a missing key is ERR no such key, and changes nothing" {
  rcli set "$(key b)" keep
  run rcli rename "$(key nosuch)" "$(key b)"
  [ "$output" = "ERR no such key" ]
  [ "$(rcli get "$(key b)")" = "keep" ]
  run rcli rename "$(key nosuch)" "$(key nosuch)"
  [ "$output" = "ERR no such key" ]
}

@test "RENAME onto an existing key replaces it: one key fewer" {
  rcli set "$(key a)" new
  rcli set "$(key b)" old
  before=$(rcli dbsize)
  run rcli rename "$(key a)" "$(key b)"
  [ "$output" = "OK" ]
  [ "$(rcli get "$(key b)")" = "new" ]
  [ "$(rcli dbsize)" -eq $((before - 1)) ]
}

@test "RENAME k k answers OK and keeps the value, byte for byte" {
  head -c 1000000 /dev/urandom >"$BATS_TEST_TMPDIR/v"
  rcli -x set "$(key)" <"$BATS_TEST_TMPDIR/v" >/dev/null
  before=$(rcli dbsize)
  for _ in 1 2 3; do
    run rcli rename "$(key)" "$(key)"
    [ "$output" = "OK" ]
  done
  rcli get "$(key)" | head -c 1000000 | cmp - "$BATS_TEST_TMPDIR/v"
  [ "$(rcli dbsize)" -eq "$before" ]
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
  [ $((after - before)) -lt 500000 ]
}

@test "keys are binary safe in RENAME" {
  raw --expect 5 -- SET 'a\x00\r\n'"$(key)" v >/dev/null
  run raw --expect 5 -- RENAME 'a\x00\r\n'"$(key)" 'b\x00\r\n'"$(key)"
  [ "$output" = "$(printf '+OK\r\n')" ]
  run raw --expect 7 -- GET 'b\x00\r\n'"$(key)"
  [ "$output" = "$(printf '$1\r\nv\r\n')" ]
}

@test "RENAMENX answers 1 and renames when newkey is free" {
  rcli set "$(key a)" v
  run raw --expect 4 -- RENAMENX "$(key a)" "$(key b)"
  [ "$output" = "$(printf ':1\r\n')" ]
  [ "$(rcli get "$(key b)")" = "v" ]
  [ "$(rcli exists "$(key a)")" = "0" ]
}

@test "RENAMENX answers 0 and changes nothing when newkey exists" {
  rcli set "$(key a)" one
  rcli set "$(key b)" two
  run raw --expect 4 -- RENAMENX "$(key a)" "$(key b)"
  [ "$output" = "$(printf ':0\r\n')" ]
  [ "$(rcli get "$(key a)")" = "one" ]
  [ "$(rcli get "$(key b)")" = "two" ]
}

@test "RENAMENX k k is 0; RENAMENX of a missing key is ERR no such key" {
  rcli set "$(key)" v
  run rcli renamenx "$(key)" "$(key)"
  [ "$output" = "0" ]
  [ "$(rcli get "$(key)")" = "v" ]
  run rcli renamenx "$(key nosuch)" "$(key other)"
  [ "$output" = "ERR no such key" ]
  run rcli renamenx "$(key nosuch)" "$(key)"
  [ "$output" = "ERR no such key" ]
}

@test "RENAME and RENAMENX take exactly two keys" {
  run rcli rename "$(key)"
  [ "$output" = "ERR wrong number of arguments for 'rename' command" ]
  run rcli rename a b c
  [ "$output" = "ERR wrong number of arguments for 'rename' command" ]
  run rcli renamenx "$(key)"
  [ "$output" = "ERR wrong number of arguments for 'renamenx' command" ]
  run rcli renamenx a b c
  [ "$output" = "ERR wrong number of arguments for 'renamenx' command" ]
}
