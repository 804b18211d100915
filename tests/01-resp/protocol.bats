#!/usr/bin/env bats
# Chapter 01: the RESP parser seen from a socket: inline requests, framing,
# pipelining, and every protocol error of Redis's list, byte for byte.
# Each test's name starts with its stage (tests/01-resp/stages).

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

# expect_protocol_error REQUEST MESSAGE: the server answers -ERR Protocol
# error: MESSAGE, closes this connection, and keeps serving others.
expect_protocol_error() {
  send_raw "$1" --close-expected
  expect_status 0
  expect_reply "$(printf -- '-ERR Protocol error: %s\r\n' "$2")"
  send ping
  expect_reply "PONG"
}

@test "01-4 inline PING" {
  send_raw 'PING\r\n' --expect 7
  expect_bytes '+PONG\r\n'
}

@test "01-4 inline requests accept LF alone and split on spaces and tabs" {
  send_raw 'ECHO \t hello\n' --expect 11
  expect_bytes '$5\r\nhello\r\n'
}

@test "01-4 inline quoting follows Redis: escapes in double quotes, \\' in single quotes" {
  send_raw 'ECHO "a b\\x41\\n"\r\n' --expect 11
  expect_bytes '$5\r\na bA\n\r\n'
  send_raw "ECHO 'it\\\\'s'\\r\\n" --expect 10
  expect_bytes "\$4\r\nit's\r\n"
  send_raw 'ECHO ab"c d"\r\n' --expect 11
  expect_bytes '$5\r\nabc d\r\n'
}

@test "01-4 an empty inline argument is allowed" {
  send_raw 'ECHO ""\r\n' --expect 6
  expect_bytes '$0\r\n\r\n'
}

@test "01-4 blank lines and *0 get no reply" {
  send_raw '\r\n*0\r\n*-1\r\n   \r\nPING\r\n' --expect 7
  expect_bytes '+PONG\r\n'
}

@test "01-4 binary bulk arguments keep CR, LF and NUL" {
  send_as "ECHO of a, CR, LF, NUL, b as a multibulk request, reply shown by od -c" \
    bash -c "printf '*2\r\n\$4\r\nECHO\r\n\$5\r\na\r\n\0b\r\n' | $PYTHON $RAWIO $PORT --expect 11 | od -An -c | tr -s ' '"
  expect_reply " \$ 5 \r \n a \r \n \0 b \r \n"
}

@test "01-5 a request sent one byte at a time parses as when whole" {
  send_raw '*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\nPING\r\n*1\r\n$4\r\nPING\r\n' --bytewise --expect 32
  expect_bytes '$11\r\nhello world\r\n+PONG\r\n+PONG\r\n'
}

@test "01-5 a client halfway through a command does not hold up the others" {
  local first # (a descriptor of its own: bats writes to 3)
  exec {first}<>"/dev/tcp/127.0.0.1/$PORT"
  printf '*2\r\n$4\r\nECHO\r\n$5\r\nhel' >&"$first"
  send ping
  expect_reply "PONG"
  printf 'lo\r\n' >&"$first"
  send_as "lo\\r\\n, the rest of ECHO hello, on the first connection; 11 bytes of its reply read there" \
    timeout "$EXCHANGE_TIMEOUT_S" head -c 11 <&"$first"
  expect_bytes '$5\r\nhello\r\n'
  exec {first}<&-
}

@test "01-5 10,000 pipelined PINGs in one write get 10,000 PONGs in order" {
  send_as "10,000 inline PINGs in one write; the replies counted by uniq -c" \
    bash -c "for i in \$(seq 1 10000); do printf 'PING\r\n'; done | $PYTHON $RAWIO $PORT --expect 70000 | tr -d '\r' | sort | uniq -c | tr -s ' '"
  expect_reply " 10000 +PONG"
  # Ordered replies: ECHO 1..1000 come back as 1..1000.
  send_as "ECHO 1 ... ECHO 1000 in one write; the replies joined by commas" \
    bash -c "for i in \$(seq 1 1000); do printf 'ECHO %d\r\n' \$i; done | $PYTHON $RAWIO $PORT --expect 8893 | grep -av '^\\$' | tr -d '\r' | paste -sd,"
  expect_reply "$(seq 1 1000 | paste -sd,)"
}

@test "01-6 invalid multibulk length: not a number, or above INT_MAX" {
  expect_protocol_error '*3000000000\r\n' "invalid multibulk length"
  expect_protocol_error '*abc\r\n' "invalid multibulk length"
  expect_protocol_error '*+1\r\n' "invalid multibulk length"
}

@test "01-6 expected '\$', got something else" {
  expect_protocol_error '*1\r\nx\r\nfooz\r\n' "expected '\$', got 'x'"
}

@test "01-6 invalid bulk length: negative, too big, or not a number" {
  expect_protocol_error '*1\r\n$-10\r\n' "invalid bulk length"
  expect_protocol_error '*1\r\n$2000000000\r\n' "invalid bulk length"
  expect_protocol_error '*1\r\n$blabla\r\n' "invalid bulk length"
}

@test "01-6 unbalanced quotes in an inline request" {
  expect_protocol_error 'ECHO "abc\r\n' "unbalanced quotes in request"
  expect_protocol_error "ECHO 'abc\\r\\n" "unbalanced quotes in request"
  expect_protocol_error 'ECHO "abc"def\r\n' "unbalanced quotes in request"
}

@test "01-6 too big inline request: over 64 KB without a newline" {
  expect_protocol_error "$(head -c 70000 /dev/zero | tr '\0' 'a')" "too big inline request"
}

@test "01-6 a multi-megabyte inline line is refused without hurting others" {
  # The server stops reading at 64 KB and closes; Redis then resets the
  # connection with the rest unread, which can destroy its reply. This
  # server drains the input first, so the reply always arrives.
  own_promise "the error reply survives a client still sending"
  expect_protocol_error "$(head -c 3000000 /dev/zero | tr '\0' 'a')" "too big inline request"
}

@test "01-6 too big mbulk count string and too big bulk count string" {
  expect_protocol_error "*$(head -c 70000 /dev/zero | tr '\0' '1')" "too big mbulk count string"
  expect_protocol_error "*1\r\n\$$(head -c 70000 /dev/zero | tr '\0' '1')" "too big bulk count string"
}

@test "01-6 commands before a protocol error in the same pipeline still run" {
  send_raw 'PING\r\n*1\r\n$-5\r\nPING\r\n' --close-expected
  expect_bytes '+PONG\r\n-ERR Protocol error: invalid bulk length\r\n'
}

@test "01-6 a client that disconnects mid-command costs nothing and others are served" {
  for _ in 1 2 3; do printf '*3\r\n$3\r\nSET\r\n$100\r\nabc' | raw --expect 0 >/dev/null || true; done
  send ping
  expect_reply "PONG"
}
