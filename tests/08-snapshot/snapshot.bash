# snapshot.bash -- helpers chapter 08's suites share (snapshot.bats and
# interop.bats load it after ../helpers/server): a directory for a test's
# snapshots, INFO fields, a wait for a deadline, and commands sent on one
# connection. Every check prints what it sent, expected and received, as
# expect.bash's do.

# new_dir: a fresh, empty directory for a test's snapshots (--dir).
new_dir() {
  mktemp -d "$BATS_TEST_TMPDIR/dir.XXXXXX"
}

# send_info [SECTION]: INFO SECTION (persistence; "all" for every section),
# CRs removed, kept in INFO_TEXT for expect_field; one request for several
# checks, since on a busy machine each redis-cli may take 100 ms or more.
info_text() {
  if [ "$1" = all ]; then rcli info; else rcli info "$1"; fi | tr -d '\r'
}

send_info() {
  send_as "redis-cli INFO ${1:-persistence} (CRs removed)" info_text "${1:-persistence}"
  INFO_TEXT=$output
}

# expect_field NAME WANT: field NAME of the last send_info's reply is WANT.
expect_field() {
  local got=""
  if [[ $'\n'"$INFO_TEXT"$'\n' =~ $'\n'"$1":([^$'\n']*)$'\n' ]]; then got=${BASH_REMATCH[1]}; fi
  expect_eq "INFO field $1" "$got" "$2"
}

# sleep_until_ms AT: sleep until the wall clock reads AT (Unix ms) or later.
# Only to let a deadline pass while the server is down or not looking: the
# checks after it ask the server what it did, and poll for what takes time.
sleep_until_ms() {
  local left=$(($1 - $(now_ms)))
  if [ "$left" -gt 0 ]; then sleep "$((left / 1000)).$(printf '%03d' $((left % 1000)))"; fi
}

# cli_lines LINE...: the lines on one connection, as redis-cli reads commands
# from its standard input, where a "..." argument may hold \x00, \r and \n
# escapes; typed replies (--no-raw: "v", (integer) 1, (nil)), one a line.
# redis-cli's note after a reply that took over half a second, "(0.90s)",
# is dropped: a busy machine's, not the server's.
cli_lines() {
  printf '%s\n' "$@" | redis-cli -p "$PORT" --no-raw | sed -E '/^\([0-9]+\.[0-9]+s\)$/d'
}

# send_lines LINE...: cli_lines, shown as the lines joined by " | ", a line
# over 160 characters cut short.
send_lines() {
  local line shown=""
  for line in "$@"; do
    if [ "${#line}" -gt 160 ]; then line="${line:0:100}...(${#line} characters)"; fi
    shown+="${shown:+ | }$line"
  done
  send_as "redis-cli --no-raw, reading the lines: $shown" cli_lines "$@"
}
