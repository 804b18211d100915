#!/usr/bin/env bats
# Grader for chapter 08, exercise 2: DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE].
#
# As in Redis 7.0 (debug.c): every option is read first, in any case and any
# number of times; any other word is "ERR DEBUG RELOAD only supports the
# MERGE, NOFLUSH and NOSAVE options." and changes nothing. Then:
#   NOSAVE   no save: the file is loaded as it is on disk, and left alone;
#            rdb_changes_since_last_save, LASTSAVE and rdb_saves do not move.
#            With no file there, "ERR Error trying to load the RDB dump".
#   NOFLUSH  the keys in memory are kept, and the file's added to them.
#   MERGE    a key of the file replaces the same key in memory, value and
#            TTL (or its absence); a key the file holds already expired is
#            dropped first, so it leaves memory's alone. Without NOFLUSH
#            there is nothing to merge with: a plain reload.
# A plain DEBUG RELOAD still saves first. NOFLUSH without MERGE on a key
# both hold is not graded: Redis stops the whole server there ("Duplicated
# key found in RDB file"). Nor is what is left in memory when NOSAVE finds
# no file (Redis has emptied it by then).
#
# Most tests write the file by hand (tests/08-snapshot/rdb_write.py) into
# the server's directory while it runs, so that what DEBUG RELOAD NOSAVE
# loads is known to the byte. One waits for a TTL of 200 ms to pass, to see
# that the key the file replaced does not expire with its old timer.
#
# Run it: make exercise STEP=08 EX=2 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

RDB_WRITE="$BATS_TEST_DIRNAME/../../08-snapshot/rdb_write.py"

teardown() { stop_server; }

new_dir() {
  mktemp -d "$BATS_TEST_TMPDIR/dir.XXXXXX"
}

# cli_lines LINE...: the lines on one connection, as redis-cli reads commands
# from its standard input; typed replies (--no-raw: "v", (integer) 1, (nil)).
cli_lines() {
  printf '%s\n' "$@" | redis-cli -p "$PORT" --no-raw
}

# send_lines LINE...: cli_lines, shown as the lines joined by " | ".
send_lines() {
  local line shown=""
  for line in "$@"; do shown+="${shown:+ | }$line"; done
  send_as "redis-cli --no-raw, reading the lines: $shown" cli_lines "$@"
}

# send_info: INFO persistence, CRs removed, kept in INFO_TEXT for expect_field.
info_text() {
  rcli info persistence | tr -d '\r'
}
send_info() {
  send_as "redis-cli INFO persistence (CRs removed)" info_text
  INFO_TEXT=$output
}

# expect_field NAME WANT: field NAME of the last send_info's reply is WANT.
expect_field() {
  local got=""
  if [[ $'\n'"$INFO_TEXT"$'\n' =~ $'\n'"$1":([^$'\n']*)$'\n' ]]; then got=${BASH_REMATCH[1]}; fi
  expect_eq "INFO field $1" "$got" "$2"
}

# write_file FILE RECORD...: rdb_write.py write FILE RECORD...
write_file() {
  local file=$1
  shift
  send_as "rdb_write.py write $(basename "$file") $(quote_args "$@")" "$PYTHON" "$RDB_WRITE" write "$file" "$@"
  expect_status 0
}

# sleep_until_ms AT: sleep until the wall clock reads AT (Unix ms) or later,
# to let a deadline pass.
sleep_until_ms() {
  local left=$(($1 - $(now_ms)))
  if [ "$left" -gt 0 ]; then sleep "$((left / 1000)).$(printf '%03d' $((left % 1000)))"; fi
}

@test "DEBUG RELOAD NOSAVE loads the file as it is on disk, and writes nothing" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  send_lines "SET a 1" "SET t v" "SAVE"
  expect_reply $'OK\nOK\nOK'
  cp "$dir/dump.rdb" "$dir/saved.rdb"
  send_lines "SET a 2" "SET b x" "PEXPIRE t 100000"
  expect_reply $'OK\nOK\n(integer) 1'
  send lastsave
  lastsave=$output
  send_info
  expect_field rdb_changes_since_last_save 3
  saves=$(sed -n 's/^rdb_saves://p' <<<"$INFO_TEXT")
  send debug reload nosave
  expect_reply "OK"
  send_lines "GET a" "GET b" "PTTL t" "DBSIZE"
  expect_reply $'"1"\n(nil)\n(integer) -1\n(integer) 2'
  send_as "cmp saved.rdb dump.rdb (the file DEBUG RELOAD NOSAVE loaded)" cmp "$dir/saved.rdb" "$dir/dump.rdb"
  expect_status 0
  send_info
  expect_field rdb_changes_since_last_save 3
  expect_field rdb_saves "$saves"
  expect_field rdb_last_load_keys_loaded 2
  send lastsave
  expect_reply "$lastsave"
}

@test "DEBUG RELOAD NOSAVE loads a file put there while the server runs, deadlines and all" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  rcli set old v >/dev/null
  now=$(now_ms)
  future=$((now + 100000)) past=$((now - 5000))
  write_file "$dir/dump.rdb" --string plain "from the file" --string-ms later "in 100 s" "$future" \
    --string-ms gone "5 s ago" "$past"
  send debug reload NOSAVE
  expect_reply "OK"
  send_lines "DBSIZE" "GET plain" "GET later" "PEXPIRETIME later" "GET gone" "GET old"
  expect_reply "(integer) 2"$'\n''"from the file"'$'\n''"in 100 s"'$'\n'"(integer) $future"$'\n''(nil)'$'\n''(nil)'
  send_info
  expect_field rdb_last_load_keys_loaded 2
  expect_field rdb_last_load_keys_expired 1
}

@test "DEBUG RELOAD NOSAVE with no file is an error" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  rcli set k v >/dev/null
  send debug reload nosave
  expect_reply "ERR Error trying to load the RDB dump"
  send_as "ls $dir (no file may appear)" ls -A "$dir"
  expect_reply ""
}

@test "NOSAVE NOFLUSH keeps the keys in memory, TTLs included, beside the file's" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  send_lines "SET m1 memory" "SET m2 memory PXAT 4102444800123"
  expect_reply $'OK\nOK'
  write_file "$dir/dump.rdb" --string f1 "file one" --string-ms f2 "file two" 4102444800999
  send debug reload nosave noflush
  expect_reply "OK"
  send_lines "DBSIZE" "GET m1" "GET m2" "PEXPIRETIME m2" "GET f1" "GET f2" "PEXPIRETIME f2"
  expect_reply "(integer) 4"$'\n''"memory"'$'\n''"memory"'$'\n''(integer) 4102444800123'$'\n''"file one"'$'\n''"file two"'$'\n''(integer) 4102444800999'
  send_info
  expect_field rdb_last_load_keys_loaded 2
}

@test "MERGE: the file's key replaces memory's, value and TTL; one the file holds already expired leaves memory's alone" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  send_lines "SET a memory PX 200" "SET t memory" "SET gone memory" "SET only memory"
  a_deadline=$(($(now_ms) + 200))
  expect_reply $'OK\nOK\nOK\nOK'
  write_file "$dir/dump.rdb" --string a "from the file" --string-ms t "file TTL" 4102444800123 \
    --string-ms gone "expired in the file" "$(($(now_ms) - 5000))"
  send debug reload NoSave NOFLUSH merge
  expect_reply "OK"
  send_lines "DBSIZE" "GET a" "PEXPIRETIME a" "GET t" "PEXPIRETIME t" "GET gone" "GET only"
  expect_reply "(integer) 4"$'\n''"from the file"'$'\n''(integer) -1'$'\n''"file TTL"'$'\n''(integer) 4102444800123'$'\n''"memory"'$'\n''"memory"'
  send_info
  expect_field rdb_last_load_keys_loaded 2
  expect_field rdb_last_load_keys_expired 1
  # The old a's 200 ms pass: the a the file gave has no TTL, and stays.
  sleep_until_ms $((a_deadline + 300))
  send_lines "GET a" "DBSIZE"
  expect_reply '"from the file"'$'\n''(integer) 4'
}

@test "MERGE without NOFLUSH empties the keyspace first, as a plain reload does" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  send_lines "SET mine v" "SET shared memory"
  expect_reply $'OK\nOK'
  write_file "$dir/dump.rdb" --string shared "from the file" --string other w
  send debug reload nosave merge
  expect_reply "OK"
  send_lines "DBSIZE" "GET mine" "GET shared" "GET other"
  expect_reply "(integer) 2"$'\n''(nil)'$'\n''"from the file"'$'\n''"w"'
}

@test "options may repeat in any case; any other word is refused before anything is done" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  send_lines "SET a 1" "SAVE" "SET a 2"
  expect_reply $'OK\nOK\nOK'
  for opts in "FOO" "NOSAVE FOO" "MERGE NOFLUSH NOSAVE extra" "NOSAVE,NOFLUSH"; do
    # shellcheck disable=SC2086 # the options are words
    send debug reload $opts
    expect_reply "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."
  done
  send_lines "GET a" "DBSIZE"
  expect_reply '"2"'$'\n''(integer) 1'
  send debug reload nosave NOSAVE nosave
  expect_reply "OK"
  send get a
  expect_reply "1"
}

@test "a plain DEBUG RELOAD still saves first, and MERGE beside it changes nothing" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  send_lines "SET a 1" "SET t v PXAT 4102444800123"
  expect_reply $'OK\nOK'
  send debug reload
  expect_reply "OK"
  send_lines "GET a" "PEXPIRETIME t" "DBSIZE"
  expect_reply '"1"'$'\n''(integer) 4102444800123'$'\n''(integer) 2'
  send_info
  expect_field rdb_changes_since_last_save 0
  rcli set a 2 >/dev/null
  send debug reload merge
  expect_reply "OK"
  send_lines "GET a" "DBSIZE"
  expect_reply '"2"'$'\n''(integer) 2'
  stop_server
  send_as "redis-check-rdb $dir/dump.rdb (written by the last DEBUG RELOAD)" redis-check-rdb "$dir/dump.rdb"
  expect_contains "[info] 2 keys read"
}
