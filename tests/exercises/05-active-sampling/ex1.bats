#!/usr/bin/env bats
# Grader for chapter 05, exercise 1: CONFIG GET/SET hz and active-expire-effort.
#
# CONFIG GET hz answers 10; CONFIG SET hz N answers OK and clamps N into
# 1..500 (1000 gives 500, 0 gives 1); a value that is not an integer is
# Redis's "argument couldn't be parsed into an integer" and changes nothing.
# INFO server and the cron follow: at hz 1 an expired key waits for the next
# run, up to a second. active-expire-effort takes 1..10 and refuses the rest
# with "argument must be between 1 and 10 inclusive". CONFIG GET still
# answers the start-up parameters (save, appendonly) and several names at
# once. Whether the effort's four settings change is not visible from
# outside: the grader reads the value back and does not measure the cycle.
#
# Run it: make exercise STEP=05 EX=1 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

# The full error Redis gives for a CONFIG SET value it refuses.
set_error() { echo "ERR CONFIG SET failed (possibly related to argument '$1') - $2"; }

# expect_config NAME VALUE: CONFIG GET NAME answers VALUE (on its second line).
expect_config() {
  send config get "$1"
  [ "$(sed -n 2p <<<"$output")" = "$2" ] || fail_exchange "$(visible "$1") and its value $(visible "$2")"
}

# expect_info_line SECTION LINE: INFO SECTION has the line LINE.
expect_info_line() {
  send info "$1"
  tr -d '\r' <<<"$output" | grep -qx "$2" || fail_exchange "a line $(visible "$2")"
}

# expiry_wait_ms N [ROUNDS]: set N keys due in 100 ms, and print how many
# ms pass until the server has deleted them all (nobody reads them, so only
# the active cycle can), polling DBSIZE every 10 ms; -1 after 3 s. With
# ROUNDS, do it that many times, each round's keys set as soon as the last
# round's are seen gone, from the same process: the waits, on one line.
expiry_wait_ms() {
  "$PYTHON" - "$PORT" "$1" "${2:-1}" <<'PY'
import socket, sys, time
port, n, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port))
f = s.makefile("rb")
def wait_ms():
    s.sendall(b"".join(b"SET cron:%d v PX 100\r\n" % i for i in range(n)))
    for _ in range(n):
        assert f.readline() == b"+OK\r\n"
    start = time.monotonic()
    while time.monotonic() - start < 3:
        s.sendall(b"DBSIZE\r\n")
        if int(f.readline()[1:]) == 0:
            return int((time.monotonic() - start) * 1000)
        time.sleep(0.01)
    return -1
print(" ".join(str(wait_ms()) for _ in range(rounds)))
PY
}

@test "CONFIG GET hz answers hz and 10, an array in RESP2 and a map in RESP3" {
  send_multibulk 20 CONFIG GET hz
  expect_bytes '*2\r\n$2\r\nhz\r\n$2\r\n10\r\n'
  send_raw 'HELLO 3\r\nCONFIG GET hz\r\nQUIT\r\n' --close-expected
  expect_suffix "$(printf '%%1\r\n$2\r\nhz\r\n$2\r\n10\r\n+OK\r\n')"
}

@test "CONFIG SET hz 20 answers OK; CONFIG GET and INFO server follow" {
  send_multibulk 5 CONFIG SET hz 20
  expect_bytes '+OK\r\n'
  expect_config hz "20"
  expect_info_line server 'hz:20'
  rcli config set hz 10
  expect_info_line server 'hz:10'
}

@test "hz is clamped into 1..500: 1000 gives 500, 0 gives 1" {
  send config set hz 1000
  expect_reply "OK"
  expect_config hz "500"
  expect_info_line server 'hz:500'
  send config set hz 0
  expect_reply "OK"
  expect_config hz "1"
  rcli config set hz 10
}

@test "a hz that is not an integer is refused, and hz does not change" {
  rcli config set hz 10
  for bad in abc 1.5 "" " 12" 12abc 99999999999999999999; do
    send config set hz "$bad"
    expect_reply "$(set_error hz "argument couldn't be parsed into an integer")"
  done
  expect_config hz "10"
}

@test "the cron follows CONFIG SET hz: at hz 1 an expired key waits for the next run" {
  rcli flushall
  send config set hz 1
  expect_reply "OK"
  # The first batch ends just after a run of the cron; the second, set at
  # once by the same process (a new one may take longer than the wait to
  # start, on a busy machine), is due 100 ms later and must wait for the
  # run after, a second after the last (at hz 10 it would wait 100 to 200 ms).
  read -r first second < <(expiry_wait_ms 20 2)
  rcli config set hz 10
  echo "waits at hz 1: $first ms, then $second ms"
  SENT="at hz 1, 20 SET cron:N v PX 100, then DBSIZE every 10 ms until 0; twice, the second batch set as the first was seen gone"
  expect_num "ms until the first 20 keys were gone (-1: not within 3 s)" "$first" -ge 0
  expect_num "ms until the second 20 keys were gone" "$second" -ge 450
}

@test "expired keys are still reclaimed at hz 500" {
  rcli flushall
  rcli config set hz 500
  waited=$(expiry_wait_ms 1000)
  rcli config set hz 10
  echo "1000 keys gone $waited ms after they were set"
  SENT="at hz 500, 1000 SET cron:N v PX 100, then DBSIZE every 10 ms until 0"
  expect_num "ms until the keys were gone (-1: not within 3 s)" "$waited" -ge 0
}

@test "CONFIG GET active-expire-effort answers 1; CONFIG SET takes 1 to 10" {
  expect_config active-expire-effort "1"
  for n in 10 5 1; do
    send config set active-expire-effort "$n"
    expect_reply "OK"
    expect_config active-expire-effort "$n"
  done
}

@test "an effort outside 1..10, or not an integer, is refused and changes nothing" {
  rcli config set active-expire-effort 3
  for bad in 0 11 -1 100; do
    send config set active-expire-effort "$bad"
    expect_reply "$(set_error active-expire-effort "argument must be between 1 and 10 inclusive")"
  done
  send config set active-expire-effort abc
  expect_reply "$(set_error active-expire-effort "argument couldn't be parsed into an integer")"
  expect_config active-expire-effort "3"
  rcli config set active-expire-effort 1
}

@test "one CONFIG GET names several parameters, and each is answered once" {
  rcli config set hz 10
  send config get hz active-expire-effort hz nosuch
  # Name and value on alternate lines; the order of the pairs is free.
  expect_eq "the name=value pairs, sorted" "$(paste -d= - - <<<"$output" | sort | tr '\n' ' ')" "active-expire-effort=1 hz=10 "
}

@test "CONFIG GET still answers the start-up parameters" {
  send_multibulk 40 CONFIG GET appendonly save
  expect_contains "$(printf '$10\r\nappendonly\r\n$2\r\nno\r\n')"
  expect_contains "$(printf '$4\r\nsave\r\n$0\r\n\r\n')"
  expect_prefix "$(printf '*4\r\n')"
}

@test "CONFIG SET needs a parameter and a value" {
  send config set hz
  expect_reply "ERR wrong number of arguments for 'config|set' command"
  send config set
  expect_reply "ERR wrong number of arguments for 'config|set' command"
  expect_config hz "10"
}
