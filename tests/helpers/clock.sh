# clock.sh -- now_ms, the wall clock in milliseconds, for every script that
# times something: the bats helper (server.bash), tests/bench/lib.sh and
# docs/scripts/lib.sh source it.

# now_ms: Unix time in milliseconds. Bash 5 keeps it in EPOCHREALTIME
# ("1700000000.123456", with the locale's decimal point), so no process is
# started; dropping every non-digit leaves microseconds. An older bash
# (macOS's 3.2) has no EPOCHREALTIME and asks python3 instead.
now_ms() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local us=${EPOCHREALTIME//[!0-9]/}
    echo $((us / 1000))
  else
    "${PYTHON:-python3}" -c 'import time; print(int(time.time() * 1000))'
  fi
}
