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
  SENT="CLIENT SETNAME $2 on a connection held open"
  printf 'CLIENT SETNAME %s\r\n' "$2" >&"$fd"
  read -r -t 5 -u "$fd" reply
  expect_eq "its reply" "${reply%$'\r'}" "+OK"
}

# expect_client_line ID ERE: the first bulk payload in $output has a line
# for client ID (one that starts "id=ID ") and that line matches ERE.
expect_client_line() {
  printf '%s' "$output" | first_bulk_payload | grep -E "^id=$1 " | grep -qE "$2" ||
    fail_exchange "a bulk reply with a line \"id=$1 ...\" matching $(visible "$2")"
}

# list_payload_od: CLIENT LIST on a new connection; its payload as od -c
# shows it, blanks and line ends removed (a newline is the two characters \n).
list_payload_od() {
  raw --close-expected < <(printf 'CLIENT LIST\r\nQUIT\r\n') | first_bulk_payload | od -An -c | tr -d ' \n'
}

# name_count NAME: how many lines of $output (a CLIENT LIST) carry name=NAME.
name_count() { grep -cE " name=$1( |\$)" <<<"$output"; }

@test "CLIENT LIST is a bulk string of lines, each ending in a newline" {
  send_as "CLIENT LIST, then QUIT, as raw bytes; the bulk reply's payload shown by od -c" list_payload_od
  # The payload is not empty and its last byte is \n (od prints it as "\n").
  expect_match '?*'
  expect_suffix '\n'
  expect_no_match '*\\r*'
}

@test "every line has Redis's shape: id=N first, then fd=N, then name=" {
  send client list
  expect_status 0
  expect_match '?*'
  while IFS= read -r line; do
    [[ "$line" =~ $LINE_RE ]] || fail_exchange "every line matching $(visible "$LINE_RE")" "the line $(visible "$line")"
  done <<<"$output"
}

@test "the line of the asking client carries its CLIENT ID" {
  send_raw 'CLIENT ID\r\nCLIENT LIST\r\nQUIT\r\n' --close-expected
  id=$(printf '%s' "$output" | head -1 | tr -d ':\r')
  expect_num "the CLIENT ID reply" "$id" -ge 0
  expect_client_line "$id" '^'
}

@test "name= is empty before CLIENT SETNAME and the name after it" {
  send_raw 'CLIENT ID\r\nCLIENT LIST\r\nQUIT\r\n' --close-expected
  id=$(printf '%s' "$output" | head -1 | tr -d ':\r')
  expect_client_line "$id" ' name=( |$)'
  send_raw 'CLIENT SETNAME grader-me\r\nCLIENT ID\r\nCLIENT LIST\r\nQUIT\r\n' --close-expected
  id=$(printf '%s' "$output" | sed -n 2p | tr -d ':\r')
  expect_client_line "$id" ' name=grader-me( |$)'
}

@test "every connected client is listed exactly once, oldest first, with its own fd" {
  hold_connection c1 held-1
  hold_connection c2 held-2
  hold_connection c3 held-3
  send client list
  held=$(grep -E ' name=held-[123]( |$)' <<<"$output")
  expect_num "lines with name=held-1, -2 or -3" "$(grep -c . <<<"$held")" -eq 3
  # In connection order: held-1, held-2, held-3, with increasing ids.
  expect_eq "their names, in list order" "$(sed -E 's/.* name=([^ ]*).*/\1/' <<<"$held" | tr '\n' ' ')" "held-1 held-2 held-3 "
  ids=$(sed -E 's/^id=([0-9]+) .*/\1/' <<<"$held")
  expect_eq "their ids, in list order" "$ids" "$(sort -n <<<"$ids")"
  # Each has a descriptor of its own.
  fds=$(sed -E 's/.* fd=([0-9]+) .*/\1/' <<<"$held")
  expect_num "distinct fd= values among them" "$(sort -u <<<"$fds" | grep -c .)" -eq 3
  exec {c1}>&- {c2}>&- {c3}>&-
}

@test "a client that disconnects leaves the list" {
  hold_connection c1 leaving-1
  hold_connection c2 staying-2
  send client list
  expect_num "lines with name=leaving-1" "$(name_count leaving-1)" -eq 1
  exec {c1}>&-
  # The server notices the close on its next turn of the loop.
  for _ in $(seq 1 50); do
    [ "$(rcli client list | grep -cE ' name=leaving-1( |$)')" -eq 0 ] && break
    sleep 0.05
  done
  send client list
  expect_num "lines with name=leaving-1, after it closed" "$(name_count leaving-1)" -eq 0
  expect_num "lines with name=staying-2" "$(name_count staying-2)" -eq 1
  exec {c2}>&-
}

@test "in RESP3 the reply is a verbatim txt string" {
  send_raw 'HELLO 3\r\nCLIENT LIST\r\nQUIT\r\n' --close-expected
  expect_match $'*\r\n=[0-9]*\r\ntxt:id=*'
  printf '%s' "$output" | sed -n '/^=/,$p' | first_bulk_payload | grep -qE '^txt:id=[0-9]+ ' ||
    fail_exchange "a verbatim reply, its length right, its payload starting \"txt:id=N \""
}

@test "an argument after LIST that is not an option is a syntax error" {
  send client list nonsense
  expect_reply "ERR syntax error"
}

@test "the other CLIENT subcommands still answer" {
  send client id
  expect_regex '^[0-9]+$'
  send client
  expect_reply "ERR wrong number of arguments for 'client' command"
}
