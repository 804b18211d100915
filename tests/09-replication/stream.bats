#!/usr/bin/env bats
# Chapter 09: the stream a master sends, command for command, against the
# stream redis-server 7.0.15 sends for the same client commands. A replica
# played by hand (repl_capture.py) records both; deadlines print as <ms>.
# Grades any server: make grade STEP=09, or make test STEP=09 SERVER=path.
# Each test's name starts with its stage (tests/09-replication/stages).

load ../helpers/server
load replication

CAPTURE="$BATS_TEST_DIRNAME/repl_capture.py"
COMMANDS="$BATS_TEST_DIRNAME/stream_commands.txt"

teardown() { stop_all; }

# capture_stream PORT: the stream that master sends while COMMANDS run.
capture_stream() {
  "$PYTHON" "$CAPTURE" --master "127.0.0.1:$1" --commands "$COMMANDS" --wait-ms 600
}

@test "09-3 the stream carries what 7.0.15's carries, command for command: every SET and EXPIRE option as an absolute deadline, PERSIST, DEL, a lazy expiry, a wheel expiry, a write on an expired key" {
  redis_as REF
  local theirs
  theirs=$(capture_stream "$REF_PORT" 2>&1) || {
    echo "repl_capture.py against redis-server 7.0.15 failed: $theirs" >&2
    return 1
  }
  start_as M $(master_flags)
  send_as "the commands of tests/09-replication/stream_commands.txt from a client, while repl_capture.py plays a replica; expected: redis-server 7.0.15's stream for them" \
    capture_stream "$M_PORT"
  [ "$status" -eq 0 ] || fail_exchange "exit status 0 and the stream"
  [ "$output" = "$theirs" ] && return 0
  fail_exchange "redis-server 7.0.15's stream, command for command" \
    "$(diff <(echo "$theirs") <(echo "$output") | head -16 | tr '\n' ' ')(diff: < 7.0.15, > this server)"
}
