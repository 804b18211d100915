# lib.sh -- helpers the measurement scripts of docs/scripts/ share (sourced).

# The same helpers the tests use: pick_port (and wait_for_pong), and now_ms,
# wall-clock milliseconds from bash's own clock (no process started).
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/helpers/port.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/helpers/clock.sh"
