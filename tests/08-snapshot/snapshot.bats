#!/usr/bin/env bats
# Chapter 08: RDB snapshots. SAVE, BGSAVE, LASTSAVE, the save points and
# SHUTDOWN; what a restart loads back, keys whose deadline passed while the
# server was down, a fork that writes while the parent serves, and files
# that are never left half-written or half-loaded.
# Grades any server: make grade STEP=08, or make test STEP=08 SERVER=path.
# Each test's name starts with its stage (tests/08-snapshot/stages).
#
# Every test starts its own servers, with the flags it needs, and teardown
# stops them. A slow save is made with --rdb-key-save-delay MICROSECONDS
# (Redis's own setting: a sleep for each key written), on a few hundred keys.
# Nothing here asserts an exact TTL or sleeps a fixed time before looking
# for a deletion: deadlines are compared as PEXPIRETIMEs, which are
# absolute, and deletions are polled for, with a deadline.

load ../helpers/server
load snapshot

RDB_WRITE="$BATS_TEST_DIRNAME/rdb_write.py"
START_TIMEOUT_S=30 # a server meant to exit at start-up: killed after this

teardown() { stop_server; }

# info_field NAME: one field of INFO persistence, alone.
info_field() {
  rcli info persistence | tr -d '\r' | sed -n "s/^$1://p"
}

# info_value NAME: that field's value, for a later comparison.
info_value() {
  sed -n "s/^$1://p" <<<"$INFO_TEXT"
}

# wait_info NAME WANT WITHIN_MS: ask INFO persistence every 20 ms until field
# NAME is WANT; fail once WITHIN_MS ms have passed, with the last answer.
wait_info() {
  local name=$1 want=$2 within_ms=$3 seen deadline
  SENT="redis-cli INFO persistence, field $name, every 20 ms for $within_ms ms"
  deadline=$(($(now_ms) + within_ms))
  while :; do
    seen=$(info_field "$name" 2>&1) || true
    [ "$seen" = "$want" ] && return 0
    if [ "$(now_ms)" -ge "$deadline" ]; then
      status='' fail_exchange "$name:$want within $within_ms ms" "$name:$seen (the last answer)"
      return
    fi
    sleep 0.02
  done
}

# wait_until WHAT WITHIN_MS CMD...: run CMD (in this shell: it may set
# variables) every 20 ms until it succeeds; fail once WITHIN_MS ms have
# passed, saying that WHAT did not happen.
wait_until() {
  local what=$1 within_ms=$2 deadline
  shift 2
  deadline=$(($(now_ms) + within_ms))
  until "$@"; do
    if [ "$(now_ms)" -ge "$deadline" ]; then
      SENT="$(quote_args "$@"), every 20 ms for $within_ms ms"
      status='' fail_exchange "$what, within $within_ms ms" "not yet, after $within_ms ms"
      return
    fi
    sleep 0.02
  done
}

# clock_past SECONDS: the wall clock reads more than SECONDS (Unix time).
clock_past() {
  test "$(date +%s)" -gt "$1"
}

# find_child: the server's child process (a BGSAVE's): its pid in
# CHILD_PID, and in CHILD the pid it knows itself by, which names its
# temp-<pid>.rdb (they differ when the class grader runs the server in a
# pid namespace of its own: server.bash's server_process).
find_child() {
  CHILD_PID=$(pgrep -P "$(server_process)" | head -1)
  [ -n "$CHILD_PID" ] || return 1
  CHILD=$(awk '/^NSpid:/ { print $NF }' "/proc/$CHILD_PID/status")
  test -n "$CHILD"
}

# other_file_in DIR: DIR holds a file other than dump.rdb (a save's temporary).
other_file_in() {
  ls -A "$1" | grep -qvx dump.rdb
}

# wait_server_exit WHAT: after WHAT (a SHUTDOWN), wait up to STOP_TIMEOUT_S
# for the server to exit, and leave its exit status in $status (one still
# running then is killed: 124).
wait_server_exit() {
  SENT=$1
  local deadline=$((SECONDS + STOP_TIMEOUT_S)) killed=0 st=0
  output=""
  while running "$SERVER_PID" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.02; done
  if running "$SERVER_PID"; then
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    output="the server was still running $STOP_TIMEOUT_S s later: killed"
    killed=1
  fi
  wait "$SERVER_PID" 2>/dev/null || st=$?
  if [ "$killed" -eq 1 ]; then status=124; else status=$st; fi
  SERVER_PID=""
}

# server_until_exit FLAGS...: run the server in the foreground, on a port of
# its own, with the flags start_server would give it; for a file it must
# refuse, so it is expected to exit (killed after START_TIMEOUT_S: 124).
server_until_exit() {
  local port flags=()
  port=$(pick_port) || return 1
  if is_reference; then flags=(--bind 127.0.0.1 --save '' --appendonly no --databases 1); fi
  timeout -k 1 "$START_TIMEOUT_S" ${JAIL:+"$JAIL"} "$SERVER" --port "$port" "${flags[@]}" "$@"
}

# server_stderr FLAGS...: server_until_exit, printing only its standard error.
server_stderr() {
  server_until_exit "$@" 2>&1 >"$BATS_TEST_TMPDIR/stdout"
}

# The keys of 08-2's round trip: each key and its value as redis-cli reads
# them, and the value as GET answers it (--no-raw), which here is the same.
LONG_KEY="long:$(printf 'k%.0s' {1..200})"
FIXTURE=(
  plain '"hello"'
  int:pos '"12345"'
  int:neg '"-7"'
  int:zeros '"0123"'
  empty '""'
  '"bin:\x00\r\n"' '"\x00\r\n\xff-binary-\x01"'
  text:long '"a value that is longer than twenty bytes"'
  run:long "\"$(printf 'z%.0s' {1..100})\""
  "$LONG_KEY" '"the key is 205 bytes long"'
  123 '"a key that is an integer"'
)

# set_fixture: SET every key of FIXTURE, and three with TTLs.
set_fixture() {
  local i lines=()
  for ((i = 0; i < ${#FIXTURE[@]}; i += 2)); do lines+=("SET ${FIXTURE[i]} ${FIXTURE[i + 1]}"); done
  lines+=('SET ttl:abs "at 2100" PXAT 4102444800123' 'SET ttl:px "in 100 s" PX 100000'
    'SET ttl:ex "in 1000 s" EX 1000')
  send_lines "${lines[@]}"
  expect_reply "$(for l in "${lines[@]}"; do echo OK; done)"
}

# check_fixture: GET every key of FIXTURE (on one connection) answers its value.
check_fixture() {
  local i lines=() got=()
  for ((i = 0; i < ${#FIXTURE[@]}; i += 2)); do lines+=("GET ${FIXTURE[i]}"); done
  send_lines "${lines[@]}"
  mapfile -t got <<<"$output"
  for ((i = 0; i < ${#FIXTURE[@]}; i += 2)); do
    expect_eq "the reply to GET ${FIXTURE[i]}" "${got[i / 2]-}" "${FIXTURE[i + 1]}"
  done
}

FIXTURE_KEYS=$((${#FIXTURE[@]} / 2 + 3))

# pexpiretimes: the PEXPIRETIMEs of the three keys with TTLs.
pexpiretimes() {
  send_lines "PEXPIRETIME ttl:abs" "PEXPIRETIME ttl:px" "PEXPIRETIME ttl:ex"
}

# The save points Redis has when none are given: start_server gives the
# reference redis-server --save "" (the suites of chapters 01 to 07 must not
# write dump.rdb), so a test of the defaults gives them back.
DEFAULT_SAVE="3600 1 300 100 60 10000"
default_save_flags() {
  if is_reference; then DEFAULT_FLAGS=(--save "$DEFAULT_SAVE"); else DEFAULT_FLAGS=(); fi
}

@test "08-2 SAVE writes a snapshot a restart loads, with exact PEXPIRETIMEs" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  set_fixture
  load_keys many 200
  pexpiretimes
  ttls=$output
  expect_match "(integer) 4102444800123"$'\n'"(integer) [0-9]*"$'\n'"(integer) [0-9]*"
  send save
  expect_reply "OK"
  expect_true "SAVE wrote $dir/dump.rdb" test -s "$dir/dump.rdb"
  stop_server
  start_server --dir "$dir" --save ''
  send_lines "DBSIZE" "GET many:199"
  expect_reply "(integer) $((FIXTURE_KEYS + 200))"$'\n''"v"'
  check_fixture
  pexpiretimes
  expect_reply "$ttls"
  send_info
  expect_field rdb_last_load_keys_loaded "$((FIXTURE_KEYS + 200))"
  expect_field rdb_last_load_keys_expired 0
}

@test "08-2 CONFIG GET answers dir, dbfilename and save, and SAVE writes dbfilename in dir" {
  dir=$(new_dir)
  real=$(cd "$dir" && pwd -P)
  start_server --dir "$dir" --dbfilename snap.rdb --save ''
  send_lines "CONFIG GET dir" "CONFIG GET dbfilename" "CONFIG GET save" "SET $(key) v" "SAVE"
  expect_reply "1) \"dir\""$'\n'"2) \"$real\""$'\n''1) "dbfilename"'$'\n''2) "snap.rdb"'$'\n''1) "save"'$'\n''2) ""'$'\n''OK'$'\n''OK'
  send_as "ls -A $dir" ls -A "$dir"
  expect_reply "snap.rdb"
  send_as "redis-check-rdb $dir/snap.rdb" redis-check-rdb "$dir/snap.rdb"
  expect_contains "[info] 1 keys read"
}

@test "08-2 by default dbfilename is dump.rdb in the working directory, and SIGTERM saves; with --save \"\" it does not" {
  default_save_flags
  start_server "${DEFAULT_FLAGS[@]}"
  real=$(cd "$SERVER_DIR" && pwd -P)
  send_lines "CONFIG GET save" "CONFIG GET dbfilename" "CONFIG GET dir" "SET $(key) v"
  expect_reply '1) "save"'$'\n'"2) \"$DEFAULT_SAVE\""$'\n''1) "dbfilename"'$'\n''2) "dump.rdb"'$'\n''1) "dir"'$'\n'"2) \"$real\""$'\n''OK'
  saved_in=$SERVER_DIR
  stop_server # SIGTERM
  expect_true "SIGTERM with the default save points wrote $saved_in/dump.rdb" test -s "$saved_in/dump.rdb"
  send_as "redis-check-rdb $saved_in/dump.rdb" redis-check-rdb "$saved_in/dump.rdb"
  expect_contains "[info] 1 keys read"

  start_server --save ''
  send set "$(key)" v
  expect_reply "OK"
  saved_in=$SERVER_DIR
  stop_server
  send_as "ls -A $saved_in (after SIGTERM with --save \"\")" ls -A "$saved_in"
  expect_reply ""
}

@test "08-2 INFO persistence counts writes, SAVE resets the count, LASTSAVE and rdb_saves advance" {
  start_server --save ''
  send_info
  expect_field rdb_changes_since_last_save 0
  expect_field rdb_bgsave_in_progress 0
  expect_field rdb_last_bgsave_status ok
  expect_field rdb_saves 0
  expect_field rdb_last_load_keys_loaded 0
  expect_field rdb_last_load_keys_expired 0
  started=$(info_value rdb_last_save_time)
  send lastsave
  before=$output
  expect_regex '^[0-9]+$'
  expect_eq "LASTSAVE, against INFO's rdb_last_save_time" "$before" "$started"
  # Five writes: two SETs, a DEL, an EXPIRE and a SET PX; a GET, a DEL of a
  # missing key and a SET NX that fails change nothing.
  send_lines "SET $(key a) 1" "SET $(key b) 2" "GET $(key a)" "DEL $(key a)" "DEL $(key missing)" \
    "EXPIRE $(key b) 100" "SET $(key b) x NX" "SET $(key c) 1 PX 100000"
  expect_reply $'OK\nOK\n"1"\n(integer) 1\n(integer) 0\n(integer) 1\n(nil)\nOK'
  send_info
  expect_field rdb_changes_since_last_save 5
  # LASTSAVE counts seconds: let one pass since the start.
  wait_until "the wall clock past LASTSAVE $before" 3000 clock_past "$before"
  send save
  expect_reply "OK"
  send lastsave
  expect_num "LASTSAVE after SAVE (it was $before)" "$output" -gt "$before"
  expect_num "LASTSAVE after SAVE" "$output" -le "$(date +%s)"
  after=$output
  send_info
  expect_field rdb_changes_since_last_save 0
  expect_field rdb_saves 1
  expect_field rdb_last_save_time "$after"
  expect_field rdb_last_bgsave_status ok
}

@test "08-2 SHUTDOWN NOSAVE writes nothing; SHUTDOWN SAVE writes the snapshot even with --save \"\"" {
  dir=$(new_dir)
  default_save_flags
  start_server --dir "$dir" "${DEFAULT_FLAGS[@]}"
  rcli set "$(key nosave)" v >/dev/null
  rcli shutdown nosave >/dev/null 2>&1 || true
  wait_server_exit "redis-cli SHUTDOWN NOSAVE (default save points), then a wait for the exit"
  expect_status 0
  send_as "ls -A $dir (after SHUTDOWN NOSAVE)" ls -A "$dir"
  expect_reply ""

  start_server --dir "$dir" --save ''
  send_lines "DBSIZE" "SET $(key save) v"
  expect_reply $'(integer) 0\nOK'
  rcli shutdown save >/dev/null 2>&1 || true
  wait_server_exit "redis-cli SHUTDOWN SAVE (--save \"\"), then a wait for the exit"
  expect_status 0
  send_as "ls -A $dir (after SHUTDOWN SAVE)" ls -A "$dir"
  expect_reply "dump.rdb"
  send_as "redis-check-rdb $dir/dump.rdb" redis-check-rdb "$dir/dump.rdb"
  expect_contains "[info] 1 keys read"
}

@test "08-3 a key whose deadline passes while the server is down is gone after the restart, uncounted by expired_keys" {
  # The later keys must still be alive once the server is back: if the save,
  # the stop and the start took too long (a busy machine), the test is run
  # again with TTLs twice as long.
  for ttl in 3500 7000 14000; do
    dir=$(new_dir)
    start_server --dir "$dir" --save ''
    at=$(now_ms)
    # (PX, not PXAT: on a busy machine the SET may come 300 ms after now_ms.)
    send_lines "SET gone v PX 300" "SET later:1 v PXAT $((at + ttl))" \
      "SET later:2 v PXAT $((at + ttl + 200))" "SET later:3 v PXAT $((at + ttl + 400))" \
      "SET stays v PXAT 4102444800000" "SAVE"
    gone_by=$(($(now_ms) + 300))
    expect_reply $'OK\nOK\nOK\nOK\nOK\nOK'
    stop_server
    sleep_until_ms $((gone_by + 200))
    start_server --dir "$dir" --save ''
    if [ "$(now_ms)" -lt $((at + ttl - 1500)) ] || [ "$ttl" -eq 14000 ]; then break; fi
    echo "# the restart ended $(($(now_ms) - at)) ms into a $ttl ms TTL: again, with a longer one" >&3
    stop_server
  done
  send_info all
  expect_field rdb_last_load_keys_expired 1
  expect_field rdb_last_load_keys_loaded 4
  expect_field expired_keys 0
  send_lines "DBSIZE" "GET gone" "PEXPIRETIME later:1" "PEXPIRETIME later:2" "PEXPIRETIME later:3" \
    "PEXPIRETIME stays"
  expect_reply "(integer) 4"$'\n'"(nil)"$'\n'"(integer) $((at + ttl))"$'\n'"(integer) $((at + ttl + 200))"$'\n'"(integer) $((at + ttl + 400))"$'\n'"(integer) 4102444800000"
  # Then active expiry deletes the later keys on time, unread.
  wait_dbsize 1 $((at + ttl + 400 + 5000 - $(now_ms)))
  send_info stats
  expect_field expired_keys 3
  send get stays
  expect_reply "v"
}

@test "08-3 a snapshot taken with active expiry off holds expired keys; the loader drops them" {
  dir=$(new_dir)
  start_server --dir "$dir" --save ''
  at=$(now_ms)
  send_lines "DEBUG SET-ACTIVE-EXPIRE 0" "SET live v" "SET gone:1 v PX 200" "SET gone:2 v PX 200" \
    "SET ttl v PXAT $((at + 100000))"
  gone_by=$(($(now_ms) + 200))
  expect_reply $'OK\nOK\nOK\nOK\nOK'
  sleep_until_ms $((gone_by + 200)) # no read: nothing deletes them
  send_lines "DBSIZE" "SAVE"
  expect_reply $'(integer) 4\nOK'
  send_as "redis-check-rdb $dir/dump.rdb" redis-check-rdb "$dir/dump.rdb"
  expect_status 0
  expect_contains "[info] 4 keys read"
  expect_contains "[info] 3 expires"
  expect_contains "[info] 2 already expired"
  stop_server
  start_server --dir "$dir" --save ''
  send_info
  expect_field rdb_last_load_keys_expired 2
  expect_field rdb_last_load_keys_loaded 2
  send_lines "DBSIZE" "GET gone:1" "GET live" "PEXPIRETIME ttl"
  expect_reply $'(integer) 2\n(nil)\n"v"\n'"(integer) $((at + 100000))"
}

@test "08-3 DEBUG RELOAD keeps live keys and their deadlines, and drops expired ones" {
  start_server --save ''
  at=$(now_ms)
  send_lines "DEBUG SET-ACTIVE-EXPIRE 0" "SET live v" "SET ttl v PXAT $((at + 100000))" \
    "SET gone v PX 200"
  gone_by=$(($(now_ms) + 200))
  expect_reply $'OK\nOK\nOK\nOK'
  sleep_until_ms $((gone_by + 200))
  send dbsize
  expect_reply "3"
  send debug reload
  expect_reply "OK"
  send_lines "DBSIZE" "GET gone" "GET live" "PEXPIRETIME ttl"
  expect_reply $'(integer) 2\n(nil)\n"v"\n'"(integer) $((at + 100000))"
  send_info all
  expect_field rdb_last_load_keys_expired 1
  expect_field rdb_last_load_keys_loaded 2
  expect_field expired_keys 0
}

@test "08-4 BGSAVE: a child writes temp-<its pid>.rdb and renames it, so dump.rdb appears whole" {
  start_server --save '' --rdb-key-save-delay 5000 # 400 keys: 2 s of writing
  load_keys "$(key)" 400
  send bgsave
  expect_reply "Background saving started"
  wait_until "a child process of the server (pgrep -P $SERVER_PID)" 5000 find_child
  wait_until "the child's file $SERVER_DIR/temp-$CHILD.rdb" 5000 test -e "$SERVER_DIR/temp-$CHILD.rdb"
  send_as "ls -A $SERVER_DIR (while child $CHILD writes)" ls -A "$SERVER_DIR"
  expect_reply "temp-$CHILD.rdb"
  # The first sight of dump.rdb is the whole file: a rename, not a write.
  wait_until "$SERVER_DIR/dump.rdb" 30000 test -e "$SERVER_DIR/dump.rdb"
  cp "$SERVER_DIR/dump.rdb" "$BATS_TEST_TMPDIR/first-sight.rdb"
  wait_info rdb_bgsave_in_progress 0 30000
  send_info
  expect_field rdb_last_bgsave_status ok
  send_as "ls -A $SERVER_DIR (after the BGSAVE)" ls -A "$SERVER_DIR"
  expect_reply "dump.rdb"
  send_as "redis-check-rdb on dump.rdb as first seen" redis-check-rdb "$BATS_TEST_TMPDIR/first-sight.rdb"
  expect_contains "RDB looks OK"
  expect_contains "[info] 400 keys read"
  expect_true "dump.rdb as first seen is the final file" cmp "$BATS_TEST_TMPDIR/first-sight.rdb" "$SERVER_DIR/dump.rdb"
}

@test "08-4 while a BGSAVE runs, BGSAVE and SAVE are refused, INFO says so, and other clients are served" {
  start_server --save '' --rdb-key-save-delay 5000 # 400 keys: 2 s of writing
  load_keys "$(key)" 400
  send_info
  before=$(info_value rdb_last_save_time)
  saves=$(info_value rdb_saves)
  # All at once, so that the child is still writing after the last of them.
  send_lines "BGSAVE" "BGSAVE" "SAVE" "SET $(key during) v" "GET $(key during)" "PING"
  expect_reply $'Background saving started\n(error) ERR Background save already in progress\n(error) ERR Background save already in progress\nOK\n"v"\nPONG'
  send_info
  expect_field rdb_bgsave_in_progress 1 # so the commands above were answered while the child wrote
  wait_info rdb_bgsave_in_progress 0 30000
  send_info
  expect_field rdb_last_bgsave_status ok
  expect_field rdb_saves $((saves + 1))
  # The SET made during the BGSAVE is not in the snapshot: it still counts.
  expect_field rdb_changes_since_last_save 1
  after=$(info_value rdb_last_save_time)
  expect_num "rdb_last_save_time after a BGSAVE of 2 s (it was $before)" "$after" -gt "$before"
  send lastsave
  expect_reply "$after"
}

@test "08-5 a BGSAVE child killed with -9 leaves the old dump.rdb intact, status err, the server serving" {
  start_server --save '' --rdb-key-save-delay 10000
  send_lines "SET old:1 a" "SET old:2 b" "SAVE"
  expect_reply $'OK\nOK\nOK'
  cp "$SERVER_DIR/dump.rdb" "$BATS_TEST_TMPDIR/old.rdb"
  load_keys new 300 # 3 s of writing
  send bgsave
  expect_reply "Background saving started"
  wait_until "a child process of the server (pgrep -P $SERVER_PID)" 5000 find_child
  wait_until "a file other than dump.rdb in $SERVER_DIR" 5000 other_file_in "$SERVER_DIR"
  kill -KILL "$CHILD_PID"
  wait_info rdb_bgsave_in_progress 0 10000
  send_info
  expect_field rdb_last_bgsave_status err
  expect_field rdb_changes_since_last_save 300
  expect_true "dump.rdb is byte for byte the one SAVE wrote" cmp "$BATS_TEST_TMPDIR/old.rdb" "$SERVER_DIR/dump.rdb"
  wait_until "the killed child's temp-$CHILD.rdb removed" 5000 test ! -e "$SERVER_DIR/temp-$CHILD.rdb"
  send_lines "GET old:1" "DBSIZE"
  expect_reply $'"a"\n(integer) 302'
}

@test "08-5 a server killed with -9 during a slow SAVE leaves the old file intact, and a restart loads it" {
  dir=$(new_dir)
  start_server --dir "$dir" --save '' --rdb-key-save-delay 10000
  send_lines "SET old:1 a" "SAVE"
  expect_reply $'OK\nOK'
  cp "$dir/dump.rdb" "$BATS_TEST_TMPDIR/old.rdb"
  load_keys new 300 # 3 s of writing
  rcli save >"$BATS_TEST_TMPDIR/save.out" 2>&1 3>&- &
  cli=$!
  wait_until "a file other than dump.rdb in $dir (SAVE writing)" 10000 other_file_in "$dir"
  kill -KILL "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  wait "$cli" 2>/dev/null || true
  expect_true "dump.rdb is byte for byte the one the first SAVE wrote" cmp "$BATS_TEST_TMPDIR/old.rdb" "$dir/dump.rdb"
  start_server --dir "$dir" --save ''
  send_lines "DBSIZE" "GET old:1"
  expect_reply $'(integer) 1\n"a"'
}

@test "08-5 a save that cannot write: SAVE answers -ERR, BGSAVE ends in status err, the server keeps serving" {
  # Tests run as root, so chmod would not stop the writes: the directory goes.
  dir="$(new_dir)/data"
  mkdir "$dir"
  start_server --dir "$dir" --save ''
  send set "$(key)" v
  expect_reply "OK"
  rm -rf "$dir"
  send_typed save
  expect_reply "(error) ERR"
  send_multibulk 6 SAVE
  expect_bytes '-ERR\r\n'
  send bgsave
  expect_reply "Background saving started"
  wait_info rdb_bgsave_in_progress 0 10000
  send_info
  expect_field rdb_last_bgsave_status err
  send_lines "GET $(key)" "PING"
  expect_reply $'"v"\nPONG'
}

# damaged_files: a good snapshot written by the server, and three damaged
# copies, each alone as dump.rdb in a directory of its own: DAMAGED[truncate],
# DAMAGED[flip] and DAMAGED[magic] name the directories, AT[...] the offset
# of the damage, and $BATS_TEST_TMPDIR/HOW.rdb keeps a copy of each file.
declare -gA DAMAGED AT
damaged_files() {
  local good how
  good=$(new_dir)
  start_server --dir "$good" --save ''
  send_lines "SET a 1" 'SET flip "flip-this-value"' 'SET text "a value that is longer than twenty bytes"' \
    "SET ttl v PXAT 4102444800000" "SET b 2"
  expect_reply $'OK\nOK\nOK\nOK\nOK'
  send save
  expect_reply "OK"
  stop_server
  for how in truncate flip magic; do
    DAMAGED[$how]=$(new_dir)
    AT[$how]=$("$PYTHON" "$RDB_WRITE" damage "$good/dump.rdb" "${DAMAGED[$how]}/dump.rdb" "$how" flip-this)
    cp "${DAMAGED[$how]}/dump.rdb" "$BATS_TEST_TMPDIR/$how.rdb"
  done
}

@test "08-5 a truncated file, a flipped byte and a wrong magic each stop the start-up, and the file is left as it was" {
  damaged_files
  for how in truncate flip magic; do
    send_as "$SERVER --dir ${DAMAGED[$how]} (dump.rdb: $how)" server_until_exit --dir "${DAMAGED[$how]}"
    expect_failure
    expect_num "the exit status (124: still running after $START_TIMEOUT_S s)" "$status" -ne 124
    expect_no_match "*eady to accept connections*"
    expect_true "the $how file is left as it was" cmp "$BATS_TEST_TMPDIR/$how.rdb" "${DAMAGED[$how]}/dump.rdb"
  done
}

@test "08-5 the refusal is one line on stderr naming the file, the byte offset and what is wrong" {
  own_promise "the one line on stderr, with the file and the offset"
  damaged_files
  size=$(stat -c %s "$BATS_TEST_TMPDIR/flip.rdb")
  for how in truncate flip magic; do
    send_as "$SERVER --dir ${DAMAGED[$how]} (dump.rdb: $how), stderr alone" server_stderr --dir "${DAMAGED[$how]}"
    expect_failure
    expect_eq "the number of lines on stderr" "$(printf '%s' "$output" | grep -c '')" 1
    expect_contains "dump.rdb"
    expect_regex 'offset [0-9]+'
    offset=$(sed -n 's/.*offset \([0-9][0-9]*\).*/\1/p' <<<"$output")
    case $how in
      truncate) # the file stops at ${AT[truncate]}: the error is found there, or before
        expect_num "the offset in a file cut to ${AT[truncate]} bytes" "$offset" -le "${AT[truncate]}"
        expect_regex '[Ee]nd|EOF|[Tt]runcat|[Ss]hort' ;;
      flip) # the bytes still read; the checksum, the file's last 8 bytes, fails
        expect_num "the offset of the checksum of a $size-byte file" "$offset" -eq $((size - 8))
        expect_regex '[Cc]hecksum|CRC' ;;
      magic)
        expect_num "the offset of a wrong magic" "$offset" -eq 0
        expect_contains "REDIS" ;;
    esac
  done
}
