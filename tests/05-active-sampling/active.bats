#!/usr/bin/env bats
# Chapter 05: the active expire cycle reclaims expired keys nobody reads,
# never a live key, and DEBUG SET-ACTIVE-EXPIRE switches it.
# Grades any server: make grade STEP=05, or make test STEP=05 SERVER=path.
# Each test's name starts with its stage (tests/05-active-sampling/stages).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

# send_info SECTION: INFO SECTION with the CRs taken out, so that patterns
# can anchor on line ends.
send_info() {
  send_as "redis-cli INFO $1 (CRs removed)" bash -c "redis-cli -p $PORT info $1 | tr -d '\r'"
}

@test "05-2 20,000 expired keys disappear without being read; live keys stay" {
  rcli flushall >/dev/null
  load_keys "$(key live)" 100
  load_keys "$(key ttl-long)" 100 EX 1000
  load_keys "$(key short)" 20000 PX 300
  limit_ms=5000
  [ -n "${VALGRIND:-}" ] && limit_ms=30000 # a server under memcheck runs many times slower
  wait_dbsize 200 "$limit_ms"
  send exists "$(key live):0" "$(key live):99" "$(key ttl-long):0" "$(key ttl-long):99"
  expect_reply "4"
}

@test "05-2 a key whose TTL was removed or extended is not reclaimed" {
  rcli flushall >/dev/null
  load_keys "$(key)" 500 PX 2000
  rcli persist "$(key):1" >/dev/null
  rcli pexpire "$(key):2" 100000 >/dev/null
  rcli set "$(key):3" again >/dev/null
  wait_dbsize 3 15000
  send exists "$(key):1" "$(key):2" "$(key):3"
  expect_reply "3"
  send ttl "$(key):1"
  expect_reply "-1"
}

@test "05-3 DEBUG SET-ACTIVE-EXPIRE 0 stops the cycle, 1 restarts it" {
  rcli flushall >/dev/null
  send debug set-active-expire 0
  expect_reply "OK"
  load_keys "$(key)" 1000 PX 100
  sleep 0.6
  send dbsize
  expect_reply "1000"
  send debug set-active-expire 1
  expect_reply "OK"
  wait_dbsize 0 10000
}

@test "05-3 DEBUG with an unknown subcommand is an error" {
  own_promise "this server's DEBUG has only SET-ACTIVE-EXPIRE"
  send debug nosuch
  expect_reply "ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP."
}

@test "05-4 INFO stats reports the cycle's figures in Redis's format" {
  # One key expired here, so that expired_keys is not 0 when this stage's
  # tests run on their own (make grade runs each stage on a fresh server).
  rcli set "$(key)" v px 1 >/dev/null
  sleep 0.05
  rcli get "$(key)" >/dev/null
  send_info stats
  expect_regex 'expired_time_cap_reached_count:[0-9]+'
  expect_regex 'expire_cycle_cpu_milliseconds:[0-9]+'
  expect_regex 'expired_keys:[1-9][0-9]*'
}

@test "05-4 INFO stats reports the share of expired keys the cycle's samples found" {
  replaced_in 06 "the timing wheel samples nothing, so it has no stale share to report"
  send_info stats
  expect_regex 'expired_stale_perc:[0-9]+\.[0-9]{2}'
}

@test "05-4 INFO server reports hz" {
  own_promise "the default hz of this server"
  replaced_in 06 "the timing wheel replaces the cron"
  send_info server
  expect_match "*hz:10*"
}

@test "05-5 --hz and --active-expire-effort are checked" {
  own_promise "this project's flags"
  replaced_in 06 "the timing wheel replaces the cron and its flags"
  for flag in "--hz 0" "--hz 501" "--active-expire-effort 11"; do
    # shellcheck disable=SC2086 # the flag and its value are two arguments
    send_as "$(basename "$SERVER") $flag" ${JAIL:+"$JAIL"} "$SERVER" $flag
    expect_status 1
  done
  send_as "$(basename "$SERVER") --help" ${JAIL:+"$JAIL"} "$SERVER" --help
  expect_match "*--hz*"
  expect_match "*--active-expire-effort*"
}
