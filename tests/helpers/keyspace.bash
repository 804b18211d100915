# keyspace.bash -- helpers for suites that fill the server with many keys and
# wait for them to expire: load_keys, wait_dbsize, and pipe_commands under
# them. server.bash loads this file; everything here talks to the suite's
# server on $PORT through rcli, records what it sends in SENT, and on failure
# prints the sent:/expected:/received: lines of expect.bash's fail_exchange.
# (`status='' fail_exchange`: these run outside bats's `run`, so the status of
# the test's last `run` says nothing about them.)

# pipe_commands N WHAT: send stdin, N commands (RESP or inline), through
# `redis-cli --pipe` in one go, and require N replies and no error reply.
# WHAT names the commands in the failure message ("SET k:0..k:99 v PX 100").
pipe_commands() {
  local n=$1 what=$2 out
  SENT="$n commands ($what) through redis-cli --pipe"
  # --pipe prints the error replies and a summary line, "errors: E, replies:
  # R", and exits 1 if E > 0 (so `|| true`: the summary says more).
  out=$(rcli --pipe 2>&1) || true
  grep -qx "errors: 0, replies: $n" <<<"$out" && return 0
  status='' fail_exchange "a line \"errors: 0, replies: $n\"" "$(visible "$(head -20 <<<"$out")")"
}

# load_keys PREFIX N [SET-OPTIONS...]: SET PREFIX:0 .. PREFIX:N-1 to "v",
# each with the same options (none, EX 100, PX 300, ...), through one pipe.
# The commands are written in RESP by awk: N redis-cli calls would take
# seconds, and a pipe of 20,000 SETs takes a few milliseconds.
load_keys() {
  local prefix=$1 n=$2
  shift 2
  awk -v p="$prefix" -v n="$n" -v opts="$*" 'BEGIN {
    extra = split(opts, o, " ")
    for (i = 0; i < n; i++) {
      k = p ":" i
      printf "*%d\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", 3 + extra, length(k), k
      for (j = 1; j <= extra; j++) printf "$%d\r\n%s\r\n", length(o[j]), o[j]
    }
  }' | pipe_commands "$n" "SET $prefix:0..$prefix:$((n - 1)) v${*:+ $*}"
}

# wait_dbsize N WITHIN_MS: send DBSIZE every 20 ms until it answers N; fail
# once WITHIN_MS milliseconds have passed, with the last answer seen.
wait_dbsize() {
  local want=$1 within_ms=$2 seen deadline
  # shellcheck disable=SC2034 # fail_exchange (expect.bash) reads SENT
  SENT="redis-cli DBSIZE, every 20 ms for $within_ms ms"
  deadline=$(($(now_ms) + within_ms))
  while :; do
    seen=$(rcli dbsize 2>&1) || true # a dead server: say what redis-cli said
    [ "$seen" = "$want" ] && return 0
    if [ "$(now_ms)" -ge "$deadline" ]; then
      status='' fail_exchange "$(visible "$want") within $within_ms ms" "$(visible "$seen") (the last answer)"
      return
    fi
    sleep 0.02
  done
}

# test_elapsed_ms: the milliseconds since this test began (bats sets
# BATS_TEST_START_TIME, in ms, just before it runs the test; where a bats
# does not, TTL_SLACK_S). A TTL set in the test has lost at most that much,
# however slowly a busy machine ran the commands in between.
TTL_SLACK_S=5
test_elapsed_ms() {
  if [ -n "${BATS_TEST_START_TIME:-}" ]; then
    echo $(($(now_ms) - BATS_TEST_START_TIME))
  else
    echo $((TTL_SLACK_S * 1000))
  fi
}

# expect_ttl_about KEY SECONDS [SET_AT_MS]: TTL KEY answers SECONDS, or fewer
# by the seconds that have passed since the test began, and one more (TTL
# rounds). A TTL the commands wrongly changed (to 10, or -1) still fails.
# SET_AT_MS (now_ms from before the TTL was set) counts from then instead.
expect_ttl_about() {
  local key=$1 want=$2 elapsed slack
  elapsed=$(test_elapsed_ms)
  [ -n "${3:-}" ] && elapsed=$(($(now_ms) - $3))
  slack=$(((elapsed + 999) / 1000 + 1))
  send ttl "$key"
  expect_num "TTL $key (set to $want s a moment ago)" "$output" -le "$want"
  expect_num "TTL $key (set to $want s, ${slack} s or less ago)" "$output" -ge "$((want - slack))"
}
