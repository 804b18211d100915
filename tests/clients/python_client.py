#!/usr/bin/python3
"""python_client.py -- the tutorial's servers through redis-py.

Learners who write Python will point redis-py at their server (here Debian's
python3-redis). This script uses it with its default settings and checks what
a first program does: connect, a binary value through SET/GET, a pipeline of
200 commands, DEL, and, from step 04, EXPIRE/TTL. redis-py 5 and later send
CLIENT SETINFO when they connect; with --resp3 the connection is opened with
protocol=3, which sends HELLO 3 (redis-py 5 and later; older ones skip).

    python_client.py PORT [--no-keyspace] [--expiry] [--resp3]
    python_client.py --version

--no-keyspace is for step 01, which has no keys: PING/ECHO instead.
Exit status: 0 passed, 77 skipped (the reason on stdout), 1 failed (the
first mismatch on stderr). tests/clients/run.sh runs it.
"""
import sys
import time

import redis

PIPELINE = 200
EXIT_SKIP = 77
# A value with every byte a text protocol could trip on.
BINARY = b"a\x00b\r\nc\n\r$-1\r\n*2\r\n\xff"


def expect(what, got, want):
    if got != want:
        sys.exit(f"python_client: {what}: expected {want!r}, got {got!r}")


def check_ping_echo(r):
    expect("PING", r.ping(), True)
    expect("ECHO of a binary value", r.echo(BINARY), BINARY)


def check_binary_set_get(r):
    expect("SET of a binary value", r.set("clients:py:bin", BINARY), True)
    expect("GET of a binary value", r.get("clients:py:bin"), BINARY)
    expect("GET of a missing key", r.get("clients:py:missing"), None)


def check_pipeline(r, keyspace):
    # transaction=False: a plain pipeline. redis-py's default, transaction=True,
    # wraps the commands in MULTI/EXEC, which these servers do not implement.
    p = r.pipeline(transaction=False)
    want = []
    for i in range(PIPELINE):
        if not keyspace:
            p.echo(str(i))
            want.append(str(i).encode())
        elif i % 2 == 0:
            p.set(f"clients:py:p{i}", i)
            want.append(True)
        else:
            p.get(f"clients:py:p{i - 1}")
            want.append(str(i - 1).encode())
    expect(f"pipeline of {PIPELINE}", p.execute(), want)


def check_del(r):
    expect("DEL of one present and one missing key",
           r.delete("clients:py:bin", "clients:py:missing"), 1)
    expect("GET after DEL", r.get("clients:py:bin"), None)
    expect("DEL of a deleted key", r.delete("clients:py:bin"), 0)


def check_expiry(r):
    r.set("clients:py:ttl", "v")
    expect("TTL without expiry", r.ttl("clients:py:ttl"), -1)
    expect("EXPIRE", r.expire("clients:py:ttl", 100), True)
    ttl = r.ttl("clients:py:ttl")
    if not 99 <= ttl <= 100:
        sys.exit(f"python_client: TTL: expected 99..100, got {ttl!r}")
    expect("TTL of a missing key", r.ttl("clients:py:missing"), -2)
    # And the key really goes: 100 ms to live, looked at after 300.
    expect("PEXPIRE", r.pexpire("clients:py:ttl", 100), True)
    time.sleep(0.3)
    expect("GET after the key expired", r.get("clients:py:ttl"), None)


def check_resp3(r):
    hello = r.execute_command("HELLO")  # no argument: this connection's facts
    expect("HELLO's proto", hello.get(b"proto", hello.get("proto")), 3)
    expect("CLIENT GETNAME in RESP3", r.client_getname(), None)


def main():
    args = sys.argv[1:]
    if args == ["--version"]:
        print(redis.__version__)
        return
    if not args:
        sys.exit("usage: python_client.py PORT [--no-keyspace] [--expiry] [--resp3]")
    port, flags = int(args[0]), set(args[1:])
    unknown = flags - {"--no-keyspace", "--expiry", "--resp3"}
    if unknown:
        sys.exit(f"python_client: unknown flag {sorted(unknown)[0]}")

    options = {}
    if "--resp3" in flags:
        major = int(redis.__version__.split(".")[0])
        if major < 5:
            print(f"redis-py {redis.__version__} has no protocol=3 (RESP3 needs redis-py >= 5)")
            sys.exit(EXIT_SKIP)
        options["protocol"] = 3
    r = redis.Redis(host="127.0.0.1", port=port, **options)

    try:
        if "--resp3" in flags:
            check_resp3(r)
        check_ping_echo(r)
        if "--no-keyspace" in flags:
            check_pipeline(r, keyspace=False)
        else:
            check_binary_set_get(r)
            check_pipeline(r, keyspace=True)
            check_del(r)
            if "--expiry" in flags:
                check_expiry(r)
    except redis.RedisError as e:
        sys.exit(f"python_client: {type(e).__name__}: {e}")
    r.close()


if __name__ == "__main__":
    main()
