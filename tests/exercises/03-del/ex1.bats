#!/usr/bin/env bats
# Grader for chapter 03, exercise 1: UNLINK key [key ...].
#
# UNLINK answers what DEL answers: the number of keys that existed and were
# removed, each counted once. Freeing in the foreground is allowed, so the
# memory is checked as for DEL.
#
# Run it: make exercise STEP=03 EX=1 [SERVER=path]
# reference: redis-server (tests/exercises/check.sh runs it against a real Redis)

load ../../helpers/server

setup_file() { start_server; }
teardown_file() { stop_server; }

used_memory() { rcli info memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

@test "UNLINK a a b nosuchkey answers 2 with a and b set, and removes them" {
  rcli set "$(key a)" 1
  rcli set "$(key b)" 2
  send_multibulk 4 UNLINK "$(key a)" "$(key a)" "$(key b)" "$(key nosuchkey)"
  expect_bytes ':2\r\n'
  send exists "$(key a)" "$(key b)"
  expect_reply "0"
}

@test "UNLINK of missing keys answers 0" {
  send unlink "$(key x)" "$(key y)"
  expect_reply "0"
}

@test "UNLINK lowers DBSIZE by what it removed and leaves other keys alone" {
  rcli set "$(key a)" 1
  rcli set "$(key keep)" 2
  before=$(rcli dbsize)
  send unlink "$(key a)"
  expect_reply "1"
  send dbsize
  expect_num DBSIZE "$output" -eq $((before - 1))
  send get "$(key keep)"
  expect_reply "2"
}

@test "UNLINK frees the value: used_memory drops by about its size" {
  head -c 4000000 /dev/zero | tr '\0' 'x' | rcli -x set "$(key)" >/dev/null
  before=$(used_memory)
  send unlink "$(key)"
  expect_reply "1"
  # Freed in the foreground or by a background thread: allow it a moment.
  for _ in $(seq 1 20); do
    after=$(used_memory)
    [ $((before - after)) -gt 3000000 ] && break
    sleep 0.05
  done
  SENT="redis-cli INFO memory before UNLINK of the 4 MB value and up to 1 s after it"
  expect_num "used_memory freed (before - after, $before - $after)" $((before - after)) -gt 3000000
}

@test "UNLINK without a key is an arity error" {
  send unlink
  expect_reply "ERR wrong number of arguments for 'unlink' command"
}
