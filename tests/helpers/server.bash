# server.bash -- the one helper every black-box suite uses to start, talk to
# and stop a server. Load it with `load ../helpers/server`.
#
# Which server runs is decided by the environment, so the same suite grades
# any implementation:
#   SERVER=path/to/binary   a server that takes --port N (ours, or a learner's)
#   SERVER=redis-server     a real Redis, for the reference run; REFERENCE=1
#                           then skips the tests of this project's own promises
#   VALGRIND=1              run the server under memcheck; any error or
#                           definite leak fails the suite at shutdown
#   JAIL=tests/tools/jail.sh  run every start of the server under test
#                           through it (the class grader sets it: the
#                           student's code runs in a sandbox of its own)
#   SERVER_LOG_DIR=dir      keep each server's output there (the class
#                           grader's trail), not in the suite's temporary files
#   SERVER_DIR_BASE=dir     make each server's directory in there (the class
#                           grader's: a disk of the student's own)
#
# A suite starts one server in setup_file and stops it in teardown_file; tests
# use distinct key names, so they do not depend on each other.
#
# Also loaded from here: port.sh (pick_port, wait_for_pong), clock.sh (now_ms),
# keyspace.bash (load_keys, wait_dbsize, pipe_commands, expect_ttl_about) and
# expect.bash (send and expect_*: every check prints what it sent, expected
# and received).

: "${SERVER:?SERVER must name the server binary (make test sets it)}"

HELPERS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HELPERS/port.sh"       # pick_port, wait_for_pong
. "$HELPERS/clock.sh"      # now_ms
. "$HELPERS/keyspace.bash" # load_keys, wait_dbsize, pipe_commands, expect_ttl_about
. "$HELPERS/expect.bash"   # send, send_raw, expect_reply, expect_match, ...

is_reference() {
  [ "$(basename "$SERVER")" = redis-server ]
}

# start_server [extra flags...]: start the server on a free port, wait until it
# answers PING, export PORT, SERVER_PID and SERVER_LOG. Retries on another
# port if the chosen one was taken in the meantime. Each start has a log of
# its own, so a test may start a second server (SERVER=redis-server
# start_server): tests run in subshells, so PORT and SERVER_PID name the
# suite's server again in the next test and in teardown_file.
# Each start also has a fresh, empty directory of its own, the server's
# current directory, exported as SERVER_DIR: a server that writes dump.rdb
# where it runs (Redis's default dir is ".") writes it there, never in the
# repository, and never finds another test's snapshot to load. A relative
# SERVER (build/08-snapshot/server) is resolved first, from where the suite
# runs.
start_server() {
  local log dir server=$SERVER
  # SERVER_LOG_DIR: where the class grader keeps the servers' output.
  log=$(mktemp "${SERVER_LOG_DIR:-${BATS_FILE_TMPDIR:-${TMPDIR:-/tmp}}}/$(basename "${BATS_TEST_FILENAME:-server}" .bats).log.XXXXXX") || return 1
  dir=$(mktemp -d "${SERVER_DIR_BASE:-${BATS_FILE_TMPDIR:-${TMPDIR:-/tmp}}}/server.dir.XXXXXX") || return 1
  case $log in /*) ;; *) log="$PWD/$log" ;; esac
  case $dir in /*) ;; *) dir="$PWD/$dir" ;; esac
  case $server in /*) ;; */*) server="$PWD/$server" ;; esac # a bare name is found on PATH
  export SERVER_LOG="$log" SERVER_DIR="$dir"
  for _ in 1 2 3 4 5; do
    # START_PORT: this port, not a free one (a restart where a replica looks).
    PORT=${START_PORT:-$(pick_port)} || { echo "start_server: pick_port found no free port" >&2; return 1; }
    export PORT
    # (cd, then exec: $! is the server's own pid, not a subshell's.)
    if is_reference; then
      (cd "$dir" && exec "$server" --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
        --databases 1 --enable-debug-command yes "$@") >"$log" 2>&1 &
    elif [ -n "${VALGRIND:-}" ]; then
      (cd "$dir" && exec valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite \
        --error-exitcode=99 --log-file="$log.vg" "$server" --port "$PORT" "$@") >"$log" 2>&1 &
    else
      (cd "$dir" && exec ${JAIL:+"$JAIL"} "$server" --port "$PORT" "$@") >"$log" 2>&1 &
    fi
    SERVER_PID=$!
    export SERVER_PID
    local waited=0
    wait_for_pong "$PORT" "$SERVER_PID" "$log" || waited=$?
    [ "$waited" -eq 0 ] && return 0
    kill -9 "$SERVER_PID" 2>/dev/null || true
    { wait "$SERVER_PID"; } 2>/dev/null || true
    SERVER_PID=""
    if [ "$waited" -eq 2 ]; then
      echo "the server started but did not answer PING with PONG:" >&2
      SENT="redis-cli PING"
      fail_exchange '"PONG"' "$(visible "$PONG_REPLY")"
      return 1
    fi
    if [ "$waited" -eq 3 ]; then # it ran, but never answered: retrying cannot help
      echo "the server did not answer PING with PONG within 30 s of starting:" >&2
      SENT="redis-cli PING"
      fail_exchange '"PONG"' "${PONG_REPLY:-nothing: it never said \"ready to accept connections\"}" || true
      echo "its output:" >&2
      tail -20 "$log" >&2
      return 1
    fi
    # It exited. Only a port taken since pick_port() is worth another try;
    # anything else (a crash, a stub not written yet) would happen again.
    grep -qi "in use" "$log" || break
  done
  echo "could not start $SERVER on port $PORT: it exited before answering PING; its output:" >&2
  tail -20 "$log" >&2
  return 1
}

# stop_server: SIGTERM, then require a clean exit (status 0; under valgrind no
# error and no definite leak; under the sanitizers no report) within
# STOP_TIMEOUT_S; a server still running then is killed, and fails. A clean
# exit frees every key: on a loaded machine (make test LOAD=4 on two cores)
# that took more than 10 s for the 02 suite's keys, so the bound is 60 s.
STOP_TIMEOUT_S=60
# running PID: the process has not exited (one that exited and was not yet
# waited for, a zombie, answers kill -0 but is marked Z in /proc). Bash may
# reap it between the two looks: then its /proc entry is gone, and so is it.
# Without /proc at all, kill -0 is all there is to go by.
running() {
  local stat
  kill -0 "$1" 2>/dev/null || return 1
  [ -d /proc/self ] || return 0
  read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
  [[ "$stat" != *") Z "* ]]
}
[ -n "${VALGRIND:-}" ] && STOP_TIMEOUT_S=120 # freeing a million keys, then the leak check

# refused_start FLAGS...: start SERVER with FLAGS (and, for a real Redis,
# the flags start_server gives it), expecting it to refuse to start: it
# must exit by itself, without ever answering PING, within
# REFUSE_TIMEOUT_MS. Polls every 20 ms. For graders of a start-up setting
# or file that a server must refuse (chapters 08 and 09's exercises).
REFUSE_TIMEOUT_MS=30000
refused_start() {
  local port pid flags=() deadline log="$BATS_TEST_TMPDIR/refused.log"
  port=$(pick_port) || return 1
  if is_reference; then flags=(--bind 127.0.0.1 --save '' --appendonly no --databases 1); fi
  SENT="$(quote_args "$(basename "$SERVER")" "$@"), expected to refuse to start"
  (cd "$BATS_TEST_TMPDIR" && exec ${JAIL:+"$JAIL"} "$SERVER" --port "$port" "${flags[@]}" "$@") >"$log" 2>&1 &
  pid=$!
  deadline=$(($(now_ms) + REFUSE_TIMEOUT_MS))
  while running "$pid"; do
    if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; then
      kill -9 "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      status='' fail_exchange "it exits without serving" "it started and answered PING with PONG"
      return 1
    fi
    if [ "$(now_ms)" -ge "$deadline" ]; then
      kill -9 "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      status='' fail_exchange "it exits without serving" "still running $REFUSE_TIMEOUT_MS ms later: killed"
      return 1
    fi
    sleep 0.02
  done
  wait "$pid" 2>/dev/null || true
}

stop_server() {
  [ -n "${SERVER_PID:-}" ] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null
  local status=0 deadline=$((SECONDS + STOP_TIMEOUT_S))
  while running "$SERVER_PID" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.02; done
  if running "$SERVER_PID"; then
    kill -KILL "$SERVER_PID" 2>/dev/null
    echo "the server did not exit within $STOP_TIMEOUT_S s of SIGTERM: killed" >&2
    status=1
  fi
  wait "$SERVER_PID" || status=$?
  SERVER_PID=""
  if [ "$status" -ne 0 ]; then
    echo "server exited with status $status; its output:" >&2
    cat "$SERVER_LOG" "$SERVER_LOG.vg" 2>/dev/null | tail -60 >&2
    return 1
  fi
}

# server_process: the pid of the server process itself, SERVER_PID but
# under the class grader, which sets JAIL (tests/tools/jail.sh): there
# SERVER_PID is the jail's, and the server four processes below it (the
# jail, bubblewrap, the init of its pid namespace, the jail again inside).
server_process() {
  local pid=$SERVER_PID
  if [ -n "${JAIL:-}" ]; then
    for _ in 1 2 3 4; do pid=$(pgrep -P "$pid" | head -1); done
  fi
  echo "$pid"
}

# Talk to the server through the real redis-cli (bounded: expect.bash).
rcli() {
  redis-cli -p "$PORT" "$@"
}

# r ARGS...: rcli with typed replies, "(integer) 1", "(nil)", "(error) ...",
# even though the output is not a terminal: for tests that must tell the
# integer 1 from the string "1", or nil from "".
r() {
  rcli --no-raw "$@"
}

# raw [options]: send stdin's bytes on a new connection and print what comes
# back. See tests/helpers/rawio.py. Debian's python3 starts fastest.
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
RAWIO="$HELPERS/rawio.py"
export PYTHON RAWIO
raw() {
  "$PYTHON" "$RAWIO" "$PORT" "$@"
}

# A test of something this project promises but Redis does not: skipped in
# the reference run against a real redis-server.
own_promise() {
  if is_reference; then skip "this project's own promise: $*"; fi
}

# replaced_in NN REASON: this test checks a behaviour that chapter NN
# deliberately changes; skip it when the server is step NN or later (as this
# project's servers report in INFO server, tutorial_step).
replaced_in() {
  local step
  step=$(redis-cli -p "$PORT" info server 2>/dev/null | tr -d '\r' | sed -n 's/^tutorial_step://p')
  if [ -n "$step" ] && [ "$((10#${step%%-*}))" -ge "$((10#$1))" ]; then
    skip "replaced in chapter $1: ${*:2}"
  fi
}

# A unique key name per test, so tests sharing a server never collide.
key() {
  echo "t${BATS_TEST_NUMBER}:${1:-k}"
}
