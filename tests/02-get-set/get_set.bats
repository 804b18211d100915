#!/usr/bin/env bats
# Chapter 02: the keyspace. GET, SET (plain form), DBSIZE, FLUSHALL, through
# the real redis-cli. Grades any server: SERVER=path make test STEP=02.

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "SET answers OK and GET returns the value" {
  run rcli set "$(key)" hello
  [ "$output" = "OK" ]
  run rcli get "$(key)"
  [ "$output" = "hello" ]
}

@test "GET of a missing key is nil" {
  run rcli --no-raw get "$(key never-set)"
  [ "$output" = "(nil)" ]
  run raw --expect 5 < <(printf 'GET %s\r\n' "$(key never-set)")
  [ "$output" = "$(printf '$-1\r\n')" ]
}

@test "SET overwrites, and the last value wins" {
  rcli set "$(key)" one
  rcli set "$(key)" two
  run rcli get "$(key)"
  [ "$output" = "two" ]
}

@test "an empty value is a value, not a missing key" {
  rcli set "$(key)" ""
  run raw --expect 6 < <(printf 'GET %s\r\n' "$(key)")
  [ "$output" = "$(printf '$0\r\n\r\n')" ]
}

@test "keys and values are binary safe: CR, LF and NUL inside" {
  printf 'v\r\n\0x' | rcli -x set "$(printf 'k\r\n\001')$(key)"
  run bash -c "redis-cli -p $PORT get \"\$(printf 'k\r\n\001')$(key)\" | od -An -c | tr -s ' '"
  [ "$output" = " v \r \n \0 x \n" ]
}

@test "a 10 MB value round-trips byte for byte" {
  f="$BATS_TEST_TMPDIR/big"
  head -c 10485760 /dev/urandom >"$f"
  run bash -c "redis-cli -p $PORT -x set $(key) <'$f'"
  [ "$output" = "OK" ]
  rcli get "$(key)" | head -c 10485760 | cmp - "$f"
}

@test "SET with an option this step does not know is a syntax error, and changes nothing" {
  rcli set "$(key)" before
  run rcli set "$(key)" after foo
  [ "$output" = "ERR syntax error" ]
  run rcli get "$(key)"
  [ "$output" = "before" ]
}

@test "GET and SET check their arity" {
  run rcli get
  [ "$output" = "ERR wrong number of arguments for 'get' command" ]
  run rcli get a b
  [ "$output" = "ERR wrong number of arguments for 'get' command" ]
  run rcli set onlykey
  [ "$output" = "ERR wrong number of arguments for 'set' command" ]
  run rcli dbsize x
  [ "$output" = "ERR wrong number of arguments for 'dbsize' command" ]
}

@test "DBSIZE counts new keys once and overwrites not at all" {
  before=$(rcli dbsize)
  rcli set "$(key a)" 1
  rcli set "$(key b)" 2
  rcli set "$(key b)" 3
  run rcli dbsize
  [ "$output" -eq $((before + 2)) ]
}

@test "overwriting frees the old value: used_memory does not grow with rewrites" {
  head -c 1000000 /dev/zero | tr '\0' 'x' >"$BATS_TEST_TMPDIR/mb"
  rcli -x set "$(key)" <"$BATS_TEST_TMPDIR/mb"
  before=$(rcli info memory | tr -d '\r' | sed -n 's/^used_memory://p')
  for _ in $(seq 1 10); do rcli -x set "$(key)" <"$BATS_TEST_TMPDIR/mb" >/dev/null; done
  after=$(rcli info memory | tr -d '\r' | sed -n 's/^used_memory://p')
  [ -n "$before" ] && [ -n "$after" ]
  [ $((after - before)) -lt 500000 ]
}

@test "INFO keyspace reports db0 in Redis's format" {
  rcli set "$(key)" v
  n=$(rcli dbsize)
  run bash -c "redis-cli -p $PORT info keyspace | tr -d '\r'"
  [[ "$output" == *"# Keyspace"* ]]
  [[ "$output" == *"db0:keys=$n,expires=0,avg_ttl=0"* ]]
}

@test "FLUSHALL and FLUSHDB remove every key" {
  rcli set "$(key)" v
  run rcli flushall
  [ "$output" = "OK" ]
  [ "$(rcli dbsize)" -eq 0 ]
  rcli set "$(key)" v
  run rcli flushdb sync
  [ "$output" = "OK" ]
  [ "$(rcli dbsize)" -eq 0 ]
  run rcli flushall nonsense
  [ "$output" = "ERR syntax error" ]
}

@test "a million keys load through a pipe, and DBSIZE says a million" {
  n=1000000
  # Under valgrind, load the full million only in this step's own run.
  [ -n "${VALGRIND:-}" ] && [ "${SUITE_IS_SERVER_STEP:-1}" != 1 ] && n=20000
  rcli flushall
  run bash -c "awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) { k = \"key:\" i; printf \"*3\r\n\$3\r\nSET\r\n\$%d\r\n%s\r\n\$1\r\nv\r\n\", length(k), k } }' | redis-cli -p $PORT --pipe"
  [[ "$output" == *"errors: 0, replies: $n"* ]]
  [ "$(rcli dbsize)" -eq "$n" ]
  [ "$(rcli get key:$((n - 1)))" = "v" ]
}

@test "redis-benchmark SET and GET over a million random keys complete without error" {
  # The full run in this step's own suite; a shorter one when a later step
  # replays this suite, or under valgrind.
  n=200000
  [ "${SUITE_IS_SERVER_STEP:-1}" != 1 ] && n=20000
  [ -n "${VALGRIND:-}${SANITIZED:-}" ] && n=10000
  run redis-benchmark -p "$PORT" -t set,get -n "$n" -r 1000000 -q
  [ "$status" -eq 0 ]
  [[ "$output" == *"SET: "* ]]
  [[ "$output" == *"GET: "* ]]
  [[ "$output" != *"rror from server"* ]]
}
