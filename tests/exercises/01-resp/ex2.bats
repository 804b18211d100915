#!/usr/bin/env bats
# Grader for chapter 01, exercise 2: CLIENT LIST.
#
# One line per connected client, oldest first, each line "field=value" pairs
# separated by spaces and ending in "\n", with at least id=, fd= and name=,
# in Redis's order (id first, fd before name). A bulk string in RESP2, a
# verbatim "txt" string in RESP3.
#
# Run it: make exercise STEP=01 EX=2 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

# send_and_quit BYTES: send a request on a new connection, then QUIT, and
# print everything the server answered (QUIT closes, so raw stops there).
send_and_quit() {
  raw --close-expected < <(printf '%sQUIT\r\n' "$1")
}

# The payload of the first bulk or verbatim reply in the text on stdin,
# checking that its declared length is right. Prints nothing if it is wrong.
first_bulk_payload() {
  "$PYTHON" -c '
import re, sys
data = sys.stdin.buffer.read()
m = re.search(rb"(?m)^[$=](\d+)\r\n", data)
if not m: sys.exit(1)
n = int(m.group(1)); body = data[m.end():m.end() + n]
if len(body) != n or data[m.end() + n:m.end() + n + 2] != b"\r\n": sys.exit(1)
sys.stdout.buffer.write(body)
'
}

# A line of CLIENT LIST as Redis writes it: id first, fd before name.
LINE_RE='^id=[0-9]+ ([^ ]+ )*fd=[0-9]+ ([^ ]+ )*name=[^ ]*( .*)?$'

# hold_connection VAR NAME: open a connection that stays open, name it NAME,
# and store its file descriptor in the variable VAR.
hold_connection() {
  local fd reply
  exec {fd}<>"/dev/tcp/127.0.0.1/$PORT"
  printf -v "$1" '%s' "$fd"
  printf 'CLIENT SETNAME %s\r\n' "$2" >&"$fd"
  read -r -t 5 -u "$fd" reply
  [ "${reply%$'\r'}" = "+OK" ]
}

@test "CLIENT LIST is a bulk string of lines, each ending in a newline" {
  out=$(send_and_quit $'CLIENT LIST\r\n' | first_bulk_payload | od -An -c | tr -d ' \n')
  # The payload is not empty and its last byte is \n (od prints it as "\n").
  [ -n "$out" ]
  [[ "$out" == *'\n' ]]
  [[ "$out" != *'\r'* ]]
}

@test "every line has Redis's shape: id=N first, then fd=N, then name=" {
  run rcli client list
  [ "$status" -eq 0 ]
  [ -n "$output" ]
  while IFS= read -r line; do
    [[ "$line" =~ $LINE_RE ]] || { echo "bad line: $line"; return 1; }
  done <<<"$output"
}

@test "the line of the asking client carries its CLIENT ID" {
  reply=$(send_and_quit $'CLIENT ID\r\nCLIENT LIST\r\n')
  id=$(printf '%s' "$reply" | head -1 | tr -d ':\r')
  [[ "$id" =~ ^[0-9]+$ ]]
  printf '%s' "$reply" | first_bulk_payload | grep -qE "^id=$id "
}

@test "name= is empty before CLIENT SETNAME and the name after it" {
  reply=$(send_and_quit $'CLIENT ID\r\nCLIENT LIST\r\n')
  id=$(printf '%s' "$reply" | head -1 | tr -d ':\r')
  printf '%s' "$reply" | first_bulk_payload | grep -E "^id=$id " | grep -qE ' name=( |$)'
  reply=$(send_and_quit $'CLIENT SETNAME grader-me\r\nCLIENT ID\r\nCLIENT LIST\r\n')
  id=$(printf '%s' "$reply" | sed -n 2p | tr -d ':\r')
  printf '%s' "$reply" | first_bulk_payload | grep -E "^id=$id " | grep -qE ' name=grader-me( |$)'
}

@test "every connected client is listed exactly once, oldest first, with its own fd" {
  hold_connection c1 held-1
  hold_connection c2 held-2
  hold_connection c3 held-3
  run rcli client list
  held=$(grep -E ' name=held-[123]( |$)' <<<"$output")
  [ "$(grep -c . <<<"$held")" -eq 3 ]
  # In connection order: held-1, held-2, held-3, with increasing ids.
  [ "$(sed -E 's/.* name=([^ ]*).*/\1/' <<<"$held" | tr '\n' ' ')" = "held-1 held-2 held-3 " ]
  ids=$(sed -E 's/^id=([0-9]+) .*/\1/' <<<"$held")
  [ "$ids" = "$(sort -n <<<"$ids")" ]
  # Each has a descriptor of its own.
  fds=$(sed -E 's/.* fd=([0-9]+) .*/\1/' <<<"$held")
  [ "$(sort -u <<<"$fds" | grep -c .)" -eq 3 ]
  exec {c1}>&- {c2}>&- {c3}>&-
}

@test "a client that disconnects leaves the list" {
  hold_connection c1 leaving-1
  hold_connection c2 staying-2
  [ "$(rcli client list | grep -cE ' name=leaving-1( |$)')" -eq 1 ]
  exec {c1}>&-
  # The server notices the close on its next turn of the loop.
  for _ in $(seq 1 50); do
    [ "$(rcli client list | grep -cE ' name=leaving-1( |$)')" -eq 0 ] && break
    sleep 0.05
  done
  [ "$(rcli client list | grep -cE ' name=leaving-1( |$)')" -eq 0 ]
  [ "$(rcli client list | grep -cE ' name=staying-2( |$)')" -eq 1 ]
  exec {c2}>&-
}

@test "in RESP3 the reply is a verbatim txt string" {
  reply=$(send_and_quit $'HELLO 3\r\nCLIENT LIST\r\n')
  [[ "$reply" == *$'\r\n='[0-9]*$'\r\ntxt:id='* ]]
  printf '%s' "$reply" | sed -n '/^=/,$p' | first_bulk_payload | grep -qE '^txt:id=[0-9]+ '
}

@test "an argument after LIST that is not an option is a syntax error" {
  run rcli client list nonsense
  [ "$output" = "ERR syntax error" ]
}

@test "the other CLIENT subcommands still answer" {
  run rcli client id
  [[ "$output" =~ ^[0-9]+$ ]]
  run rcli client
  [ "$output" = "ERR wrong number of arguments for 'client' command" ]
}
