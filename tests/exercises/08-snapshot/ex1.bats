#!/usr/bin/env bats
# Grader for chapter 08, exercise 1: --rdbchecksum yes|no.
#
# Redis's rdbchecksum, a start-up setting (CONFIG SET refuses it: it is
# immutable), yes by default. With yes a snapshot ends in EOF and the CRC-64
# of every byte before it, and a load refuses a file whose CRC-64 is wrong.
# With no the writer computes nothing and ends the file in FF and 8 zero
# bytes, which every loader takes for "not computed", and the loader checks
# nothing: a file with a wrong checksum loads, with the bytes it holds. The
# 8 bytes must still be there: a file cut short inside them is refused
# either way. CONFIG GET rdbchecksum answers yes or no; the flag takes yes
# or no in any case, and anything else stops the start-up.
#
# Every test starts its own servers, each in a directory of its own (--dir),
# and teardown stops the last. A server that must refuse a file is polled
# until it exits; it fails the check if it answers PING instead.
#
# Run it: make exercise STEP=08 EX=1 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

RDB_WRITE="$BATS_TEST_DIRNAME/../../08-snapshot/rdb_write.py"

teardown() { stop_server; }

new_dir() {
  mktemp -d "$BATS_TEST_TMPDIR/dir.XXXXXX"
}

# expect_config NAME VALUE: CONFIG GET NAME answers NAME and VALUE.
expect_config() {
  send config get "$1"
  expect_reply "$1"$'\n'"$2"
}

# checksum_of FILE: "stored S computed C": the last 8 bytes of FILE as a
# little-endian number, and the CRC-64 of every byte before them, in hex.
checksum_of() {
  "$PYTHON" - "$1" "$(dirname "$RDB_WRITE")" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[2])
from rdb_write import crc64
data = open(sys.argv[1], "rb").read()
print("stored %016x computed %016x" % (struct.unpack("<Q", data[-8:])[0], crc64(data[:-8])))
PY
}

# tail_bytes FILE N: the last N bytes of FILE, in hex.
tail_bytes() {
  tail -c "$2" "$1" | od -An -tx1 | tr -d ' \n'
}

# wait_bgsave_done WITHIN_MS: poll INFO persistence until no BGSAVE runs.
wait_bgsave_done() {
  local deadline=$(($(now_ms) + $1)) seen
  SENT="redis-cli INFO persistence, field rdb_bgsave_in_progress, every 20 ms for $1 ms"
  while :; do
    seen=$(rcli info persistence | tr -d '\r' | sed -n 's/^rdb_bgsave_in_progress://p')
    [ "$seen" = 0 ] && return 0
    if [ "$(now_ms)" -ge "$deadline" ]; then
      status='' fail_exchange "rdb_bgsave_in_progress:0 within $1 ms" "rdb_bgsave_in_progress:$seen"
      return 1
    fi
    sleep 0.02
  done
}


# cli_lines LINE...: the lines on one connection, as redis-cli reads commands
# from its standard input; raw replies, one a line.
cli_lines() {
  printf '%s\n' "$@" | redis-cli -p "$PORT"
}

# A file of two keys, written by hand, with a good CRC-64.
write_two_keys() {
  send_as "rdb_write.py write $1 (k1 v1, k2 'value two')" "$PYTHON" "$RDB_WRITE" write "$1" \
    --string k1 v1 --string k2 'value two'
  expect_status 0
}

@test "by default a snapshot ends in the CRC-64 of its bytes, and CONFIG GET rdbchecksum answers yes" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  expect_config rdbchecksum yes
  rcli set k v >/dev/null
  load_keys many 100
  send save
  expect_reply "OK"
  send_as "the last 8 bytes of dump.rdb, and the CRC-64 of the bytes before them" checksum_of "$dir/dump.rdb"
  expect_regex '^stored ([0-9a-f]{16}) computed \1$'
  expect_no_match 'stored 0000000000000000 *'
}

@test "with --rdbchecksum no, SAVE and BGSAVE end the file in FF and 8 zero bytes, which loaders accept" {
  dir=$(new_dir)
  start_server --dir "$dir" --save '' --rdbchecksum no
  expect_config rdbchecksum no
  load_keys many 100
  rcli set k v >/dev/null
  send save
  expect_reply "OK"
  send_as "the last 9 bytes of dump.rdb, after SAVE" tail_bytes "$dir/dump.rdb" 9
  expect_reply "ff0000000000000000"
  rm "$dir/dump.rdb"
  rcli set k2 v2 >/dev/null
  send bgsave
  expect_reply "Background saving started"
  wait_bgsave_done 30000
  send_as "the last 9 bytes of dump.rdb, after BGSAVE" tail_bytes "$dir/dump.rdb" 9
  expect_reply "ff0000000000000000"
  stop_server
  send_as "redis-check-rdb $dir/dump.rdb" redis-check-rdb "$dir/dump.rdb"
  expect_status 0
  expect_contains "RDB looks OK"
  expect_contains "[info] 102 keys read"
  # A loader that checks checksums accepts 8 zero bytes: "not computed".
  start_server --dir "$dir" --save ''
  send_as "redis-cli, reading the lines: DBSIZE | GET k2 | GET many:99" cli_lines "DBSIZE" "GET k2" "GET many:99"
  expect_reply $'102\nv2\nv'
  stop_server
  SERVER=redis-server start_server --dir "$dir"
  send dbsize
  expect_reply "102"
}

@test "a loader started with --rdbchecksum no loads a file whose checksum is wrong, as its bytes say; without it the file is refused" {
  dir=$(new_dir)
  write_two_keys "$dir/good.rdb"
  send_as "rdb_write.py damage: one bit of 'value two' flipped" "$PYTHON" "$RDB_WRITE" damage \
    "$dir/good.rdb" "$dir/dump.rdb" flip 'value two'
  expect_status 0
  refused_start --dir "$dir"
  start_server --dir "$dir" --save '' --rdbchecksum no
  send dbsize
  expect_reply "2"
  send get k2
  expect_reply "walue two"
  send get k1
  expect_reply "v1"
}

@test "even with --rdbchecksum no, a file cut short inside its 8 checksum bytes is refused" {
  dir=$(new_dir)
  write_two_keys "$dir/good.rdb"
  head -c -3 "$dir/good.rdb" >"$dir/dump.rdb"
  refused_start --dir "$dir" --rdbchecksum no
  head -c -8 "$dir/good.rdb" >"$dir/dump.rdb"
  refused_start --dir "$dir" --rdbchecksum no
  # The whole file loads, of course.
  cp "$dir/good.rdb" "$dir/dump.rdb"
  start_server --dir "$dir" --save '' --rdbchecksum no
  send get k2
  expect_reply "value two"
}

@test "--rdbchecksum takes yes or no, in any case; anything else stops the start-up" {
  start_server --dir "$(new_dir)" --save '' --rdbchecksum NO
  expect_config rdbchecksum no
  stop_server
  start_server --dir "$(new_dir)" --save '' --rdbchecksum Yes
  expect_config rdbchecksum yes
  stop_server
  dir=$(new_dir)
  refused_start --dir "$dir" --rdbchecksum maybe
  refused_start --dir "$dir" --rdbchecksum 1
}
