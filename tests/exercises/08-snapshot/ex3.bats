#!/usr/bin/env bats
# Grader for chapter 08, exercise 3: LZF compression in the writer, and
# --rdbcompression yes|no.
#
# As Redis's rdbSaveRawString() (rdb.c, 7.0.15) writes strings, keys and
# values alike: an integer if it is one; else, with rdbcompression yes (the
# default), LZF for a string of more than 20 bytes, kept only when it saves
# 4 bytes or more (C3, the compressed length, the length, the data); else
# the length and the bytes. With --rdbcompression no every string is plain.
# CONFIG GET rdbcompression answers yes or no.
#
# The file need not be Redis's to the byte: any LZF that decodes to the
# same strings will do, and the grader checks what the file holds, not how
# it was compressed. It reads the file with tests/exercises/08-snapshot/
# lzf_values.py, which says how each string is stored and decodes every
# LZF string itself; a file that holds 400 KB of repetitive values must be
# a quarter of that or less; redis-check-rdb must find it sound; and every
# value, short, integer, random (which LZF cannot shrink), 100,000 bytes
# long, or repeating at LZF's farthest reach of 8,192 bytes, must come back
# byte for byte after a restart and in redis-server 7.0.15.
#
# Run it: make exercise STEP=08 EX=3 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

VALUES="$BATS_TEST_DIRNAME/lzf_values.py"
K100=$(printf 'k%.0s' {1..100})

teardown() { stop_server; }

new_dir() {
  mktemp -d "$BATS_TEST_TMPDIR/dir.XXXXXX"
}

# expect_config NAME VALUE: CONFIG GET NAME answers NAME and VALUE.
expect_config() {
  send config get "$1"
  expect_reply "$1"$'\n'"$2"
}

# set_values SET: lzf_values.py set SET on the server; leaves the number of
# bytes of keys and values in BYTES.
set_values() {
  send_as "lzf_values.py set $1 (SET every key of the set, one connection)" "$PYTHON" "$VALUES" set "$PORT" "$1"
  expect_regex '^[0-9]+ keys, [0-9]+ bytes of keys and values$'
  BYTES=$(sed -n 's/^[0-9]* keys, \([0-9]*\) bytes.*/\1/p' <<<"$output")
}

# check_values SET: every key of SET holds its value on the server at PORT.
check_values() {
  send_as "lzf_values.py check $1 (GET every key of the set, one connection)" "$PYTHON" "$VALUES" check "$PORT" "$1"
  expect_match "all * keys hold their values"
}

# file_strings FILE KEY...: how FILE stores its strings, and those keys.
file_strings() {
  local file=$1
  shift
  send_as "lzf_values.py strings $(basename "$file") $(quote_args "$@")" "$PYTHON" "$VALUES" strings "$file" "$@"
  expect_status 0
}

# expect_line LINE: the last reply has the line LINE.
expect_line() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [[ $'\n'"${output-}"$'\n' == *$'\n'"$1"$'\n'* ]] ||
    fail_exchange "a reply with the line $(visible "$1")"
}

@test "a file of 400 KB of repetitive values is a quarter of that or less, and redis-check-rdb finds it sound" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  set_values bulk
  raw_bytes=$BYTES
  send save
  expect_reply "OK"
  size=$(stat -c %s "$dir/dump.rdb")
  expect_num "the size of dump.rdb, for $raw_bytes bytes of keys and values" "$size" -le $((raw_bytes / 4))
  send_as "redis-check-rdb $dir/dump.rdb" redis-check-rdb "$dir/dump.rdb"
  expect_status 0
  expect_contains "RDB looks OK"
  expect_contains "[info] 200 keys read"
}

@test "LZF where Redis uses it: strings, keys too, of more than 20 bytes that it shrinks by 4 bytes or more" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  set_values edge
  set_values bulk
  send save
  expect_reply "OK"
  file_strings "$dir/dump.rdb" text:2000 run:100000 period:8192 bulk:0 bulk:199 "$K100" \
    short:19 short:20 random:25 random:1000 random:5000 period:8193 few:40 int:12345 12345
  expect_line "lzf of 20 bytes or fewer: 0"
  expect_line "lzf saving under 4 bytes: 0"
  expect_line "lzf not decoding: 0"
  expect_line "text:2000: key plain, value lzf"
  expect_line "run:100000: key plain, value lzf"
  expect_line "period:8192: key plain, value lzf"
  expect_line "bulk:0: key plain, value lzf"
  expect_line "bulk:199: key plain, value lzf"
  expect_line "$K100: key lzf, value plain"
  expect_line "short:19: key plain, value plain"
  expect_line "short:20: key plain, value plain"
  expect_line "random:25: key plain, value plain"
  expect_line "random:1000: key plain, value plain"
  expect_line "random:5000: key plain, value plain"
  # Its repeat is 8,193 bytes back, one more than an LZF reference reaches.
  expect_line "period:8193: key plain, value plain"
  # One repeat in 40 random bytes: LZF saves less than 4 bytes on it.
  expect_line "few:40: key plain, value plain"
  expect_line "int:12345: key plain, value integer"
  expect_line "12345: key integer, value plain"
}

@test "every value comes back byte for byte after a restart, and in redis-server 7.0.15" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  set_values edge
  set_values bulk
  send save
  expect_reply "OK"
  stop_server
  start_server --dir "$dir" --save ''
  check_values edge
  check_values bulk
  send dbsize
  expect_reply "225"
  # Saved again by a server that loaded LZF strings: still the same values.
  send debug reload
  expect_reply "OK"
  check_values edge
  stop_server
  SERVER=redis-server start_server --dir "$dir"
  check_values edge
  check_values bulk
}

@test "with --rdbcompression no every string is plain, and CONFIG GET rdbcompression answers no" {
  dir=$(new_dir)
  start_server --dir "$dir" --save '' --rdbcompression no
  expect_config rdbcompression no
  set_values edge
  raw_bytes=$BYTES
  send save
  expect_reply "OK"
  file_strings "$dir/dump.rdb" text:2000 run:100000 "$K100"
  expect_prefix "lzf 0, "
  expect_line "run:100000: key plain, value plain"
  expect_line "$K100: key plain, value plain"
  size=$(stat -c %s "$dir/dump.rdb")
  expect_num "the size of dump.rdb, for $raw_bytes bytes of keys and values" "$size" -gt "$raw_bytes"
  stop_server
  start_server --dir "$dir" --save '' --rdbcompression NO
  check_values edge
  stop_server
  start_server --dir "$dir" --save '' --rdbcompression Yes
  expect_config rdbcompression yes
}
