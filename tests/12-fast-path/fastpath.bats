#!/usr/bin/env bats
# Chapter 12: the fast path changes when a client's commands run, never what
# a client receives. Many clients send their pipelines at once, so that the
# server finds them ready in the same turns of its event loop, holds them and
# runs them together after reading ahead in their buffers; each client must
# still get exactly its own replies, in order (many_clients.py checks them
# byte for byte). Everything here holds for any Redis: the suite passes
# against a real redis-server too.

load ../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

many() {
  send_as "many_clients.py $*: pipelines of SET, GET, EXISTS, DEL and GET on each client's own keys" \
    "$PYTHON" "$BATS_TEST_DIRNAME/many_clients.py" "$PORT" "$@"
  expect_status 0
  expect_match "ok: *"
}

@test "12-3 fifty clients pipelining at once each get their own replies, whole and in order" {
  many --clients 50 --rounds 40
}

@test "12-3 a pipeline of one client alone, longer than a batch of 16 keys, is answered in order" {
  many --clients 1 --rounds 400
}

@test "12-4 pipelines cut anywhere, their first parts read alone, get the same replies" {
  many --clients 40 --rounds 10 --split
}

@test "12-4 inline requests between multibulk ones, from clients read together, are answered in order" {
  rcli set fp:inline:k v >/dev/null
  local i pids=() outs=()
  for i in 1 2 3 4 5 6 7 8; do
    outs+=("$BATS_TEST_TMPDIR/inline.$i")
    printf '*2\r\n$3\r\nGET\r\n$11\r\nfp:inline:k\r\nGET fp:inline:k\r\n*1\r\n$4\r\nPING\r\nPING\r\nQUIT\r\n' |
      raw --close-expected >"${outs[-1]}" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    output=$(cat "${outs[$i]}")
    SENT="GET, inline GET, PING, inline PING, QUIT from 8 clients at once (client $((i + 1)))"
    expect_bytes '$1\r\nv\r\n$1\r\nv\r\n+PONG\r\n+PONG\r\n+OK\r'
  done
}

@test "12-5 clients that vanish right after sending cost the others nothing" {
  many --clients 40 --rounds 40 --vanish 15
}

@test "12-5 GETs of 20,000 stored keys from fifty clients at once find every value" {
  many --clients 50 --rounds 20 --existing 20000
}

stat() { rcli info stats | tr -d '\r' | sed -n "s/^$1://p"; }

@test "12-6 INFO counts the look-ahead's batches and the keys it prefetched" {
  own_promise "INFO fields of this project's fast path"
  local batches keys
  batches=$(stat fastpath_batches) keys=$(stat fastpath_prefetched_keys)
  [ -n "$batches" ] && [ -n "$keys" ] ||
    fail_exchange "fastpath_batches and fastpath_prefetched_keys in INFO stats" "$(rcli info stats)"
  # Ten GETs in one write: one read, one batch, ten keys. The INFO stats
  # that reads the counters is a request too, and its argv[1], "stats",
  # counts as a key: the look-ahead does not know which arguments are keys.
  send_raw "$(printf '*2\\r\\n$3\\r\\nGET\\r\\n$4\\r\\nfp:%d\\r\\n' 0 1 2 3 4 5 6 7 8 9)" --expect 50
  expect_bytes "$(printf '$-1\\r\\n%.0s' 0 1 2 3 4 5 6 7 8 9)"
  SENT="ten pipelined GETs, then INFO stats"
  expect_num fastpath_prefetched_keys "$(stat fastpath_prefetched_keys)" -eq $((keys + 10 + 1))
  expect_num fastpath_batches "$(stat fastpath_batches)" -ge $((batches + 2))
  # PING names no key: nothing is prefetched for it.
  keys=$(stat fastpath_prefetched_keys)
  send_raw '*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n' --expect 21
  expect_bytes '+PONG\r\n+PONG\r\n+PONG\r'
  SENT="three pipelined PINGs, then INFO stats"
  expect_num fastpath_prefetched_keys "$(stat fastpath_prefetched_keys)" -eq $((keys + 1))
}

used_memory() { rcli info memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

# key_commands N WHAT: WHAT fp:mem:0 .. fp:mem:N-1, inline, through one pipe.
key_commands() {
  awk -v n="$1" -v what="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s fp:mem:%d%s\r\n",
    substr(what, 1, index(what " ", " ") - 1), i, substr(what, index(what " ", " ")) }' |
    pipe_commands "$1" "$2 on fp:mem:0..fp:mem:$(($1 - 1))"
}

@test "12-7 a key pays for expiry only while it has a TTL" {
  # Redis keeps expire times in a table of their own, this step in a node
  # that only the entries of keys with a TTL carry: either way, giving
  # 20,000 keys a TTL costs memory (at least the node's two 8-byte links a
  # key), and taking it away gives that memory back.
  local n=20000 m0 m1 m2
  rcli flushall >/dev/null
  load_keys fp:mem "$n"
  # A lookup of every key first: the hash table's growth during the load
  # finishes (its old bucket array is freed) before the first reading.
  key_commands "$n" "EXISTS"
  m0=$(used_memory)
  key_commands "$n" "EXPIRE 10000"
  m1=$(used_memory)
  SENT="EXPIRE fp:mem:N 10000 for $n keys without a TTL, INFO memory before and after"
  expect_num "growth of used_memory, bytes" "$((m1 - m0))" -ge $((n * 16))
  key_commands "$n" "PERSIST"
  m2=$(used_memory)
  SENT="PERSIST fp:mem:N for the same $n keys, INFO memory before and after"
  expect_num "drop of used_memory, bytes" "$((m1 - m2))" -ge $((n * 16))
}
