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
  send_as "redis-cli INFO stats, CRs removed" bash -c "redis-cli -p $PORT info stats | tr -d '\r'"
  expect_regex $'(^|\n)expire_wheel_nodes_cascaded:[0-9]+(\n|$)'
  expect_regex $'(^|\n)expire_wheel_slots_visited:[0-9]+(\n|$)'
  expect_regex $'(^|\n)expire_wheel_clock_behind:[0-9]+(\n|$)'
  # In the Stats section, not another one.
  send_as "redis-cli INFO server, CRs removed" bash -c "redis-cli -p $PORT info server | tr -d '\r'"
  expect_no_match '*expire_wheel_nodes_cascaded*'
}

@test "1,000 keys expiring with PX 300 cascade at least 1,000 and at most 10,000 times" {
  rcli flushall
  cascaded=$(stat expire_wheel_nodes_cascaded)
  visited=$(stat expire_wheel_slots_visited)
  send_as "SET px300:0 .. px300:999 v PX 300 through redis-cli --pipe" \
    bash -c "awk 'BEGIN { for (i = 0; i < 1000; i++) printf \"SET px300:%d v PX 300\\r\\n\", i }' | redis-cli -p $PORT --pipe"
  expect_contains "errors: 0, replies: 1000"
  for _ in $(seq 1 100); do
    [ "$(rcli dbsize)" = "0" ] && break
    sleep 0.05
  done
  send dbsize
  expect_reply "0"
  grown=$(($(stat expire_wheel_nodes_cascaded) - cascaded))
  echo "nodes_cascaded grew by $grown, slots_visited by $(($(stat expire_wheel_slots_visited) - visited))"
  SENT="1000 SET px300:N v PX 300, then DBSIZE until 0; INFO stats before and after"
  expect_num "growth of expire_wheel_nodes_cascaded" "$grown" -ge 1000
  expect_num "growth of expire_wheel_nodes_cascaded" "$grown" -le 10000
  expect_num "expire_wheel_slots_visited (it was $visited)" "$(stat expire_wheel_slots_visited)" -gt "$visited"
}
