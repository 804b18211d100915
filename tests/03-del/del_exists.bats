#!/usr/bin/env bats
# Chapter 03: DEL and EXISTS, variadic, and what their replies count.

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "DEL removes a key and answers 1" {
  rcli set "$(key)" v
  run rcli del "$(key)"
  [ "$output" = "1" ]
  run rcli --no-raw get "$(key)"
  [ "$output" = "(nil)" ]
}

@test "DEL of a missing key answers 0" {
  run rcli del "$(key missing)"
  [ "$output" = "0" ]
}

@test "DEL counts only keys that existed, and a repeated key once" {
  rcli set "$(key a)" 1
  rcli set "$(key b)" 2
  run rcli del "$(key a)" "$(key b)" "$(key missing)" "$(key a)"
  [ "$output" = "2" ]
}

@test "EXISTS counts every argument, so a key named twice counts twice" {
  rcli set "$(key a)" 1
  rcli set "$(key b)" 2
  run rcli exists "$(key a)"
  [ "$output" = "1" ]
  run rcli exists "$(key a)" "$(key a)" "$(key b)" "$(key missing)"
  [ "$output" = "3" ]
  run rcli exists "$(key missing)"
  [ "$output" = "0" ]
}

@test "DEL and EXISTS need at least one key" {
  run rcli del
  [ "$output" = "ERR wrong number of arguments for 'del' command" ]
  run rcli exists
  [ "$output" = "ERR wrong number of arguments for 'exists' command" ]
}

@test "DEL lowers DBSIZE by what it removed" {
  rcli set "$(key a)" 1
  rcli set "$(key b)" 2
  before=$(rcli dbsize)
  rcli del "$(key a)" "$(key b)" "$(key c)"
  [ "$(rcli dbsize)" -eq $((before - 2)) ]
}

@test "a deleted key can be set again" {
  rcli set "$(key)" old
  rcli del "$(key)"
  rcli set "$(key)" new
  run rcli get "$(key)"
  [ "$output" = "new" ]
}

@test "binary keys: DEL and EXISTS match the exact bytes, NUL included" {
  k="a\\x00b$(key)"
  run raw --expect 5 -- SET "$k" v
  [ "$output" = "$(printf '+OK\r\n')" ]
  run raw --expect 4 -- EXISTS "a$(key)" "a\\x00$(key)" "a\\x00bX$(key)"
  [ "$output" = "$(printf ':0\r\n')" ]
  run raw --expect 4 -- EXISTS "$k"
  [ "$output" = "$(printf ':1\r\n')" ]
  run raw --expect 4 -- DEL "$k"
  [ "$output" = "$(printf ':1\r\n')" ]
  run raw --expect 4 -- EXISTS "$k"
  [ "$output" = "$(printf ':0\r\n')" ]
}

@test "deleting many keys in one DEL frees them: DBSIZE back to where it was" {
  before=$(rcli dbsize)
  keys=()
  for i in $(seq 1 5000); do keys+=("$(key "$i")"); done
  printf '%s\n' "${keys[@]}" | awk '{ printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length($0), $0 }' | rcli --pipe >/dev/null
  [ "$(rcli dbsize)" -eq $((before + 5000)) ]
  run rcli del "${keys[@]}"
  [ "$output" = "5000" ]
  [ "$(rcli dbsize)" -eq "$before" ]
}
