#!/usr/bin/env bats
# Chapter 01: PING, ECHO, QUIT, COMMAND, errors, through the real redis-cli.
# Grades any server: SERVER=path make test STEP=01.

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

@test "PING answers PONG" {
  run rcli ping
  [ "$output" = "PONG" ]
}

@test "PING with a message echoes it" {
  run rcli ping "hello world"
  [ "$output" = "hello world" ]
}

@test "PING with two arguments is an arity error" {
  run rcli ping a b
  [ "$output" = "ERR wrong number of arguments for 'ping' command" ]
}

@test "ECHO returns its argument, binary safe" {
  run rcli echo "a b c"
  [ "$output" = "a b c" ]
  run bash -c "printf 'x\r\ny\0z' | redis-cli -p $PORT -x echo | od -An -c | tr -s ' '"
  [ "$output" = " x \r \n y \0 z \n" ]
}

@test "ECHO needs exactly one argument" {
  run rcli echo
  [ "$output" = "ERR wrong number of arguments for 'echo' command" ]
  run rcli echo a b
  [ "$output" = "ERR wrong number of arguments for 'echo' command" ]
}

@test "command names are case-insensitive" {
  run rcli pInG
  [ "$output" = "PONG" ]
  run rcli EcHo hi
  [ "$output" = "hi" ]
}

@test "an unknown command gets Redis's error, arguments quoted" {
  run rcli foo bar baz
  [ "$output" = "ERR unknown command 'foo', with args beginning with: 'bar' 'baz' " ]
  run rcli nosuchcommand
  [ "$output" = "ERR unknown command 'nosuchcommand', with args beginning with: " ]
}

@test "the unknown-command error stops quoting arguments at 128 characters" {
  long=$(printf 'a%.0s' $(seq 1 100))
  run rcli foo "$long" "$long" "$long"
  [ "$output" = "ERR unknown command 'foo', with args beginning with: '$long' '${long:0:25}' " ]
}

@test "QUIT answers OK and closes the connection" {
  run raw --close-expected <<<"$(printf 'QUIT\r\nPING\r\n')"
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf '+OK\r\n')" ]
}

@test "COMMAND COUNT, COMMAND DOCS and COMMAND INFO answer without an error" {
  run rcli command count
  [[ "$output" =~ ^[0-9]+$ ]]
  [ "$output" -ge 5 ]
  run rcli command docs
  [[ "$output" != ERR* ]]
  run rcli command info ping
  [[ "$output" == *ping* ]]
  run rcli command nosuch
  [ "$output" = "ERR unknown subcommand 'nosuch'. Try COMMAND HELP." ]
}

@test "redis-benchmark completes PING_INLINE and PING_MBULK" {
  # The full run in this step's own suite; a shorter one when a later step
  # replays this suite, or under valgrind.
  n=100000
  [ "${SUITE_IS_SERVER_STEP:-1}" != 1 ] && n=20000
  [ -n "${VALGRIND:-}${SANITIZED:-}" ] && n=5000
  run redis-benchmark -p "$PORT" -t ping_inline,ping_mbulk -n "$n" -q
  [ "$status" -eq 0 ]
  [[ "$output" == *"PING_INLINE"* ]]
  [[ "$output" == *"PING_MBULK"* ]]
  [[ "$output" != *rror* ]]
}

@test "a second server on a taken port exits with a non-zero status" {
  if is_reference; then
    run "$SERVER" --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no
  else
    run "$SERVER" --port "$PORT"
  fi
  [ "$status" -ne 0 ]
  run rcli ping
  [ "$output" = "PONG" ]
}

@test "the server says which step it is and where it listens when ready" {
  own_promise "start-up line format"
  run grep -E "ready to accept connections on 127.0.0.1:$PORT" "$SERVER_LOG"
  [ "$status" -eq 0 ]
}

@test "--help explains the flags" {
  own_promise "this project's flags"
  run "$SERVER" --help
  [ "$status" -eq 0 ]
  [[ "$output" == *"--port"* ]]
  [[ "$output" == *"--bind"* ]]
}

@test "CONFIG GET answers what redis-benchmark asks for at start-up" {
  run rcli config get appendonly
  [ "$output" = "$(printf 'appendonly\nno')" ]
  run rcli config get save
  [ "$output" = "$(printf 'save\n')" ]
  run rcli config get no-such-parameter
  [ "$output" = "" ]
}
