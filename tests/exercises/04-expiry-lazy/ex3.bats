#!/usr/bin/env bats
# Grader for chapter 04, exercise 3: GETEX.
#
#   GETEX key [EX seconds | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]
#
# The value, like GET, and the TTL changed as the option says. Redis's order
# of checks: options first (a syntax error whatever the key), then the key
# (a missing key is nil before the number is read), then the number (zero or
# less, or an overflow, is "invalid expire time in 'getex' command"). An
# EXAT/PXAT already past answers the value and deletes the key.
#
# Run it: make exercise STEP=04 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "GETEX without an option answers the value and leaves the TTL alone" {
  rcli set "$(key plain)" v
  send_multibulk 7 GETEX "$(key plain)"
  expect_bytes '$1\r\nv\r\n'
  send_typed ttl "$(key plain)"
  expect_reply "(integer) -1"
  rcli set "$(key ttl)" v ex 50
  send getex "$(key ttl)"
  expect_reply "v"
  expect_ttl_about "$(key ttl)" 50
}

@test "GETEX EX and PX set a TTL relative to now" {
  rcli set "$(key)" v
  send getex "$(key)" EX 100
  expect_reply "v"
  expect_ttl_about "$(key)" 100
  send getex "$(key)" px 50000
  expect_reply "v"
  send pttl "$(key)"
  expect_num PTTL "$output" -gt 48000
  expect_num PTTL "$output" -le 50000
}

@test "GETEX EXAT and PXAT set an absolute expire time" {
  rcli set "$(key)" v
  at=$(($(date +%s) + 1000))
  send getex "$(key)" exat "$at"
  expect_reply "v"
  send_typed expiretime "$(key)"
  expect_reply "(integer) $at"
  send getex "$(key)" PXAT "${at}123"
  expect_reply "v"
  send_typed pexpiretime "$(key)"
  expect_reply "(integer) ${at}123"
}

@test "GETEX PERSIST answers the value and removes the TTL" {
  rcli set "$(key)" v ex 100
  send getex "$(key)" persist
  expect_reply "v"
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
}

@test "GETEX k PX 100: the key is gone after its time" {
  rcli set "$(key)" v
  rcli getex "$(key)" px 100
  sleep 0.3
  send_typed get "$(key)"
  expect_reply "(nil)"
}

@test "GETEX k EXAT 1 answers the value and deletes the key" {
  rcli set "$(key)" v
  send getex "$(key)" EXAT 1
  expect_reply "v"
  send_typed exists "$(key)"
  expect_reply "(integer) 0"
  rcli set "$(key)" v
  send getex "$(key)" pxat 1000
  expect_reply "v"
  send_typed exists "$(key)"
  expect_reply "(integer) 0"
}

@test "a missing key is nil before the number is checked" {
  send_multibulk 5 GETEX "$(key nosuch)" EX 0
  expect_bytes '$-1\r\n'
  send_typed getex "$(key nosuch)" EX abc
  expect_reply "(nil)"
  send_typed getex "$(key nosuch)"
  expect_reply "(nil)"
}

@test "an expired key is nil" {
  rcli set "$(key)" v px 100
  sleep 0.3
  send_typed getex "$(key)" ex 100
  expect_reply "(nil)"
  send_typed exists "$(key)"
  expect_reply "(integer) 0"
}

@test "on an existing key, zero or less is an invalid expire time, and nothing changes" {
  rcli set "$(key)" v ex 100
  for opt in "EX 0" "EX -1" "PX 0" "EXAT 0" "PXAT -5"; do
    send getex "$(key)" $opt
    expect_reply "ERR invalid expire time in 'getex' command"
  done
  expect_ttl_about "$(key)" 100
}

@test "a number that overflows is an invalid expire time; PXAT LLONG_MAX is valid" {
  rcli set "$(key)" v
  for opt in "EX 9223372036854775807" "PX 9223372036854775807" "EXAT 9223372036854775807"; do
    send getex "$(key)" $opt
    expect_reply "ERR invalid expire time in 'getex' command"
  done
  send getex "$(key)" PXAT 9223372036854775807
  expect_reply "v"
  send_typed pexpiretime "$(key)"
  expect_reply "(integer) 9223372036854775807"
}

@test "a number that is not an integer is ERR value is not an integer or out of range" {
  rcli set "$(key)" v
  send getex "$(key)" EX abc
  expect_reply "ERR value is not an integer or out of range"
  send getex "$(key)" PX 1.5
  expect_reply "ERR value is not an integer or out of range"
}

@test "two different options, a missing number, or an option of SET's is a syntax error" {
  rcli set "$(key)" v ex 100
  for opt in "EX 10 PX 10" "PXAT 1 EXAT 1" "PERSIST EX 10" "EX 10 PERSIST" "KEEPTTL" "NX" "EX" "PXAT" "foo"; do
    send getex "$(key)" $opt
    expect_reply "ERR syntax error"
  done
  expect_ttl_about "$(key)" 100
}

@test "the same option twice is allowed, and the last one wins" {
  rcli set "$(key)" v
  send getex "$(key)" EX 10 ex 20
  expect_reply "v"
  expect_ttl_about "$(key)" 20
  send getex "$(key)" PERSIST persist
  expect_reply "v"
  send_typed ttl "$(key)"
  expect_reply "(integer) -1"
}

@test "options are checked before the key: a missing key with a bad option is a syntax error" {
  send getex "$(key nosuch)" foo
  expect_reply "ERR syntax error"
  send getex "$(key nosuch)" EX 10 PX 10
  expect_reply "ERR syntax error"
}

@test "GETEX needs a key" {
  send getex
  expect_reply "ERR wrong number of arguments for 'getex' command"
}
