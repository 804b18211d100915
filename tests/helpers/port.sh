# port.sh -- finding a free port, and waiting until a server answers on it.
# Sourced by every script that starts servers: the bats helper (server.bash),
# tests/clients/run.sh, tests/bench/lib.sh and docs/scripts/lib.sh.

# A random port that refuses a connection is free (for now); the caller
# retries with another if a server then fails to bind it. 20000-32767 stays
# below Linux's ephemeral range, where the kernel picks the local ports of
# outgoing connections.
pick_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 12768))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# wait_for_pong PORT PID [LOG]: wait up to 30 s in all for a PONG on PORT.
# With LOG, also wait for the server to say "ready to accept connections"
# there (ours and Redis both do): a PONG alone could come from another server
# that took the port first. Returns 0 on PONG; 1 at once if process PID is
# gone; 2 when the ready server answers PING with something else (left in
# PONG_REPLY); 3 after 30 s, for instance from a server that accepts but
# never answers. Each PING may wait 1 s for its reply.
WAIT_FOR_PONG_MS=${WAIT_FOR_PONG_MS:-30000}
wait_for_pong() {
  local port=$1 pid=$2 log=${3:-} deadline
  PONG_REPLY=""
  deadline=$(($(date +%s%3N) + WAIT_FOR_PONG_MS))
  while [ "$(date +%s%3N)" -lt "$deadline" ]; do
    kill -0 "$pid" 2>/dev/null || return 1
    if [ -z "$log" ] || grep -q "eady to accept connections" "$log" 2>/dev/null; then
      if PONG_REPLY=$(timeout 1 redis-cli -p "$port" ping 2>&1); then
        [ "$PONG_REPLY" = PONG ] && return 0
        [ -n "$log" ] && return 2
      elif [ -n "$log" ] && [ -z "$PONG_REPLY" ]; then
        PONG_REPLY="(no reply within 1 s)"
      fi
    fi
    sleep 0.05
  done
  return 3
}
