# expect.bash -- how every black-box check sends a request and compares the
# reply, so that a failing check says what went wrong without the reader
# opening the .bats file:
#
#   sent:     redis-cli SET k v EX 0
#   expected: "ERR invalid expire time in 'set' command"
#   received: "OK"
#
# Replies are quoted, with \r, \n and \t written out, so that a missing CRLF
# or an empty reply is visible. Loaded by server.bash.
#
# Every exchange ends: one that gets no complete reply within
# EXCHANGE_TIMEOUT_S fails the check after it (see "Every exchange ends").
#
# Sending (each records what it sent in SENT, then runs it with bats's `run`,
# which leaves the reply in $output and the exit status in $status):
#   send ARGS...          one command through redis-cli, raw replies
#   send_typed ARGS...    the same with redis-cli --no-raw: (integer) 1, (nil)
#   send_raw BYTES [OPT]  BYTES (\r \n \t \\ \0 \xHH written out) on a new
#                         connection, through rawio.py with its options
#   send_multibulk N ARGS...  ARGS (escapes as send_raw's) as one multibulk
#                         request on a new connection, read until N bytes came
#   send_as WHAT CMD...   any other command; WHAT says what it sends
# Checking (each returns 1, after printing the exchange, on a mismatch):
#   expect_reply TEXT     the reply is exactly TEXT
#   expect_bytes BYTES    the reply is exactly BYTES, escapes as send_raw's
#   expect_match GLOB     the reply matches the shell pattern GLOB
#   expect_no_match GLOB  the reply does not match GLOB
#   expect_regex REGEX    the reply matches the extended regular expression
#   expect_contains TEXT  the reply contains TEXT, every character literal
#   expect_prefix TEXT    the reply begins with TEXT
#   expect_suffix TEXT    the reply ends with TEXT
#   expect_status N       the command exited with status N
#   expect_failure        the command exited with a status other than 0
#   expect_eq WHAT GOT WANT        a value computed from replies equals WANT
#   expect_num WHAT GOT OP NUMBER  ... compares as a number (-lt -le -eq -ge -gt -ne)
#   expect_true WHAT CMD...        CMD succeeds; WHAT says what it checks

# shellcheck disable=SC2015 # a check's `[ no record ] && TEST || fail_exchange`
# fails when either part does not hold, as meant

# ==== Every exchange ends ====
#
# redis-cli waits for a whole reply, and a server that sends half of one (a
# bulk string without its last \r\n) or none would keep it, and the grader,
# waiting forever. So each exchange has a bound. One that runs out is written
# down in $BATS_TEST_TMPDIR/exchange-ran-out (by the redis-cli below, or by
# rawio.py, in whatever process they ran) and fails the next expect_*, which
# shows the bytes received so far with "no complete reply within N s".
# s: one request and its whole reply. A local server needs well under 1 ms,
# but on a loaded machine (make test LOAD=4 on two cores) redis-cli itself
# may wait seconds for a core: 3 s cut a 10 MB SET short there. A passing
# exchange ends when its reply is whole, so the bound costs only a failure.
EXCHANGE_TIMEOUT_S=10
# s: a whole run of many requests (a program run by send_as, redis-cli
# --pipe). The longest, a chapter's suite run by an exercise's grader and
# redis-benchmark's 200,000 SETs and GETs, took 5 s and 2.7 s here (and
# more than 60 s under make test LOAD=4, so the suites ask for fewer).
RUN_TIMEOUT_S=60
# Under valgrind the server runs 20 to 50 times slower (a million SETs
# through one pipe took 4.9 s here, against 0.8 s).
if [ -n "${VALGRIND:-}" ]; then EXCHANGE_TIMEOUT_S=30 RUN_TIMEOUT_S=300; fi
export EXCHANGE_TIMEOUT_S RUN_TIMEOUT_S

# redis-cli ARGS...: the real redis-cli, ended after EXCHANGE_TIMEOUT_S. A
# function of that name, exported, so that the redis-cli in a test's
# `bash -c "... | redis-cli ..."` is this one too. When the bound runs out,
# rawio.py --redis-cli records the exchange (and prints it, unless
# EXCHANGE_QUIET is set: send and send_as report it in their check instead),
# and the status is 124, as timeout's. (Short, because bats traces every
# command a test runs, and a test may send hundreds.)
redis-cli() {
  case " $* " in *" --pipe "* | *" -x "*) redis_cli_with_stdin "$@"; return ;; esac
  timeout -k 1 "$EXCHANGE_TIMEOUT_S" redis-cli "$@" || redis_cli_failed $? "$@"
}

# redis_cli_failed STATUS ARGS...: after a redis-cli call that failed: if it
# ran out of time, record it; return STATUS, or 124.
redis_cli_failed() {
  local status=$1
  shift
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    "$PYTHON" "$RAWIO" --redis-cli "$@"
    return 124
  fi
  return "$status"
}

# redis_cli_with_stdin ARGS...: redis-cli -x (the last argument is stdin's
# content, kept to send it again if the bound runs out) or --pipe (many
# requests: the bound is redis-cli's own --pipe-timeout, the replies stopping
# for that long once all is sent, and the whole run has RUN_TIMEOUT_S).
redis_cli_with_stdin() {
  local status=0 stdin
  case " $* " in
    *" --pipe "*)
      timeout -k 1 "$RUN_TIMEOUT_S" redis-cli --pipe-timeout "$EXCHANGE_TIMEOUT_S" "$@" || status=$?
      [ "$status" -eq 0 ] || redis_cli_failed "$status" "$@" || status=$?
      return "$status" ;;
  esac
  stdin=$(mktemp "${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/redis-cli-x.XXXXXX") || return
  cat >"$stdin"
  timeout -k 1 "$EXCHANGE_TIMEOUT_S" redis-cli "$@" <"$stdin" || status=$?
  [ "$status" -eq 0 ] || REDIS_CLI_STDIN=$stdin redis_cli_failed "$status" "$@" || status=$?
  rm -f "$stdin"
  return "$status"
}
export -f redis-cli redis_cli_failed redis_cli_with_stdin

# ran_out: did an exchange of this test run out of time? (The checks below
# test the same file inline: under bats a function call costs about 0.7 ms.)
ran_out() {
  [ -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ]
}

# visible TEXT: TEXT in double quotes with \, ", CR, LF and TAB written out;
# long replies are cut, with the length said.
EXPECT_SHOW_MAX=${EXPECT_SHOW_MAX:-600}
visible() {
  local s=$1 cut=""
  if [ "${#s}" -gt "$EXPECT_SHOW_MAX" ]; then
    cut=" ... (${#s} characters in all)"
    s=${s:0:$EXPECT_SHOW_MAX}
  fi
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\r'/\\r}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  # Any other byte outside printable ASCII as \xHH, so that a stray byte
  # (a DEL, a bit of uninitialised memory) does not look like nothing.
  local LC_ALL=C
  if [[ "$s" == *[^[:print:]]* ]]; then
    local i ch out=""
    for ((i = 0; i < ${#s}; i++)); do
      ch=${s:i:1}
      if [[ "$ch" == [[:print:]] ]]; then out+=$ch; else out+=$(printf '\\x%02x' "'$ch"); fi
    done
    s=$out
  fi
  printf '"%s"%s' "$s" "$cut"
}

# quote_args ARGS...: the arguments as you would type them in a shell.
quote_args() {
  local QUOTED
  set_quoted "$@"
  printf '%s' "$QUOTED"
}

# set_quoted ARGS...: quote_args's text, left in QUOTED. It is quick because
# send runs it for every command, and tests that send a dozen commands after
# setting a TTL in seconds need the time: under bats a subshell costs about
# 5 ms (as much as the redis-cli call), and so does a loop over the
# arguments (bats traps every command), so the usual case, no argument that
# needs quotes, is one test of them all joined by \x1f.
set_quoted() {
  local IFS=$'\x1f' joined seps
  joined="$*"
  seps=${joined//[^$'\x1f']/} # one between each two arguments, unless one holds a \x1f
  if [[ -n "$joined" && ${#seps} -eq $(($# - 1)) &&
    "$joined" != *[[:space:]\"\'\\\$]* && "${joined//$'\x1f'/}" != *[^[:print:]]* &&
    "$joined" != *$'\x1f\x1f'* && "$joined" != $'\x1f'* && "$joined" != *$'\x1f' ]]; then
    QUOTED=${joined//$'\x1f'/ }
    return 0
  fi
  local a out=()
  for a in "$@"; do
    if [ -z "$a" ] || [[ "$a" == *[[:space:]\"\'\\\$]* ]] || [[ "$a" == *[^[:print:]]* ]]; then
      out+=("$(visible "$a")")
    else
      out+=("$a")
    fi
  done
  local IFS=' '
  QUOTED="${out[*]}"
}

send() {
  set_quoted "$@"
  SENT="redis-cli $QUOTED"
  EXCHANGE_QUIET=1 run rcli "$@"
}

send_typed() {
  set_quoted "$@"
  SENT="redis-cli --no-raw $QUOTED"
  EXCHANGE_QUIET=1 run r "$@"
}

send_raw() {
  local bytes=$1 decoded
  shift
  decoded=$(printf '%b.' "$bytes") # (the dot keeps final newlines)
  SENT="$(visible "${decoded%.}") as raw bytes${*:+ (rawio.py $*)}"
  run raw "$@" < <(printf '%b' "$bytes")
}

send_multibulk() {
  local n=$1 a shown=()
  shift
  # The arguments as written: their backslash escapes are what rawio.py decodes.
  for a in "$@"; do
    if [ -z "$a" ] || [[ "$a" == *[[:space:]\"]* ]]; then shown+=("\"$a\""); else shown+=("$a"); fi
  done
  SENT="${shown[*]} as one multibulk request (rawio.py --expect $n)"
  run raw --expect "$n" -- "$@"
}

# A command of the test's (a function, whose exchanges are bounded, or a
# program, bounded here by RUN_TIMEOUT_S).
send_as() {
  SENT=$1
  shift
  if declare -F "$1" >/dev/null; then
    EXCHANGE_QUIET=1 run "$@"
  else
    EXCHANGE_QUIET=1 run timeout -k 1 "$RUN_TIMEOUT_S" "$@"
    [ "$status" -eq 124 ] || [ "$status" -eq 137 ] &&
      printf '%s\n%s\n%s\n%s\n' "$SENT" "$(visible "${output-}")" "$RUN_TIMEOUT_S" "its output so far" \
        >>"$BATS_TEST_TMPDIR/exchange-ran-out"
  fi
  return 0
}

# fail_exchange EXPECTED [RECEIVED]: print the exchange and fail. After an
# exchange that ran out of time, RECEIVED is the bytes it received so far.
fail_exchange() {
  local which="" received note=""
  if ran_out; then
    local bound
    { read -r which; read -r received; read -r bound; read -r note; } <"$BATS_TEST_TMPDIR/exchange-ran-out"
    received="$received (no complete reply within $bound s)"
  fi
  {
    printf 'sent:     %s\n' "${SENT:-(nothing sent yet in this test)}"
    printf 'expected: %s\n' "$1"
    printf 'received: %s\n' "${received-${2-$(visible "${output-}")}}"
    [ -n "$which" ] && [ "$which" != "$SENT" ] && printf '          (the exchange that ran out: %s)\n' "$which"
    [ -n "$note" ] && printf '          (%s)\n' "$note"
    [ -n "${status:-}" ] && [ "$status" -ne 0 ] && printf '          (exit status %s)\n' "$status"
  } >&2
  return 1
}

expect_reply() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [ "${output-}" = "$1" ] || fail_exchange "$(visible "$1")"
}

# The shell drops the final newlines of a command's output, so both sides
# are compared, and shown, without them: "+OK\r" stands for "+OK\r\n".
expect_bytes() {
  local want
  want=$(printf '%b' "$1")
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [ "${output-}" = "$want" ] && return 0
  fail_exchange "$(visible "$want")"
  echo "          (final newlines are not shown, on either side)" >&2
  return 1
}

expect_match() {
  # shellcheck disable=SC2053 # the pattern is meant to match as a glob
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [[ "${output-}" == $1 ]] || fail_exchange "a reply matching the pattern $(visible "$1")"
}

expect_no_match() {
  # shellcheck disable=SC2053
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [[ "${output-}" != $1 ]] || fail_exchange "a reply not matching the pattern $(visible "$1")"
}

expect_regex() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [[ "${output-}" =~ $1 ]] || fail_exchange "a reply matching the regular expression $(visible "$1")"
}

expect_contains() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [[ "${output-}" == *"$1"* ]] || fail_exchange "a reply containing $(visible "$1")"
}

expect_prefix() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [[ "${output-}" == "$1"* ]] || fail_exchange "a reply beginning with $(visible "$1")"
}

expect_suffix() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [[ "${output-}" == *"$1" ]] || fail_exchange "a reply ending with $(visible "$1")"
}

expect_status() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [ "${status-}" = "$1" ] || fail_exchange "exit status $1" "exit status ${status-none}, output $(visible "${output-}")"
}

expect_failure() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [ "${status:-0}" -ne 0 ] || fail_exchange "a non-zero exit status" "exit status 0, output $(visible "${output-}")"
}

expect_eq() {
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && [ "$2" = "$3" ] || fail_exchange "$1 = $(visible "$3")" "$1 = $(visible "$2")"
}

expect_num() {
  local what=$1 got=$2 op=$3 want=$4 words
  case "$op" in
    -lt) words="less than" ;; -le) words="at most" ;; -eq) words="exactly" ;;
    -ge) words="at least" ;; -gt) words="more than" ;; -ne) words="anything but" ;;
    *) echo "expect_num: unknown operator $op" >&2; return 2 ;;
  esac
  if ! [[ "$got" =~ ^-?[0-9]+$ ]]; then
    fail_exchange "$what: a number $words $want" "$what: $(visible "$got"), not a number"
    return
  fi
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && test "$got" "$op" "$want" || fail_exchange "$what: $words $want" "$what: $got"
}

# expect_each REPLY COMMAND...: send each COMMAND (its words split on
# spaces) and expect REPLY to every one; stops at the first that differs.
expect_each() {
  local want=$1 cmd
  shift
  for cmd in "$@"; do
    # shellcheck disable=SC2086 # the words of the command
    send $cmd
    expect_reply "$want" || return
  done
}

expect_true() {
  local what=$1
  shift
  [ ! -s "${BATS_TEST_TMPDIR-}/exchange-ran-out" ] && "$@" || fail_exchange "$what" "it did not hold ($(quote_args "$@") failed)"
}
