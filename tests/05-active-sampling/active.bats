#!/usr/bin/env bats
# Chapter 05: the active expire cycle reclaims expired keys nobody reads,
# never a live key, and DEBUG SET-ACTIVE-EXPIRE switches it.

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "20,000 expired keys disappear without being read; live keys stay" {
  rcli flushall
  load_keys "$(key live)" 100
  load_keys "$(key ttl-long)" 100 EX 1000
  load_keys "$(key short)" 20000 PX 300
  limit_ms=5000
  [ -n "${VALGRIND:-}" ] && limit_ms=30000 # a server under memcheck runs many times slower
  wait_dbsize 200 "$limit_ms"
  run rcli exists "$(key live):0" "$(key live):99" "$(key ttl-long):0" "$(key ttl-long):99"
  [ "$output" = "4" ]
}

@test "DEBUG SET-ACTIVE-EXPIRE 0 stops the cycle, 1 restarts it" {
  rcli flushall
  run rcli debug set-active-expire 0
  [ "$output" = "OK" ]
  load_keys "$(key)" 1000 PX 100
  sleep 0.6
  [ "$(rcli dbsize)" = "1000" ]
  run rcli debug set-active-expire 1
  [ "$output" = "OK" ]
  wait_dbsize 0 10000
}

@test "a key whose TTL was removed or extended is not reclaimed" {
  rcli flushall
  load_keys "$(key)" 500 PX 2000
  rcli persist "$(key):1"
  rcli pexpire "$(key):2" 100000
  rcli set "$(key):3" again
  wait_dbsize 3 15000
  run rcli exists "$(key):1" "$(key):2" "$(key):3"
  [ "$output" = "3" ]
  run rcli ttl "$(key):1"
  [ "$output" = "-1" ]
}

@test "INFO stats reports the cycle's figures in Redis's format" {
  run bash -c "redis-cli -p $PORT info stats | tr -d '\r'"
  [[ "$output" =~ expired_stale_perc:[0-9]+\.[0-9]{2} ]]
  [[ "$output" =~ expired_time_cap_reached_count:[0-9]+ ]]
  [[ "$output" =~ expire_cycle_cpu_milliseconds:[0-9]+ ]]
  [[ "$output" =~ expired_keys:[1-9][0-9]* ]]
}

@test "DEBUG with an unknown subcommand is an error" {
  own_promise "this server's DEBUG has only SET-ACTIVE-EXPIRE"
  run rcli debug nosuch
  [ "$output" = "ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP." ]
}

@test "--hz and --active-expire-effort are checked" {
  own_promise "this project's flags"
  replaced_in 06 "the timing wheel replaces the cron and its flags"
  run "$SERVER" --hz 0
  [ "$status" -eq 1 ]
  run "$SERVER" --hz 501
  [ "$status" -eq 1 ]
  run "$SERVER" --active-expire-effort 11
  [ "$status" -eq 1 ]
  run "$SERVER" --help
  [[ "$output" == *"--hz"* ]]
  [[ "$output" == *"--active-expire-effort"* ]]
}

@test "INFO server reports hz" {
  own_promise "the default hz of this server"
  replaced_in 06 "the timing wheel replaces the cron"
  run bash -c "redis-cli -p $PORT info server | tr -d '\r'"
  [[ "$output" == *"hz:10"* ]]
}
