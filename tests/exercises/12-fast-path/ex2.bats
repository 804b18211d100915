#!/usr/bin/env bats
# Grader for chapter 12, exercise 2: prefetch the keys the command table names.
#
# Step 12's look-ahead takes argv[1] of every request as its key: one key
# for DEL a b c d, and one, wasted, for ECHO hello or INFO stats. Done, it
# takes the keys where the command table says they are (first_key, last_key,
# key_step, as COMMAND INFO reports them): four for DEL a b c d, none for
# ECHO or INFO, and still at most 16 a batch. INFO stats shows it: requests
# pipelined in one write are one batch, and the INFO stats that reads the
# counters now adds no key of its own. This project's own INFO fields, so
# there is no reference run.
#
# Run it: make exercise STEP=12 EX=2 [SERVER=path]

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

stat() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }

# mb ARG...: one multibulk request, with printf's escapes for send_raw.
mb() {
  local a out
  out="*$#\\r\\n"
  for a in "$@"; do out+="\$${#a}\\r\\n$a\\r\\n"; done
  printf '%s' "$out"
}

# pipeline_takes WHAT KEYS EXPECTED_BYTES REQUEST...: the requests in one
# write; their replies are EXPECTED_BYTES, and the keys prefetched grew by
# KEYS once INFO stats has read them.
pipeline_takes() {
  local what=$1 keys=$2 want=$3 before
  shift 3
  before=$(stat fastpath_prefetched_keys)
  send_raw "$(printf '%s' "$@")" --expect "$(printf '%b' "$want" | wc -c)"
  expect_bytes "$want"
  SENT="$what in one write, then INFO stats"
  expect_num "fastpath_prefetched_keys, grown by" "$(($(stat fastpath_prefetched_keys) - before))" -eq "$keys"
}

@test "DEL and EXISTS give every key they name" {
  local del
  del=$(mb DEL ex2:a ex2:b ex2:c ex2:d)
  pipeline_takes "three DEL of four keys" 12 ':0\r\n:0\r\n:0\r' "$del" "$del" "$del"
  pipeline_takes "EXISTS a b, EXISTS c d e, SET f v" 6 ':0\r\n:0\r\n+OK\r' \
    "$(mb EXISTS ex2:a ex2:b)" "$(mb EXISTS ex2:c ex2:d ex2:e)" "$(mb SET ex2:f v)"
}

@test "PING, ECHO and INFO name no key, and take none" {
  local echo
  echo=$(mb ECHO hello)
  pipeline_takes "five ECHO hello" 0 '$5\r\nhello\r\n$5\r\nhello\r\n$5\r\nhello\r\n$5\r\nhello\r\n$5\r\nhello\r' \
    "$echo" "$echo" "$echo" "$echo" "$echo"
  pipeline_takes "two PING" 0 '+PONG\r\n+PONG\r' "$(mb PING)" "$(mb PING)"
}

@test "GET and SET still give their one key" {
  local get
  get=$(mb GET ex2:none)
  pipeline_takes "ten GET" 10 '$-1\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r' \
    "$get" "$get" "$get" "$get" "$get" "$get" "$get" "$get" "$get" "$get"
}

@test "a batch still stops at 16 keys, counted key by key" {
  local del
  del=$(mb DEL ex2:a ex2:b ex2:c ex2:d)
  pipeline_takes "six DEL of four keys (24 keys)" 16 ':0\r\n:0\r\n:0\r\n:0\r\n:0\r\n:0\r' \
    "$del" "$del" "$del" "$del" "$del" "$del"
}
