#!/usr/bin/env bats
# Chapter 06: the timing wheel deletes every key with a TTL on time, without
# a read, and keeps in step with every command that changes a TTL.

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

info_field() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }

@test "20,000 keys with PX 300 are all gone within half a second of their deadline, unread" {
  own_promise "deletion within a tick of the deadline"
  [ -n "${VALGRIND:-}${SANITIZED:-}" ] && skip "a timing promise: checked on a native build"
  rcli flushall
  rcli set "$(key live)" v
  load_keys "$(key)" 20000 PX 300
  loaded=$(now_ms) # every deadline is at most loaded + 300
  wait_dbsize 1 800
  late=$(info_field expire_wheel_max_lateness_ms)
  echo "all gone $(($(now_ms) - loaded)) ms after loading; max lateness $late ms" >&3
  [ "$late" -lt 100 ]
  run rcli get "$(key live)"
  [ "$output" = "v" ]
}

@test "overwritten, persisted, extended and re-created keys survive their old deadline" {
  rcli flushall
  ttl=300 pause=0.6
  [ -n "${VALGRIND:-}" ] && ttl=3000 pause=4 # memcheck makes every command slow
  for n in overwritten persisted extended recreated rescheduled shortened; do rcli set "$(key $n)" v px "$ttl" >/dev/null; done
  rcli set "$(key overwritten)" new
  rcli persist "$(key persisted)"
  rcli pexpire "$(key extended)" 100000
  rcli del "$(key recreated)"
  rcli set "$(key recreated)" again
  rcli set "$(key rescheduled)" v px 100000
  rcli pexpire "$(key shortened)" 50
  sleep "$pause"
  run rcli exists "$(key overwritten)" "$(key persisted)" "$(key extended)" "$(key recreated)" "$(key rescheduled)"
  [ "$output" = "5" ]
  run rcli exists "$(key shortened)"
  [ "$output" = "0" ]
  run rcli ttl "$(key overwritten)"
  [ "$output" = "-1" ]
  run rcli ttl "$(key extended)"
  [ "$output" -gt 90 ]
}

@test "keys far in the future stay scheduled: 90 s, 1 hour, 400 days, the year 2100" {
  rcli flushall
  rcli set "$(key a)" v ex 90
  rcli set "$(key b)" v ex 3600
  rcli set "$(key c)" v ex 34560000
  rcli set "$(key d)" v
  rcli expireat "$(key d)" 4102444800
  run rcli expiretime "$(key d)"
  [ "$output" = "4102444800" ]
  run bash -c "redis-cli -p $PORT info keyspace | tr -d '\r'"
  [[ "$output" == *"db0:keys=4,expires=4,"* ]]
}

@test "FLUSHALL empties the wheel, and new keys are scheduled again" {
  own_promise "unread keys deleted on time"
  rcli flushall
  load_keys "$(key old)" 100 PX 100000
  rcli flushall
  load_keys "$(key new)" 100 PX 200
  sleep 0.6
  run rcli dbsize
  [ "$output" = "0" ]
}

@test "INFO reports the wheel: tick, levels, scheduled keys, lateness" {
  own_promise "this step's INFO fields"
  rcli flushall
  rcli set "$(key)" v ex 100
  run bash -c "redis-cli -p $PORT info stats | tr -d '\r'"
  [[ "$output" == *"expire_wheel_tick_ms:1"* ]]
  [[ "$output" =~ expire_wheel_levels:[0-9]+ ]]
  [[ "$output" == *"expire_wheel_scheduled:1"* ]]
  [[ "$output" =~ expire_wheel_max_lateness_ms:[0-9]+ ]]
}
