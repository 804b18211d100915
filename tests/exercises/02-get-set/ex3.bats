#!/usr/bin/env bats
# Grader for chapter 02, exercise 3: APPEND key value.
#
# APPEND answers the new length, creates a missing key, is binary safe, and
# is cheap: a million one-byte appends must finish in seconds, which a value
# that is copied whole on every append cannot do (it would copy half a
# terabyte). Whether INFO memory counts the spare room is for the reader of
# the solution: a black-box test cannot tell spare room from other memory.
#
# Run it: make exercise STEP=02 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "APPEND answers the new length: hello + ' world' is 11" {
  rcli set "$(key)" hello
  send_multibulk 5 APPEND "$(key)" " world"
  expect_bytes ':11\r\n'
  send get "$(key)"
  expect_reply "hello world"
}

@test "APPEND to a missing key creates it: APPEND new abc is 3" {
  before=$(rcli dbsize)
  send append "$(key)" abc
  expect_reply "3"
  send get "$(key)"
  expect_reply "abc"
  send dbsize
  expect_num DBSIZE "$output" -eq $((before + 1))
}

@test "an empty APPEND to a missing key creates an empty value and answers 0" {
  send append "$(key)" ""
  expect_reply "0"
  send_multibulk 6 GET "$(key)"
  expect_bytes '$0\r\n\r\n'
}

@test "APPEND is binary safe: NUL, CR and LF are appended as they are" {
  raw --expect 5 -- SET "$(key)" 'a\x00' >/dev/null
  raw --expect 4 -- APPEND "$(key)" '\r\nb' >/dev/null
  send_as "redis-cli GET $(key), the reply shown by od -c" bash -c "redis-cli -p $PORT get $(key) | od -An -c | tr -s ' '"
  expect_reply " a \0 \r \n b \n"
}

@test "SET after APPEND replaces the whole value" {
  rcli append "$(key)" "first part"
  rcli append "$(key)" ", second part"
  rcli set "$(key)" new
  send get "$(key)"
  expect_reply "new"
  send append "$(key)" "!"
  expect_reply "4"
}

@test "APPEND takes exactly a key and a value" {
  send append
  expect_reply "ERR wrong number of arguments for 'append' command"
  send append "$(key)"
  expect_reply "ERR wrong number of arguments for 'append' command"
  send append "$(key)" a b
  expect_reply "ERR wrong number of arguments for 'append' command"
}

@test "a million one-byte APPENDs finish in seconds and build the right value" {
  n=1000000
  # One APPEND first, so a server without APPEND fails here and fast.
  send append "$(key)" 0
  expect_reply "1"
  # Then the rest through one pipe: byte i is the digit i % 10.
  k=$(key)
  send_as "APPEND $k D for i = 1 .. $((n - 1)), D the digit i % 10, through redis-cli --pipe, within 20 s" \
    timeout 20 bash -c "awk -v n=$n -v k='$k' 'BEGIN { for (i = 1; i < n; i++) printf \"*3\r\n\$6\r\nAPPEND\r\n\$%d\r\n%s\r\n\$1\r\n%d\r\n\", length(k), k, i % 10 }' | redis-cli -p $PORT --pipe"
  expect_status 0
  expect_contains "errors: 0, replies: $((n - 1))"
  send_as "redis-cli GET $k, its first $n bytes hashed by md5sum" bash -c "redis-cli -p $PORT get '$k' | head -c $n | md5sum"
  expect_reply "$(awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "%d", i % 10 }' | md5sum)"
}
