#!/usr/bin/env bats
# Grader for chapter 06, exercise 2: the wheel's statistics in INFO stats.
#
#   expire_wheel_nodes_cascaded   keys moved down a level
#   expire_wheel_slots_visited    slots emptied while the wheel turns
#   expire_wheel_clock_behind     calls whose clock was behind the wheel
#
# These are this project's own fields (Redis has no wheel), so there is no
# reference run. Each is an integer in the Stats section. After 1,000 keys
# set with PX 300 have expired, nodes_cascaded has grown by at least 1,000
# (300 ms ahead, every key starts at level 1 or higher) and at most 10,000,
# and slots_visited has grown. The exercise's prediction for a key with
# EX 3600 is for you to check: the grader does not wait an hour.
#
# Run it: make exercise STEP=06 EX=2 [SERVER=path]

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

stat() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }

@test "INFO stats has the three fields, each an integer" {
  run bash -c "redis-cli -p $PORT info stats | tr -d '\r'"
  [[ "$output" =~ (^|$'\n')expire_wheel_nodes_cascaded:[0-9]+($'\n'|$) ]]
  [[ "$output" =~ (^|$'\n')expire_wheel_slots_visited:[0-9]+($'\n'|$) ]]
  [[ "$output" =~ (^|$'\n')expire_wheel_clock_behind:[0-9]+($'\n'|$) ]]
  # In the Stats section, not another one.
  run bash -c "redis-cli -p $PORT info server | tr -d '\r'"
  [[ "$output" != *expire_wheel_nodes_cascaded* ]]
}

@test "1,000 keys expiring with PX 300 cascade at least 1,000 and at most 10,000 times" {
  rcli flushall
  cascaded=$(stat expire_wheel_nodes_cascaded)
  visited=$(stat expire_wheel_slots_visited)
  awk 'BEGIN { for (i = 0; i < 1000; i++) printf "SET px300:%d v PX 300\r\n", i }' |
    rcli --pipe | grep -q "errors: 0, replies: 1000"
  for _ in $(seq 1 100); do
    [ "$(rcli dbsize)" = "0" ] && break
    sleep 0.05
  done
  [ "$(rcli dbsize)" = "0" ]
  grown=$(($(stat expire_wheel_nodes_cascaded) - cascaded))
  echo "nodes_cascaded grew by $grown, slots_visited by $(($(stat expire_wheel_slots_visited) - visited))"
  [ "$grown" -ge 1000 ]
  [ "$grown" -le 10000 ]
  [ "$(stat expire_wheel_slots_visited)" -gt "$visited" ]
}
