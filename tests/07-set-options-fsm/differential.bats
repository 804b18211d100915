#!/usr/bin/env bats
# Chapter 07: every sequence of up to 4 of the SET options Redis 7 knows
# (set_differential.py lists them), sent to this server and to a real
# redis-server side by side: the two must answer alike. Skipped when no redis-server is installed, and in the
# reference run itself (Redis against Redis proves nothing).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "all SET option sequences of up to 4 tokens answer as Redis 7 does" {
  is_reference && skip "the reference run compares Redis with itself"
  [ -n "${VALGRIND:-}${SANITIZED:-}" ] && skip "a protocol comparison: run natively"
  command -v redis-server >/dev/null || skip "redis-server is not installed"
  ours=$PORT
  # Redis is started the way every suite starts its server; from here to
  # stop_server, PORT is Redis's (the next test sees ours again).
  SERVER=redis-server start_server
  run "$PYTHON" "$BATS_TEST_DIRNAME/set_differential.py" "$ours" "$PORT"
  stop_server
  echo "$output" | head -1 >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *" 0 differences"* ]]
}
