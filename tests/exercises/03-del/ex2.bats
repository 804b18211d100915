#!/usr/bin/env bats
# Grader for chapter 03, exercise 2: COPY source destination [REPLACE].
#
# 1 when copied; 0 when the source is missing or the destination exists
# without REPLACE; "ERR source and destination objects are the same" for
# COPY k k, even when k is missing; "ERR syntax error" for an unknown option,
# checked first. The copy is independent of its source, and REPLACE frees
# the value it overwrites.
#
# Run it: make exercise STEP=03 EX=2 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

used_memory() { rcli info memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

@test "COPY to a new key answers 1, and both keys hold the value" {
  rcli set "$(key src)" hello
  before=$(rcli dbsize)
  send_multibulk 4 COPY "$(key src)" "$(key dst)"
  expect_bytes ':1\r\n'
  send get "$(key src)"
  expect_reply "hello"
  send get "$(key dst)"
  expect_reply "hello"
  send dbsize
  expect_num DBSIZE "$output" -eq $((before + 1))
}

@test "COPY of a missing source answers 0 and creates nothing" {
  send_multibulk 4 COPY "$(key nosuch)" "$(key dst)"
  expect_bytes ':0\r\n'
  send exists "$(key dst)"
  expect_reply "0"
}

@test "COPY onto an existing key answers 0 and changes nothing, unless REPLACE" {
  rcli set "$(key src)" new
  rcli set "$(key dst)" old
  send copy "$(key src)" "$(key dst)"
  expect_reply "0"
  send get "$(key dst)"
  expect_reply "old"
  before=$(rcli dbsize)
  send copy "$(key src)" "$(key dst)" REPLACE
  expect_reply "1"
  send get "$(key dst)"
  expect_reply "new"
  send dbsize
  expect_num DBSIZE "$output" -eq "$before"
  send copy "$(key src)" "$(key dst)" replace
  expect_reply "1"
}

@test "COPY k k is an error, whether k exists or not" {
  send copy "$(key missing)" "$(key missing)"
  expect_reply "ERR source and destination objects are the same"
  rcli set "$(key)" v
  send copy "$(key)" "$(key)"
  expect_reply "ERR source and destination objects are the same"
  send copy "$(key)" "$(key)" replace
  expect_reply "ERR source and destination objects are the same"
}

@test "an unknown option is a syntax error, checked before anything else" {
  rcli set "$(key src)" v
  send copy "$(key src)" "$(key dst)" foo
  expect_reply "ERR syntax error"
  send copy "$(key src)" "$(key src)" foo
  expect_reply "ERR syntax error"
  send copy "$(key src)" "$(key dst)" replace foo
  expect_reply "ERR syntax error"
  send exists "$(key dst)"
  expect_reply "0"
}

@test "the copy is independent: changing or deleting the source leaves it" {
  rcli set "$(key src)" one
  rcli copy "$(key src)" "$(key dst)"
  rcli set "$(key src)" two
  send get "$(key dst)"
  expect_reply "one"
  rcli del "$(key src)"
  send get "$(key dst)"
  expect_reply "one"
  rcli set "$(key dst)" three
  send exists "$(key src)"
  expect_reply "0"
}

@test "COPY is binary safe, in keys and values" {
  raw --expect 5 -- SET 'k\x00\r\n'"$(key src)" 'v\x00\r\n' >/dev/null
  send_multibulk 4 COPY 'k\x00\r\n'"$(key src)" 'k\x00\r\n'"$(key dst)"
  expect_bytes ':1\r\n'
  send_as "GET k\\x00\\r\\n$(key dst) as one multibulk request (rawio.py --expect 10), the reply shown by od -c" \
    bash -c "$PYTHON $RAWIO $PORT --expect 10 -- GET 'k\\x00\\r\\n$(key dst)' | od -An -c | tr -s ' '"
  expect_reply "$(printf '$4\r\nv\0\r\n\r\n' | od -An -c | tr -s ' ')"
}

@test "COPY REPLACE frees the value it overwrites: used_memory does not grow" {
  head -c 1000000 /dev/zero | tr '\0' 'x' | rcli -x set "$(key src)" >/dev/null
  rcli copy "$(key src)" "$(key dst)" >/dev/null
  before=$(used_memory)
  for _ in $(seq 1 10); do rcli copy "$(key src)" "$(key dst)" replace >/dev/null; done
  after=$(used_memory)
  SENT="redis-cli INFO memory before and after ten COPY src dst REPLACE of a 1 MB value"
  expect_num "used_memory growth (after - before, $after - $before)" $((after - before)) -lt 500000
  send_as "redis-cli GET $(key dst), the reply's bytes counted by wc -c" bash -c "redis-cli -p $PORT get '$(key dst)' | wc -c"
  expect_num "bytes of the reply, its newline included" "$output" -eq 1000001
}

@test "COPY takes at least a source and a destination" {
  send copy "$(key)"
  expect_reply "ERR wrong number of arguments for 'copy' command"
  send copy
  expect_reply "ERR wrong number of arguments for 'copy' command"
}
