# lib.sh -- helpers the measurement scripts of docs/scripts/ share (sourced).

# Wall-clock milliseconds, from bash's own clock (no process started).
now_ms() { local t=$EPOCHREALTIME; echo $((${t/./} / 1000)); }

# pick_port (and wait_for_pong): the same ones the tests use.
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/helpers/port.sh"
