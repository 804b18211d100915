#!/usr/bin/env python3
"""many_clients.py -- many clients send their pipelines at once; each must get
its own replies, whole and in order.

    many_clients.py PORT [--clients N] [--rounds M] [--split] [--vanish K]
                         [--existing KEYS]

Chapter 12's server holds the clients read in one turn of the event loop and
runs them together at its end, after reading ahead in their buffers. Nothing a
client sees may change: this opens N connections first, then sends every
pipeline before reading any reply, so that the server finds many clients
ready in the same turns, and checks each client's replies byte for byte.

Each client i sends M rounds of five commands on keys of its own, so the
replies do not depend on the order in which the server runs the clients:
SET k v (+OK), GET k (v), EXISTS k missing (:1), DEL k (:1), GET k (nil).

--split        send each pipeline in two parts, cut at a different byte for
               each client (mid-number, mid-argument, between requests), the
               second part once every client's first part is out
--vanish K     the first K clients close their connection as soon as they have
               sent, without reading; the others must still get everything,
               and the server must still answer a new client
--existing KEYS  first store KEYS keys (fp:key:J holding vJ, through one
               pipeline), then make each client's pipeline GETs of them, in an
               order of its own: lookups in a table much larger than a batch,
               while it grows and rehashes

Prints one line, "ok: ..." (exit 0) or what a client sent, expected and
received (exit 1).
"""
import argparse
import os
import random
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from resp_client import encode  # noqa: E402  (the request encoder the suites share)

TIMEOUT_S = 10


def bulk(v):
    return b"$%d\r\n%s\r\n" % (len(v), v)


def pipeline_of_own_keys(i, rounds):
    sent, want = [], []
    for j in range(rounds):
        k, v = b"fp:%d:%d" % (i, j), b"value-%d-%d" % (i, j)
        sent += [encode([b"SET", k, v]), encode([b"GET", k]), encode([b"EXISTS", k, b"fp:missing"]),
                 encode([b"DEL", k]), encode([b"GET", k])]
        want += [b"+OK\r\n", bulk(v), b":1\r\n", b":1\r\n", b"$-1\r\n"]
    return b"".join(sent), b"".join(want)


def pipeline_of_existing_keys(i, rounds, keys):
    rng = random.Random(i)
    sent, want = [], []
    for _ in range(rounds * 5):
        j = rng.randrange(keys)
        sent.append(encode([b"GET", b"fp:key:%d" % j]))
        want.append(bulk(b"v%d" % j))
    return b"".join(sent), b"".join(want)


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_exactly(s, n):
    got = b""
    deadline = time.time() + TIMEOUT_S
    while len(got) < n and time.time() < deadline:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        got += chunk
    return got


def store_keys(port, keys):
    s = connect(port)
    s.sendall(b"".join(encode([b"SET", b"fp:key:%d" % j, b"v%d" % j]) for j in range(keys)))
    got = read_exactly(s, 5 * keys)
    s.close()
    if got != b"+OK\r\n" * keys:
        fail("storing %d keys: expected %d replies +OK, received %d bytes" % (keys, keys, len(got)))


def shown(b, limit=160):
    text = b[:limit].decode("latin-1").replace("\r", "\\r").replace("\n", "\\n")
    return text + ("... (%d bytes)" % len(b) if len(b) > limit else "")


def fail(message):
    print(message)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--split", action="store_true")
    ap.add_argument("--vanish", type=int, default=0)
    ap.add_argument("--existing", type=int, default=0)
    a = ap.parse_args()

    if a.existing:
        store_keys(a.port, a.existing)
    pipes = [pipeline_of_existing_keys(i, a.rounds, a.existing) if a.existing
             else pipeline_of_own_keys(i, a.rounds) for i in range(a.clients)]
    socks = [connect(a.port) for _ in range(a.clients)]
    cuts = [(7 * i + 3) % len(sent) if a.split else len(sent) for i, (sent, _) in enumerate(pipes)]
    for s, (sent, _), cut in zip(socks, pipes, cuts):
        s.sendall(sent[:cut])
    if a.split:
        time.sleep(0.02)  # the first parts are read, and looked at, alone
        for s, (sent, _), cut in zip(socks, pipes, cuts):
            s.sendall(sent[cut:])
    for s in socks[:a.vanish]:
        s.close()
    for i in range(a.vanish, a.clients):
        sent, want = pipes[i]
        got = read_exactly(socks[i], len(want))
        if got != want:
            at = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]),
                      min(len(got), len(want)))
            fail("client %d of %d sent %s%s; expected %s; received %s (first difference at byte %d)"
                 % (i, a.clients, shown(sent), " in two parts, cut at byte %d" % cuts[i] if a.split else "",
                    shown(want[at:]), shown(got[at:]) or "nothing more", at))
        socks[i].close()
    if a.vanish:
        s = connect(a.port)
        s.sendall(encode([b"PING"]))
        got = read_exactly(s, 7)
        s.close()
        if got != b"+PONG\r\n":
            fail("after %d clients vanished: a new client sent PING; expected +PONG\\r\\n; received %s"
                 % (a.vanish, shown(got) or "nothing"))
    print("ok: %d clients, %d replies each" % (a.clients - a.vanish, len(pipes[-1][1].split(b"\r\n")) - 1))


if __name__ == "__main__":
    main()
