#!/usr/bin/env bats
# Chapter 08: meeting real Redis. A snapshot this server writes loads in a
# real redis-server 7.0.15, and redis-check-rdb finds it sound; one that
# redis-server writes, with every string encoding it uses, loads here; and
# so do files written by hand, as CodeCrafters' tester writes them.
# Grades any server: make grade STEP=08, or make test STEP=08 SERVER=path.
# Each test's name starts with its stage (tests/08-snapshot/stages).
#
# Every test starts its servers one after the other, in one directory, and
# teardown stops the last. The real Redis is started as server.bash says,
# SERVER=redis-server start_server; against the reference, both are Redis.

load ../helpers/server
load snapshot

RDB_WRITE="$BATS_TEST_DIRNAME/rdb_write.py"

teardown() { stop_server; }

# The keys both directions carry: each key as redis-cli reads it, and its
# value as redis-cli reads it, which is also how GET answers it (--no-raw).
# Redis 7.0.15 stores "12345", "-7", "2147483647", "-2147483648" and the key
# "123" as integers (C0, C1, C2), keeps "0123" and "4294967296" as text,
# and compresses with LZF the values (and keys) over 20 bytes where that
# saves 4 bytes or more.
LONG_KEY="long:$(printf 'k%.0s' {1..300})"
Z4000=$(printf 'z%.0s' {1..4000})
FIXTURE=(
  plain '"hello"'
  int:small '"12345"'
  int:neg '"-7"'
  int:max32 '"2147483647"'
  int:min32 '"-2147483648"'
  int:zeros '"0123"'
  int:big '"4294967296"'
  123 '"a key that is an integer"'
  empty '""'
  '"bin:\x00\r\n"' '"\x00\r\n\xff-binary-\x01"'
  '"\r\n"' '"a key that is CR LF"'
  text:long '"a value that is longer than twenty bytes, and is text"'
  run:long "\"$Z4000\""
  "$LONG_KEY" '"the key is 305 bytes long"'
  "long:key:$(printf 'ab%.0s' {1..20})" "\"$(printf 'xy%.0s' {1..40})\""
  '"a key with spaces"' '"a value with spaces"'
)
FIXTURE_KEYS=$((${#FIXTURE[@]} / 2 + 4))

# set_fixture: SET every key of FIXTURE, and four with TTLs.
set_fixture() {
  local i lines=()
  for ((i = 0; i < ${#FIXTURE[@]}; i += 2)); do lines+=("SET ${FIXTURE[i]} ${FIXTURE[i + 1]}"); done
  lines+=('SET ttl:abs "at 2100" PXAT 4102444800123' 'SET ttl:px "in 100 s" PX 100000'
    "SET ttl:long \"$Z4000\" EX 1000" 'SET "ttl:\x00" "binary" PXAT 4102444800999')
  send_lines "${lines[@]}"
  expect_reply "$(for l in "${lines[@]}"; do echo OK; done)"
}

# check_fixture: GET every key of FIXTURE (on one connection) answers its value.
check_fixture() {
  local i lines=() got=()
  for ((i = 0; i < ${#FIXTURE[@]}; i += 2)); do lines+=("GET ${FIXTURE[i]}"); done
  lines+=("GET ttl:long" 'GET "ttl:\x00"')
  send_lines "${lines[@]}"
  mapfile -t got <<<"$output"
  for ((i = 0; i < ${#FIXTURE[@]}; i += 2)); do
    expect_eq "the reply to GET ${FIXTURE[i]}" "${got[i / 2]-}" "${FIXTURE[i + 1]}"
  done
  expect_eq "the reply to GET ttl:long" "${got[${#FIXTURE[@]} / 2]-}" "\"$Z4000\""
  expect_eq 'the reply to GET "ttl:\x00"' "${got[${#FIXTURE[@]} / 2 + 1]-}" '"binary"'
}

# pexpiretimes: the PEXPIRETIMEs of the four keys with TTLs.
pexpiretimes() {
  send_lines "PEXPIRETIME ttl:abs" "PEXPIRETIME ttl:px" "PEXPIRETIME ttl:long" 'PEXPIRETIME "ttl:\x00"'
}

@test "08-6 a snapshot written here loads in redis-server 7.0.15: the same keys, values and PEXPIRETIMEs" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  set_fixture
  load_keys many 300
  pexpiretimes
  ttls=$output
  expect_match "(integer) 4102444800123"$'\n'"(integer) [0-9]*"$'\n'"(integer) [0-9]*"$'\n'"(integer) 4102444800999"
  send save
  expect_reply "OK"
  stop_server
  send_as "redis-check-rdb $dir/dump.rdb" redis-check-rdb "$dir/dump.rdb"
  expect_status 0
  expect_contains "RDB looks OK"
  expect_contains "[info] $((FIXTURE_KEYS + 300)) keys read"
  expect_contains "[info] 4 expires"
  SERVER=redis-server start_server --dir "$dir"
  send_info
  expect_field rdb_last_load_keys_loaded "$((FIXTURE_KEYS + 300))"
  expect_field rdb_last_load_keys_expired 0
  send_lines "DBSIZE" "GET many:0" "GET many:299"
  expect_reply "(integer) $((FIXTURE_KEYS + 300))"$'\n''"v"'$'\n''"v"'
  check_fixture
  pexpiretimes
  expect_reply "$ttls"
}

@test "08-6 a snapshot written by redis-server 7.0.15 loads here: integers, LZF, long and binary keys, TTLs, keys already expired" {
  dir=$(new_dir)
  SERVER=redis-server start_server --dir "$dir"
  set_fixture
  load_keys many 300
  pexpiretimes
  ttls=$output
  # Expired but not deleted (active expiry off, and nothing reads them):
  # Redis writes them, and a loader must drop them.
  send_lines "DEBUG SET-ACTIVE-EXPIRE 0" "SET gone:short v PX 200" \
    "SET gone:long \"$(printf 'gone%.0s' {1..20})\" PX 200" 'SET "gone:\x00" "\x00" PX 200'
  gone_by=$(($(now_ms) + 200))
  expect_reply $'OK\nOK\nOK\nOK'
  sleep_until_ms $((gone_by + 200))
  send save
  expect_reply "OK"
  stop_server
  send_as "redis-check-rdb $dir/dump.rdb" redis-check-rdb "$dir/dump.rdb"
  expect_contains "[info] $((FIXTURE_KEYS + 303)) keys read"
  expect_contains "[info] 3 already expired"
  # 4000 z's twice, and over 10 KB of keys and values in all: a file this
  # small holds LZF-compressed strings.
  size=$(stat -c %s "$dir/dump.rdb")
  expect_num "the size of redis-server's dump.rdb, with two values of 4000 z's" "$size" -lt 6000
  start_server --dir "$dir" --save ''
  send_info
  expect_field rdb_last_load_keys_loaded "$((FIXTURE_KEYS + 300))"
  expect_field rdb_last_load_keys_expired 3
  send_lines "DBSIZE" "GET many:0" "GET many:299" "GET gone:short" "GET gone:long" 'GET "gone:\x00"'
  expect_reply "(integer) $((FIXTURE_KEYS + 300))"$'\n''"v"'$'\n''"v"'$'\n''(nil)'$'\n''(nil)'$'\n''(nil)'
  check_fixture
  pexpiretimes
  expect_reply "$ttls"
}

@test "08-6 a version-10 file written by hand, without AUX fields or RESIZEDB, with FC and FD deadlines, loads as in Redis" {
  dir=$(new_dir)
  now=$(now_ms)
  future=$((now + 100000)) past=$((now - 5000)) secs=$((now / 1000 + 1000))
  send_as "rdb_write.py write dump.rdb (version 10)" "$PYTHON" "$RDB_WRITE" write "$dir/dump.rdb" \
    --version 10 --no-resizedb --string-ms future "in 100 s" "$future" --string-ms past "5 s ago" "$past" \
    --string-s seconds "in 1000 s" "$secs" --string plain 'no \x00 TTL\r\n' --string 12345 -7
  expect_status 0
  send_as "redis-check-rdb $dir/dump.rdb" redis-check-rdb "$dir/dump.rdb"
  expect_contains "RDB looks OK"
  expect_contains "[info] 5 keys read"
  expect_contains "[info] 1 already expired"
  start_server --dir "$dir" --save ''
  send_info
  expect_field rdb_last_load_keys_loaded 4
  expect_field rdb_last_load_keys_expired 1
  send_lines "DBSIZE" "GET future" "PEXPIRETIME future" "GET past" "GET seconds" "PEXPIRETIME seconds" \
    "GET plain" "PEXPIRETIME plain" "GET 12345"
  expect_reply "(integer) 4"$'\n''"in 100 s"'$'\n'"(integer) $future"$'\n''(nil)'$'\n''"in 1000 s"'$'\n'"(integer) $((secs * 1000))"$'\n''"no \x00 TTL\r\n"'$'\n''(integer) -1'$'\n''"-7"'
}

@test "08-6 a version-11 file as CodeCrafters writes it loads: a key past its FC deadline is gone, the others are back" {
  own_promise "reading RDB version 11 (redis-server 7.0.15 refuses it)"
  dir=$(new_dir)
  now=$(now_ms)
  future=$((now + 100000)) past=$((now - 5000)) secs=$((now / 1000 + 1000))
  send_as "rdb_write.py write dump.rdb (version 11, AUX redis-ver 7.2.0)" "$PYTHON" "$RDB_WRITE" write \
    "$dir/dump.rdb" --version 11 --aux redis-ver 7.2.0 --aux redis-bits 64 \
    --string-ms orange "in 100 s" "$future" --string-ms apple "5 s ago" "$past" \
    --string-s banana "in 1000 s" "$secs" --string mango "no TTL"
  expect_status 0
  start_server --dir "$dir" --save ''
  send_lines "DBSIZE" "GET orange" "PEXPIRETIME orange" "GET apple" "GET banana" "PEXPIRETIME banana" \
    "GET mango" "PEXPIRETIME mango"
  expect_reply "(integer) 3"$'\n''"in 100 s"'$'\n'"(integer) $future"$'\n''(nil)'$'\n''"in 1000 s"'$'\n'"(integer) $((secs * 1000))"$'\n''"no TTL"'$'\n''(integer) -1'
  send_info
  expect_field rdb_last_load_keys_loaded 3
  expect_field rdb_last_load_keys_expired 1
}
