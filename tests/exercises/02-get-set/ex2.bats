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
  run raw --expect 5 -- MSET "$(key a)" 1 "$(key b)" 2
  [ "$output" = "$(printf '+OK\r\n')" ]
  [ "$(rcli get "$(key a)")" = "1" ]
  [ "$(rcli get "$(key b)")" = "2" ]
}

@test "MGET a nosuch b is an array of 1, nil, 2, byte for byte" {
  rcli mset "$(key a)" 1 "$(key b)" 2
  run raw --expect 23 -- MGET "$(key a)" "$(key nosuch)" "$(key b)"
  [ "$output" = "$(printf '*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n')" ]
}

@test "in RESP3 a missing key in MGET is _" {
  rcli mset "$(key a)" 1
  run raw --close-expected < <(printf 'HELLO 3\r\nMGET %s %s\r\nQUIT\r\n' "$(key a)" "$(key nosuch)")
  [[ "$output" == *"$(printf '*2\r\n$1\r\n1\r\n_\r\n+OK\r\n')" ]]
}

@test "MSET with an odd number of arguments is an arity error and stores nothing" {
  rcli set "$(key a)" before
  run rcli mset "$(key a)" 1 "$(key b)"
  [ "$output" = "ERR wrong number of arguments for 'mset' command" ]
  [ "$(rcli get "$(key a)")" = "before" ]
  [ "$(rcli --no-raw get "$(key b)")" = "(nil)" ]
  run rcli mset "$(key a)"
  [ "$output" = "ERR wrong number of arguments for 'mset' command" ]
  run rcli mset
  [ "$output" = "ERR wrong number of arguments for 'mset' command" ]
}

@test "MGET without a key is an arity error" {
  run rcli mget
  [ "$output" = "ERR wrong number of arguments for 'mget' command" ]
}

@test "MSET overwrites, the last pair for a key wins, and DBSIZE counts new keys once" {
  before=$(rcli dbsize)
  rcli set "$(key a)" old
  run rcli mset "$(key a)" new "$(key b)" 1 "$(key b)" 2
  [ "$output" = "OK" ]
  [ "$(rcli get "$(key a)")" = "new" ]
  [ "$(rcli get "$(key b)")" = "2" ]
  [ "$(rcli dbsize)" -eq $((before + 2)) ]
}

@test "MSET and MGET are binary safe" {
  raw --expect 5 -- MSET "$(key a)" 'x\x00y' "$(key b)" '\r\n' >/dev/null
  run bash -c "$PYTHON $RAWIO $PORT --expect 21 -- MGET $(key a) $(key b) | od -An -c | tr -s ' '"
  [ "$output" = "$(printf '*2\r\n$3\r\nx\0y\r\n$2\r\n\r\n\r\n' | od -An -c | tr -s ' ')" ]
}

@test "MGET of one key is an array of one; of a repeated key, one element per argument" {
  rcli set "$(key a)" v
  run raw --expect 11 -- MGET "$(key a)"
  [ "$output" = "$(printf '*1\r\n$1\r\nv\r\n')" ]
  run raw --expect 25 -- MGET "$(key a)" "$(key a)" "$(key a)"
  [ "$output" = "$(printf '*3\r\n$1\r\nv\r\n$1\r\nv\r\n$1\r\nv\r\n')" ]
}

@test "a thousand pairs in one MSET, read back in order by one MGET" {
  p=$(key k) args=() keys=()
  for i in $(seq 1 1000); do args+=("$p$i" "v$i"); keys+=("$p$i"); done
  run rcli mset "${args[@]}"
  [ "$output" = "OK" ]
  run rcli mget "${keys[@]}"
  [ "$output" = "$(seq 1 1000 | sed 's/^/v/')" ]
}
