# lib.sh -- helpers the measurement scripts of docs/scripts/ share (sourced):
# a free port, the clock, and each server's colour in a plot.

# The same helpers the tests use: pick_port (and wait_for_pong), and now_ms,
# wall-clock milliseconds from bash's own clock (no process started).
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/helpers/port.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/helpers/clock.sh"

# colour_key LABEL BINARY: which entry of the palette a server is: redis for
# a real Redis, NN for step NN (from the label
# or the build directory, build/NN-name/server); nothing when none fits.
colour_key() {
  local label=$1 bin=${2:-x} dir name
  dir=$(basename "$(dirname "$bin")")
  case $label in Redis* | redis*) echo redis; return ;; esac
  [ "$(basename "$bin")" = redis-server ] && { echo redis; return; }
  for name in "$label" "$dir"; do
    case $name in [0-9][0-9]-* | [0-9][0-9]) echo "${name:0:2}"; return ;; esac
  done
}

# server_colour KEY: its colour (#rrggbb) in tests/bench/colours.tsv, the one
# palette of every plot; nothing for a key it does not list.
server_colour() {
  awk -F'\t' -v k="$1" '$1 == k { print $2 }' \
    "$(dirname "${BASH_SOURCE[0]}")/../../tests/bench/colours.tsv"
}
