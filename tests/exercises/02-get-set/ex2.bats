#!/usr/bin/env bats
# Grader for chapter 02, exercise 2: MSET and MGET.
#
#   MSET key value [key value ...]
#   MGET key [key ...]
#
# MSET answers OK, or the arity error for an odd number of arguments, and
# then stores nothing. MGET answers an array with one element per key, a
# null for a missing key ($-1 in RESP2, _ in RESP3).
#
# Run it: make exercise STEP=02 EX=2 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "MSET a 1 b 2 answers OK and stores both" {
  send_multibulk 5 MSET "$(key a)" 1 "$(key b)" 2
  expect_bytes '+OK\r\n'
  send get "$(key a)"
  expect_reply "1"
  send get "$(key b)"
  expect_reply "2"
}

@test "MGET a nosuch b is an array of 1, nil, 2, byte for byte" {
  rcli mset "$(key a)" 1 "$(key b)" 2
  send_multibulk 23 MGET "$(key a)" "$(key nosuch)" "$(key b)"
  expect_bytes '*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n'
}

@test "in RESP3 a missing key in MGET is _" {
  rcli mset "$(key a)" 1
  send_raw "HELLO 3\r\nMGET $(key a) $(key nosuch)\r\nQUIT\r\n" --close-expected
  expect_suffix "$(printf '*2\r\n$1\r\n1\r\n_\r\n+OK\r\n')"
}

@test "MSET with an odd number of arguments is an arity error and stores nothing" {
  rcli set "$(key a)" before
  send mset "$(key a)" 1 "$(key b)"
  expect_reply "ERR wrong number of arguments for 'mset' command"
  send get "$(key a)"
  expect_reply "before"
  send_typed get "$(key b)"
  expect_reply "(nil)"
  send mset "$(key a)"
  expect_reply "ERR wrong number of arguments for 'mset' command"
  send mset
  expect_reply "ERR wrong number of arguments for 'mset' command"
}

@test "MGET without a key is an arity error" {
  send mget
  expect_reply "ERR wrong number of arguments for 'mget' command"
}

@test "MSET overwrites, the last pair for a key wins, and DBSIZE counts new keys once" {
  before=$(rcli dbsize)
  rcli set "$(key a)" old
  send mset "$(key a)" new "$(key b)" 1 "$(key b)" 2
  expect_reply "OK"
  send get "$(key a)"
  expect_reply "new"
  send get "$(key b)"
  expect_reply "2"
  send dbsize
  expect_num DBSIZE "$output" -eq $((before + 2))
}

@test "MSET and MGET are binary safe" {
  raw --expect 5 -- MSET "$(key a)" 'x\x00y' "$(key b)" '\r\n' >/dev/null
  send_as "MGET $(key a) $(key b) as one multibulk request (rawio.py --expect 21), the reply shown by od -c" \
    bash -c "$PYTHON $RAWIO $PORT --expect 21 -- MGET $(key a) $(key b) | od -An -c | tr -s ' '"
  expect_reply "$(printf '*2\r\n$3\r\nx\0y\r\n$2\r\n\r\n\r\n' | od -An -c | tr -s ' ')"
}

@test "MGET of one key is an array of one; of a repeated key, one element per argument" {
  rcli set "$(key a)" v
  send_multibulk 11 MGET "$(key a)"
  expect_bytes '*1\r\n$1\r\nv\r\n'
  send_multibulk 25 MGET "$(key a)" "$(key a)" "$(key a)"
  expect_bytes '*3\r\n$1\r\nv\r\n$1\r\nv\r\n$1\r\nv\r\n'
}

@test "a thousand pairs in one MSET, read back in order by one MGET" {
  p=$(key k) args=() keys=()
  for i in $(seq 1 1000); do args+=("$p$i" "v$i"); keys+=("$p$i"); done
  send mset "${args[@]}"
  expect_reply "OK"
  send mget "${keys[@]}"
  expect_reply "$(seq 1 1000 | sed 's/^/v/')"
}
