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
  run raw --expect 4 -- COPY "$(key src)" "$(key dst)"
  [ "$output" = "$(printf ':1\r\n')" ]
  [ "$(rcli get "$(key src)")" = "hello" ]
  [ "$(rcli get "$(key dst)")" = "hello" ]
  [ "$(rcli dbsize)" -eq $((before + 1)) ]
}

@test "COPY of a missing source answers 0 and creates nothing" {
  run raw --expect 4 -- COPY "$(key nosuch)" "$(key dst)"
  [ "$output" = "$(printf ':0\r\n')" ]
  run rcli exists "$(key dst)"
  [ "$output" = "0" ]
}

@test "COPY onto an existing key answers 0 and changes nothing, unless REPLACE" {
  rcli set "$(key src)" new
  rcli set "$(key dst)" old
  run rcli copy "$(key src)" "$(key dst)"
  [ "$output" = "0" ]
  [ "$(rcli get "$(key dst)")" = "old" ]
  before=$(rcli dbsize)
  run rcli copy "$(key src)" "$(key dst)" REPLACE
  [ "$output" = "1" ]
  [ "$(rcli get "$(key dst)")" = "new" ]
  [ "$(rcli dbsize)" -eq "$before" ]
  run rcli copy "$(key src)" "$(key dst)" replace
  [ "$output" = "1" ]
}

@test "COPY k k is an error, whether k exists or not" {
  run rcli copy "$(key missing)" "$(key missing)"
  [ "$output" = "ERR source and destination objects are the same" ]
  rcli set "$(key)" v
  run rcli copy "$(key)" "$(key)"
  [ "$output" = "ERR source and destination objects are the same" ]
  run rcli copy "$(key)" "$(key)" replace
  [ "$output" = "ERR source and destination objects are the same" ]
}

@test "an unknown option is a syntax error, checked before anything else" {
  rcli set "$(key src)" v
  run rcli copy "$(key src)" "$(key dst)" foo
  [ "$output" = "ERR syntax error" ]
  run rcli copy "$(key src)" "$(key src)" foo
  [ "$output" = "ERR syntax error" ]
  run rcli copy "$(key src)" "$(key dst)" replace foo
  [ "$output" = "ERR syntax error" ]
  run rcli exists "$(key dst)"
  [ "$output" = "0" ]
}

@test "the copy is independent: changing or deleting the source leaves it" {
  rcli set "$(key src)" one
  rcli copy "$(key src)" "$(key dst)"
  rcli set "$(key src)" two
  [ "$(rcli get "$(key dst)")" = "one" ]
  rcli del "$(key src)"
  [ "$(rcli get "$(key dst)")" = "one" ]
  rcli set "$(key dst)" three
  run rcli exists "$(key src)"
  [ "$output" = "0" ]
}

@test "COPY is binary safe, in keys and values" {
  raw --expect 5 -- SET 'k\x00\r\n'"$(key src)" 'v\x00\r\n' >/dev/null
  run raw --expect 4 -- COPY 'k\x00\r\n'"$(key src)" 'k\x00\r\n'"$(key dst)"
  [ "$output" = "$(printf ':1\r\n')" ]
  run bash -c "$PYTHON $RAWIO $PORT --expect 10 -- GET 'k\\x00\\r\\n$(key dst)' | od -An -c | tr -s ' '"
  [ "$output" = "$(printf '$4\r\nv\0\r\n\r\n' | od -An -c | tr -s ' ')" ]
}

@test "COPY REPLACE frees the value it overwrites: used_memory does not grow" {
  head -c 1000000 /dev/zero | tr '\0' 'x' | rcli -x set "$(key src)" >/dev/null
  rcli copy "$(key src)" "$(key dst)" >/dev/null
  before=$(used_memory)
  for _ in $(seq 1 10); do rcli copy "$(key src)" "$(key dst)" replace >/dev/null; done
  after=$(used_memory)
  [ $((after - before)) -lt 500000 ]
  [ "$(rcli get "$(key dst)" | wc -c)" -eq 1000001 ]
}

@test "COPY takes at least a source and a destination" {
  run rcli copy "$(key)"
  [ "$output" = "ERR wrong number of arguments for 'copy' command" ]
  run rcli copy
  [ "$output" = "ERR wrong number of arguments for 'copy' command" ]
}
