#!/usr/bin/env bats
# Grader for chapter 05, exercise 2: avg_ttl in INFO keyspace.
#
# The active cycle estimates the time left to the keys with a TTL: each
# round averages the sampled keys that have not expired, the first average
# becomes the estimate, and each later one moves it by a fiftieth. 0 when no
# key has a TTL. Checked as Redis behaves: 1,000 keys set with EX 100 give
# 98,000 to 100,000 about a second later; 1,000 more with EX 300 pull the
# estimate up gradually, not at once; removing every TTL brings it back to 0.
# Margins are wide: only the order of the numbers and the slow drift are
# checked, not Redis's exact figures.
#
# Run it: make exercise STEP=05 EX=2 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

avg_ttl() { rcli info keyspace | tr -d '\r' | sed -n 's/^db0:.*avg_ttl=\([0-9-]*\).*/\1/p'; }

# persist_keys PREFIX N: PERSIST PREFIX:0 .. PREFIX:N-1 through one pipe.
persist_keys() {
  awk -v p="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "PERSIST %s:%d\r\n", p, i }' |
    pipe_commands "$2" "PERSIST $1:0..$1:$(($2 - 1))"
}

# wait_avg_ttl TEST SECONDS: poll avg_ttl every 100 ms until "[ avg TEST ]"
# holds; print the first value that does (or the last one seen, and fail).
wait_avg_ttl() {
  local avg deadline=$((SECONDS + $2))
  while :; do
    avg=$(avg_ttl)
    if [ -n "$avg" ] && [ "$avg" $1 ]; then echo "$avg"; return 0; fi
    [ "$SECONDS" -ge "$deadline" ] && { echo "$avg"; return 1; }
    sleep 0.1
  done
}

@test "avg_ttl is 0 while no key has a TTL" {
  rcli flushall
  load_keys "$(key)" 100
  sleep 0.3
  send_as "redis-cli INFO keyspace (db0's avg_ttl)" avg_ttl
  expect_reply "0"
}

@test "1,000 keys set with EX 100: avg_ttl is between 98,000 and 100,000 a second later" {
  rcli flushall
  start=$(now_ms)
  load_keys avg:100 1000 EX 100
  send_as "INFO keyspace every 100 ms until db0's avg_ttl is above 0 (up to 5 s)" wait_avg_ttl "-gt 0" 5
  expect_status 0
  sleep 1.2
  send_as "redis-cli INFO keyspace (db0's avg_ttl), 1.2 s later" avg_ttl
  avg=$output
  elapsed=$(($(now_ms) - start))
  echo "avg_ttl=$avg, $elapsed ms after the keys were set"
  # Never above the TTL given; below it by at most the time that has passed
  # (the estimate trails the truth), with a second's margin for a slow run:
  # no fixed floor, which a busy machine's slow commands would break.
  expect_num avg_ttl "$avg" -le 100000
  expect_num "avg_ttl, $elapsed ms after the keys were set" "$avg" -ge $((100000 - elapsed - 1000))
}

@test "1,000 more keys with EX 300 pull the estimate up a fiftieth at a time" {
  # Continues from the previous test: 1,000 keys with about 99 s left.
  send dbsize
  expect_reply "1000"
  send_as "redis-cli INFO keyspace (db0's avg_ttl)" avg_ttl
  before=$output
  expect_num avg_ttl "$before" -gt 90000
  expect_num avg_ttl "$before" -le 100000
  load_keys avg:300 1000 EX 300
  # The true average is now about 200,000 ms. Each round moves the estimate
  # by a fiftieth of the gap (about 2,000 ms): the first reading above
  # 105,000 is far below 200,000...
  send_as "INFO keyspace every 100 ms until db0's avg_ttl is at least 105000 (up to 10 s)" wait_avg_ttl "-ge 105000" 10
  expect_status 0
  first=$output
  echo "before: $before; first reading above 105000: $first"
  expect_num "avg_ttl, its first reading at least 105000" "$first" -le 150000
  # ...and it keeps moving up, never past the longest TTL's average.
  send_as "INFO keyspace every 100 ms until db0's avg_ttl is at least 125000 (up to 15 s)" wait_avg_ttl "-ge 125000" 15
  expect_status 0
  later=$output
  echo "later: $later"
  expect_num "avg_ttl, its first reading at least 125000" "$later" -le 200000
}

@test "when no key has a TTL any more, avg_ttl goes back to 0" {
  send_as "redis-cli INFO keyspace (db0's avg_ttl)" avg_ttl
  expect_num avg_ttl "$output" -gt 0
  persist_keys avg:100 1000
  persist_keys avg:300 1000
  send info keyspace
  expect_eq "db0's keys and expires" "$(tr -d '\r' <<<"$output" | sed -n 's/^db0:keys=\([0-9]*\),expires=\([0-9]*\).*/\1 \2/p')" "2000 0"
  send_as "INFO keyspace every 100 ms until db0's avg_ttl is 0 (up to 5 s)" wait_avg_ttl "-eq 0" 5
  expect_status 0
}
