#!/usr/bin/env python3
"""skewed_master.py -- a scripted master whose clocks are off from its
replica's, for chapter 09's clock-skew test and docs/scripts/clock-skew.sh.

Two servers on one machine share one clock, so a skew between them cannot
be made with two real servers (Redis has no setting for it, and this project
adds none). A master only ever shows its clock to a replica through the
deadlines it stamps (SET ... PXAT) and the moment it sends each DEL, so this
master stamps and sends those as three masters with skewed clocks would.
It answers the handshake as fake_master.py's good mode does, sends a good
snapshot (one key, from:fake, with no TTL), and SKEW_SETTLE_MS later, at
the moment the log calls T0, one SET per key, each meant to live TTL_MS by
its master's clock:

  ahead   the replica's clock is SKEW_MS ahead of this key's master:
          SET ahead v PXAT T0+TTL-SKEW, and DEL ahead at T0+TTL
  behind  the replica's clock is SKEW_MS behind: PXAT T0+TTL+SKEW, and
          DEL behind at T0+TTL (the master's active expiry is on time)
  lazy    behind too, and its master never sends the DEL: its active
          expiry is off and no client asks it for the key

It logs one line per event, "set T0_MS", "del KEY MS" (real Unix ms), and
"connection N: ..." when a replica hangs up, as fake_master.py does.

  skewed_master.py PORT SKEW_MS TTL_MS
"""
import select
import socket
import sys
import threading
import time

from fake_master import parse, snapshot

SETTLE_MS = 500  # from the snapshot to T0: the replica loads it meanwhile
PING_EVERY_S = 1.0  # as fake_master.py: the link stays up


def now_ms():
    return int(time.time() * 1000)


def command(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def log(line):
    print(line, flush=True)


def stream(conn, skew, ttl):
    """After the snapshot: the three SETs at T0, each DEL at its time, a
    PING every second, and the replica's ACKs read and ignored."""
    time.sleep(SETTLE_MS / 1000)
    t0 = now_ms()
    conn.sendall(command("SELECT", 0)
                 + command("SET", "ahead", "v", "PXAT", t0 + ttl - skew)
                 + command("SET", "behind", "v", "PXAT", t0 + ttl + skew)
                 + command("SET", "lazy", "v", "PXAT", t0 + ttl + skew))
    log(f"set {t0}")
    dels, last_ping = ["ahead", "behind"], time.time()
    while True:
        if dels and now_ms() >= t0 + ttl:
            conn.sendall(b"".join(command("DEL", k) for k in dels))
            for k in dels:
                log(f"del {k} {now_ms()}")
            dels = []
        if time.time() - last_ping >= PING_EVERY_S:
            conn.sendall(command("PING"))
            last_ping = time.time()
        readable, _, _ = select.select([conn], [], [], 0.01)
        if readable and not conn.recv(65536):
            return


def serve(conn, number, skew, ttl):
    seen, buf = [], b""
    try:
        while True:
            args, buf = parse(buf)
            if args is None:
                data = conn.recv(65536)
                if not data:
                    break
                buf += data
                continue
            seen.append(b" ".join(args).decode(errors="replace"))
            name = args[0].lower()
            if name == b"ping":
                conn.sendall(b"+PONG\r\n")
            elif name == b"replconf":
                if args[1].lower() != b"ack":
                    conn.sendall(b"+OK\r\n")
            elif name in (b"psync", b"sync"):
                rdb = snapshot()
                conn.sendall(b"+FULLRESYNC " + b"5" * 40 + b" 0\r\n" + b"$%d\r\n" % len(rdb) + rdb)
                stream(conn, skew, ttl)
                break
            else:
                conn.sendall(b"-ERR unknown command\r\n")
    except OSError:
        pass
    finally:
        log(f"connection {number}: " + " | ".join(seen))
        conn.close()


def main():
    port, skew, ttl = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(8)
    log("listening")
    number = 0
    while True:
        conn, _ = listener.accept()
        number += 1
        threading.Thread(target=serve, args=(conn, number, skew, ttl), daemon=True).start()


if __name__ == "__main__":
    main()
