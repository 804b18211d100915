#!/usr/bin/env bats
# Chapter 01: PING, ECHO, QUIT, COMMAND, errors, through the real redis-cli.
# Grades any server: make grade STEP=01, or make test STEP=01 SERVER=path.
# Each test's name starts with its stage (tests/01-resp/stages).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "01-4 PING answers PONG" {
  send ping
  expect_reply "PONG"
}

@test "01-4 PING with a message echoes it" {
  send ping "hello world"
  expect_reply "hello world"
}

@test "01-7 PING with two arguments is an arity error" {
  send ping a b
  expect_reply "ERR wrong number of arguments for 'ping' command"
}

@test "01-4 ECHO returns its argument, binary safe" {
  send echo "a b c"
  expect_reply "a b c"
  send_as "ECHO with x CR LF y NUL z (redis-cli -x), reply shown by od -c" \
    bash -c "printf 'x\r\ny\0z' | redis-cli -p $PORT -x echo | od -An -c | tr -s ' '"
  expect_reply " x \r \n y \0 z \n"
}

@test "01-7 ECHO needs exactly one argument" {
  send echo
  expect_reply "ERR wrong number of arguments for 'echo' command"
  send echo a b
  expect_reply "ERR wrong number of arguments for 'echo' command"
}

@test "01-4 command names are case-insensitive" {
  send pInG
  expect_reply "PONG"
  send EcHo hi
  expect_reply "hi"
}

@test "01-7 an unknown command gets Redis's error, arguments quoted" {
  send foo bar baz
  expect_reply "ERR unknown command 'foo', with args beginning with: 'bar' 'baz' "
  send nosuchcommand
  expect_reply "ERR unknown command 'nosuchcommand', with args beginning with: "
}

@test "01-7 the unknown-command error stops quoting arguments at 128 characters" {
  long=$(printf 'a%.0s' $(seq 1 100))
  send foo "$long" "$long" "$long"
  expect_reply "ERR unknown command 'foo', with args beginning with: '$long' '${long:0:25}' "
}

@test "01-4 QUIT answers OK and closes the connection" {
  send_raw 'QUIT\r\nPING\r\n' --close-expected
  expect_status 0
  expect_bytes '+OK\r\n'
}

@test "01-8 COMMAND COUNT, COMMAND DOCS and COMMAND INFO answer without an error" {
  send command count
  expect_regex '^[0-9]+$'
  expect_num "COMMAND COUNT" "$output" -ge 5
  send command docs
  expect_no_match 'ERR*'
  send command info ping
  expect_match '*ping*'
  send command nosuch
  expect_reply "ERR unknown subcommand 'nosuch'. Try COMMAND HELP."
}

@test "01-5 redis-benchmark completes PING_INLINE and PING_MBULK" {
  # What it checks is every reply, not the speed: 20,000 of each keep it
  # well inside RUN_TIMEOUT_S on a loaded machine, where redis-benchmark got
  # 2,000 to 4,000 a second (make check LOAD=4 with more beside it) and
  # 100,000 of each took more than 60 s. Fewer under valgrind.
  n=20000
  [ -n "${VALGRIND:-}${SANITIZED:-}" ] && n=5000
  send_as "redis-benchmark -t ping_inline,ping_mbulk -n $n -q" \
    redis-benchmark -p "$PORT" -t ping_inline,ping_mbulk -n "$n" -q
  expect_status 0
  expect_match "*PING_INLINE*"
  expect_match "*PING_MBULK*"
  expect_no_match "*rror*"
}

@test "01-9 a second server on a taken port exits with a non-zero status" {
  if is_reference; then
    send_as "a second server on port $PORT" "$SERVER" --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no
  else
    send_as "a second server on port $PORT" ${JAIL:+"$JAIL"} "$SERVER" --port "$PORT"
  fi
  expect_failure
  send ping
  expect_reply "PONG"
}

@test "01-9 the server says which step it is and where it listens when ready" {
  own_promise "start-up line format"
  send_as "(the server's start-up output, in $SERVER_LOG)" cat "$SERVER_LOG"
  expect_match "*ready to accept connections on 127.0.0.1:$PORT*"
}

@test "01-9 --help explains the flags" {
  own_promise "this project's flags"
  send_as "$(basename "$SERVER") --help" ${JAIL:+"$JAIL"} "$SERVER" --help
  expect_status 0
  expect_match "*--port*"
  expect_match "*--bind*"
}

@test "01-8 CONFIG GET answers what redis-benchmark asks for at start-up" {
  send config get appendonly
  expect_reply "$(printf 'appendonly\nno')"
  send config get no-such-parameter
  expect_reply ""
}

@test "01-8 CONFIG GET save is empty: no snapshots are taken" {
  replaced_in 08 "a snapshot is taken at Redis's default save points"
  send config get save
  expect_reply "$(printf 'save\n')"
}
