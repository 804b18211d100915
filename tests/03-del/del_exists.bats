#!/usr/bin/env bats
# Chapter 03: DEL and EXISTS, variadic, and what their replies count.
# Grades any server: make grade STEP=03, or make test STEP=03 SERVER=path.
# Each test's name starts with its stage (tests/03-del/stages).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

# send_resp N ARGS...: ARGS as one RESP array on a new connection (rawio.py
# turns \x00 in an argument into a NUL byte), reading N bytes of reply.
send_resp() {
  local n=$1
  shift
  send_as "$* as a RESP array, \\x00 being a NUL byte" raw --expect "$n" -- "$@"
}

@test "03-1 DEL removes a key and answers 1" {
  rcli set "$(key)" v >/dev/null
  send del "$(key)"
  expect_reply "1"
  send_typed get "$(key)"
  expect_reply "(nil)"
}

@test "03-1 DEL of a missing key answers 0" {
  send del "$(key missing)"
  expect_reply "0"
}

@test "03-1 DEL counts only keys that existed, and a repeated key once" {
  rcli set "$(key a)" 1 >/dev/null
  rcli set "$(key b)" 2 >/dev/null
  send del "$(key a)" "$(key b)" "$(key missing)" "$(key a)"
  expect_reply "2"
}

@test "03-2 EXISTS counts every argument, so a key named twice counts twice" {
  rcli set "$(key a)" 1 >/dev/null
  rcli set "$(key b)" 2 >/dev/null
  send exists "$(key a)"
  expect_reply "1"
  send exists "$(key a)" "$(key a)" "$(key b)" "$(key missing)"
  expect_reply "3"
  send exists "$(key missing)"
  expect_reply "0"
}

@test "03-3 DEL and EXISTS need at least one key" {
  send del
  expect_reply "ERR wrong number of arguments for 'del' command"
  send exists
  expect_reply "ERR wrong number of arguments for 'exists' command"
}

@test "03-4 DEL lowers DBSIZE by what it removed" {
  rcli set "$(key a)" 1 >/dev/null
  rcli set "$(key b)" 2 >/dev/null
  before=$(rcli dbsize)
  rcli del "$(key a)" "$(key b)" "$(key c)" >/dev/null
  send dbsize
  expect_num "DBSIZE after DEL of two of its $before keys and a missing one" "$output" -eq $((before - 2))
}

@test "03-1 a deleted key can be set again" {
  rcli set "$(key)" old >/dev/null
  rcli del "$(key)" >/dev/null
  rcli set "$(key)" new >/dev/null
  send get "$(key)"
  expect_reply "new"
}

@test "03-2 binary keys: DEL and EXISTS match the exact bytes, NUL included" {
  k="a\\x00b$(key)"
  send_resp 5 SET "$k" v
  expect_bytes '+OK\r\n'
  send_resp 4 EXISTS "a$(key)" "a\\x00$(key)" "a\\x00bX$(key)"
  expect_bytes ':0\r\n'
  send_resp 4 EXISTS "$k"
  expect_bytes ':1\r\n'
  send_resp 4 DEL "$k"
  expect_bytes ':1\r\n'
  send_resp 4 EXISTS "$k"
  expect_bytes ':0\r\n'
}

@test "03-4 deleting many keys in one DEL frees them: DBSIZE back to where it was" {
  before=$(rcli dbsize)
  # The names as key() makes them, made by one seq: a shell loop of 5000
  # steps takes seconds under bats, which traces every command.
  mapfile -t keys < <(seq -f "$(key "")%g" 1 5000)
  printf '%s\n' "${keys[@]}" | awk '{ printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length($0), $0 }' | rcli --pipe >/dev/null
  send dbsize
  expect_num "DBSIZE after SET of 5000 new keys, from $before" "$output" -eq $((before + 5000))
  send_as "redis-cli DEL $(key 1) ... $(key 5000)" rcli del "${keys[@]}"
  expect_reply "5000"
  send dbsize
  expect_num "DBSIZE after DEL of those 5000 keys" "$output" -eq "$before"
}
