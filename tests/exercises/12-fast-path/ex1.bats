#!/usr/bin/env bats
# Grader for chapter 12, exercise 1: CONFIG GET/SET prefetch-batch-max-size.
#
# The look-ahead's batch becomes a setting, under Valkey's name and range:
# 0 to 128, default 16, 0 meaning no look-ahead. Redis has no such
# parameter, so there is no reference run; the replies follow Redis's for a
# parameter of its own. CONFIG GET answers 16; CONFIG SET takes 0 to 128;
# "abc" is "argument couldn't be parsed into an integer", -1 or 129
# "argument must be between 0 and 128 inclusive", and a refused value
# changes nothing. The setting holds from the next batch, which INFO stats
# shows: ten GETs pipelined in one write are one batch, of as many keys as
# the setting allows (the INFO stats that reads the counters adds its own
# argument, one more key, when the setting is not 0). At 0 every command
# still answers. CONFIG GET still answers the parameters clients read at
# start-up.
#
# Run it: make exercise STEP=12 EX=1 [SERVER=path]

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

PARAM=prefetch-batch-max-size
set_error() { echo "ERR CONFIG SET failed (possibly related to argument '$PARAM') - $1"; }
expect_config() {
  send config get "$PARAM"
  [ "$(sed -n 2p <<<"$output")" = "$1" ] || fail_exchange "$PARAM and its value $(visible "$1")"
}
stat() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }

# ten_gets_take N: ten GETs in one write, then INFO stats: the keys
# prefetched grew by N.
ten_gets_take() {
  local before
  before=$(stat fastpath_prefetched_keys)
  send_raw "$(printf '*2\\r\\n$3\\r\\nGET\\r\\n$4\\r\\nex:%d\\r\\n' 0 1 2 3 4 5 6 7 8 9)" --expect 50
  expect_bytes "$(printf '$-1\\r\\n%.0s' 0 1 2 3 4 5 6 7 8 9)"
  SENT="ten GETs in one write, then INFO stats"
  expect_num "fastpath_prefetched_keys, grown by" "$(($(stat fastpath_prefetched_keys) - before))" -eq "$1"
}

@test "CONFIG GET prefetch-batch-max-size answers 16, an array in RESP2 and a map in RESP3" {
  send_multibulk 41 CONFIG GET "$PARAM"
  expect_bytes '*2\r\n$23\r\nprefetch-batch-max-size\r\n$2\r\n16\r\n'
  send_raw "HELLO 3\r\nCONFIG GET $PARAM\r\nQUIT\r\n" --close-expected
  expect_suffix "$(printf '%%1\r\n$23\r\nprefetch-batch-max-size\r\n$2\r\n16\r\n+OK\r\n')"
}

@test "CONFIG SET prefetch-batch-max-size takes 0 to 128 and answers OK" {
  for n in 4 0 128 16; do
    send_multibulk 5 CONFIG SET "$PARAM" "$n"
    expect_bytes '+OK\r\n'
    expect_config "$n"
  done
}

@test "a batch size out of range, or not an integer, is refused and changes nothing" {
  rcli config set "$PARAM" 8 >/dev/null
  for bad in -1 129 1000 99999999999; do
    send config set "$PARAM" "$bad"
    expect_reply "$(set_error "argument must be between 0 and 128 inclusive")"
  done
  for bad in abc 1.5 "" 12x; do
    send config set "$PARAM" "$bad"
    expect_reply "$(set_error "argument couldn't be parsed into an integer")"
  done
  expect_config 8
  rcli config set "$PARAM" 16 >/dev/null
}

@test "the look-ahead takes as many keys as the setting allows, and none at 0" {
  rcli config set "$PARAM" 4 >/dev/null
  ten_gets_take $((4 + 1))
  rcli config set "$PARAM" 16 >/dev/null
  ten_gets_take $((10 + 1))
  rcli config set "$PARAM" 0 >/dev/null
  ten_gets_take 0
  send set ex:k v
  expect_reply OK
  send get ex:k
  expect_reply v
  rcli config set "$PARAM" 16 >/dev/null
}

@test "CONFIG GET still answers save, appendonly and databases" {
  send config get appendonly
  expect_reply "$(printf 'appendonly\nno')"
  send config get databases
  expect_reply "$(printf 'databases\n1')"
}
