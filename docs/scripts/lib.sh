# lib.sh -- helpers the measurement scripts of docs/scripts/ share (sourced).

# Wall-clock milliseconds, from bash's own clock (no process started).
now_ms() { local t=$EPOCHREALTIME; echo $((${t/./} / 1000)); }

# A port nobody listens on: one that refuses a connection.
pick_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}
