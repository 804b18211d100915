#!/usr/bin/env bats
# Chapter 01: the RESP parser seen from a socket: inline requests, framing,
# pipelining, and every protocol error of Redis's list, byte for byte.

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

# expect_protocol_error REQUEST MESSAGE: the server answers -ERR Protocol
# error: MESSAGE, closes this connection, and keeps serving others.
expect_protocol_error() {
  run raw --close-expected < <(printf '%b' "$1")
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf -- '-ERR Protocol error: %s\r\n' "$2")" ]
  run rcli ping
  [ "$output" = "PONG" ]
}

@test "inline PING" {
  run raw --expect 7 < <(printf 'PING\r\n')
  [ "$output" = "$(printf '+PONG\r\n')" ]
}

@test "inline requests accept LF alone and split on spaces and tabs" {
  run raw --expect 11 < <(printf 'ECHO \t hello\n')
  [ "$output" = "$(printf '$5\r\nhello\r\n')" ]
}

@test "inline quoting follows Redis: escapes in double quotes, \\' in single quotes" {
  run raw --expect 10 < <(printf 'ECHO "a b\\x41\\n"\r\n')
  [ "$output" = "$(printf '$5\r\na bA\n\r\n')" ]
  run raw --expect 9 < <(printf "ECHO 'it\\\\'s'\\r\\n")
  [ "$output" = "$(printf "\$4\r\nit's\r\n")" ]
  run raw --expect 10 < <(printf 'ECHO ab"c d"\r\n')
  [ "$output" = "$(printf '$5\r\nabc d\r\n')" ]
}

@test "an empty inline argument is allowed" {
  run raw --expect 6 < <(printf 'ECHO ""\r\n')
  [ "$output" = "$(printf '$0\r\n\r\n')" ]
}

@test "blank lines and *0 get no reply" {
  run raw --expect 7 < <(printf '\r\n*0\r\n*-1\r\n   \r\nPING\r\n')
  [ "$output" = "$(printf '+PONG\r\n')" ]
}

@test "binary bulk arguments keep CR, LF and NUL" {
  run bash -c "printf '*2\r\n\$4\r\nECHO\r\n\$5\r\na\r\n\0b\r\n' | $PYTHON $RAWIO $PORT --expect 11 | od -An -c | tr -s ' '"
  [ "$output" = " \$ 5 \r \n a \r \n \0 b \r \n" ]
}

@test "a request sent one byte at a time parses as when whole" {
  run raw --bytewise --expect 27 < <(printf '*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\nPING\r\n*1\r\n$4\r\nPING\r\n')
  [ "$output" = "$(printf '$11\r\nhello world\r\n+PONG\r\n+PONG\r\n')" ]
}

@test "10,000 pipelined PINGs in one write get 10,000 PONGs in order" {
  run bash -c "for i in \$(seq 1 10000); do printf 'PING\r\n'; done | $PYTHON $RAWIO $PORT --expect 70000 | tr -d '\r' | sort | uniq -c"
  [ "$(echo "$output" | tr -s ' ')" = " 10000 +PONG" ]
  # Ordered replies: ECHO 1..1000 come back as 1..1000.
  run bash -c "for i in \$(seq 1 1000); do printf 'ECHO %d\r\n' \$i; done | $PYTHON $RAWIO $PORT --expect 8893 | grep -av '^\\$' | tr -d '\r' | paste -sd,"
  [ "$output" = "$(seq 1 1000 | paste -sd,)" ]
}

@test "invalid multibulk length: not a number, or above INT_MAX" {
  expect_protocol_error '*3000000000\r\n' "invalid multibulk length"
  expect_protocol_error '*abc\r\n' "invalid multibulk length"
  expect_protocol_error '*+1\r\n' "invalid multibulk length"
}

@test "expected '\$', got something else" {
  expect_protocol_error '*1\r\nx\r\nfooz\r\n' "expected '\$', got 'x'"
}

@test "invalid bulk length: negative, too big, or not a number" {
  expect_protocol_error '*1\r\n$-10\r\n' "invalid bulk length"
  expect_protocol_error '*1\r\n$2000000000\r\n' "invalid bulk length"
  expect_protocol_error '*1\r\n$blabla\r\n' "invalid bulk length"
}

@test "unbalanced quotes in an inline request" {
  expect_protocol_error 'ECHO "abc\r\n' "unbalanced quotes in request"
  expect_protocol_error "ECHO 'abc\\r\\n" "unbalanced quotes in request"
  expect_protocol_error 'ECHO "abc"def\r\n' "unbalanced quotes in request"
}

@test "too big inline request: over 64 KB without a newline" {
  expect_protocol_error "$(head -c 70000 /dev/zero | tr '\0' 'a')" "too big inline request"
}

@test "a multi-megabyte inline line is refused without hurting others" {
  # The server stops reading at 64 KB and closes; Redis then resets the
  # connection with the rest unread, which can destroy its reply. This
  # server drains the input first, so the reply always arrives.
  own_promise "the error reply survives a client still sending"
  expect_protocol_error "$(head -c 3000000 /dev/zero | tr '\0' 'a')" "too big inline request"
}

@test "too big mbulk count string and too big bulk count string" {
  expect_protocol_error "*$(head -c 70000 /dev/zero | tr '\0' '1')" "too big mbulk count string"
  expect_protocol_error "*1\r\n\$$(head -c 70000 /dev/zero | tr '\0' '1')" "too big bulk count string"
}

@test "commands before a protocol error in the same pipeline still run" {
  run raw --close-expected < <(printf 'PING\r\n*1\r\n$-5\r\nPING\r\n')
  [ "$output" = "$(printf -- '+PONG\r\n-ERR Protocol error: invalid bulk length\r\n')" ]
}

@test "a client that disconnects mid-command costs nothing and others are served" {
  for _ in 1 2 3; do printf '*3\r\n$3\r\nSET\r\n$100\r\nabc' | raw --expect 0 >/dev/null || true; done
  run rcli ping
  [ "$output" = "PONG" ]
}
