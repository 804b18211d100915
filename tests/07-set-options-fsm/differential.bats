#!/usr/bin/env bats
# Chapter 07: every ordering of Redis 7's SET options, sent to this server and
# to a real redis-server side by side (set_differential.py): the two must
# answer alike. Skipped when no redis-server is installed, and in the
# reference run itself (Redis against Redis proves nothing).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "all SET option sequences of up to 4 tokens answer as Redis 7 does" {
  is_reference && skip "the reference run compares Redis with itself"
  [ -n "${VALGRIND:-}${SANITIZED:-}" ] && skip "a protocol comparison: run natively"
  command -v redis-server >/dev/null || skip "redis-server is not installed"
  ours=$PORT
  rport=$(pick_port)
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
  rpid=$!
  for _ in $(seq 1 100); do redis-cli -p "$rport" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
  run "$PYTHON" "$BATS_TEST_DIRNAME/set_differential.py" "$ours" "$rport"
  kill "$rpid"; wait "$rpid" || true
  echo "$output" | head -1 >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *" 0 differences"* ]]
}
