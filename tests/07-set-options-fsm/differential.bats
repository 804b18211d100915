#!/usr/bin/env bats
# Chapter 07: every sequence of up to 4 of the SET options Redis 7 knows
# (set_differential.py lists them), sent to this server and to a real
# redis-server side by side: the two must answer alike. Skipped when no redis-server is installed, and in the
# reference run itself (Redis against Redis proves nothing).
# Its one test is stage 07-6 of the grader (tests/07-set-options-fsm/stages).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "07-6 all SET option sequences of up to 4 tokens answer as Redis 7 does" {
  is_reference && skip "the reference run compares Redis with itself"
  [ -n "${VALGRIND:-}${SANITIZED:-}" ] && skip "a protocol comparison: run natively"
  command -v redis-server >/dev/null || skip "redis-server is not installed"
  ours=$PORT
  # Redis is started the way every suite starts its server; from here to
  # stop_server, PORT is Redis's (the next test sees ours again).
  SERVER=redis-server start_server
  send_as "set_differential.py: every sequence to this server (port $ours) and to redis-server (port $PORT)" \
    "$PYTHON" "$BATS_TEST_DIRNAME/set_differential.py" "$ours" "$PORT"
  stop_server
  echo "$output" | head -1 >&3
  expect_status 0
  expect_match "* 0 differences*"
}
