#!/usr/bin/env python3
"""repl_probe.py -- watches a master and its replicas for replication.sh.

One connection per server, kept open, so that polling every 10 ms costs a
few small INFO replies rather than a redis-cli process each time (which
would take the replicas' CPU from them). Three commands:

  synced MASTER REPLICA[,REPLICA...] WITHIN_MS [after-a-line]
      poll every 10 ms until every replica has master_link_status:up, names
      MASTER as master_port, and its slave_repl_offset equals the master's
      master_repl_offset: every write the master has sent is applied.
      Prints the milliseconds it waited; exits 1 after WITHIN_MS, printing
      the last offsets seen. With after-a-line, it connects, then waits for
      a line on its standard input before it starts the clock and polls:
      started before a run and told when the run ends, it times the
      catch-up without its own start-up (a few hundred ms on a busy
      machine) in it.
  sync REPLICA MASTER KEYS WITHIN_MS
      send REPLICA "REPLICAOF 127.0.0.1 MASTER", then poll its INFO
      replication and DBSIZE every 10 ms until the link is up and DBSIZE is
      KEYS. Prints the milliseconds from just before the REPLICAOF to the
      poll that saw both, and to the first poll that saw the transfer under
      way (master_sync_in_progress:1, set when the replica has the
      master's +FULLRESYNC; the total if no poll saw it): what the
      handshake took, up to the master's fork. Exits 1 after WITHIN_MS.
  lag MASTER REPLICA FILE
      every 100 ms until SIGTERM, one line to FILE (flushed at once):
      t_ms (Unix), the master's master_repl_offset, its slave0's offset= (the
      last offset that replica acknowledged) and lag= (seconds since its last
      REPLCONF ACK), and the replica's own slave_repl_offset (what it has
      applied), read just after the master's INFO.
"""
import signal
import socket
import sys
import time

POLL_S = 0.010       # synced and sync: between two polls
LAG_SAMPLE_S = 0.100  # lag: between two samples


class Conn:
    """A blocking RESP connection that sends commands and reads one reply."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.f = self.sock.makefile("rb")

    def call(self, *args):
        """The reply: str for a status, bulk or error (an error begins
        with '-'), int for an integer."""
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(out)
        line = self.f.readline().rstrip(b"\r\n")
        kind, rest = line[:1], line[1:]
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            return self.f.read(n + 2)[:-2].decode(errors="replace")
        if kind == b":":
            return int(rest)
        if kind == b"-":
            return "-" + rest.decode(errors="replace")
        return rest.decode(errors="replace")

    def info_replication(self):
        """INFO replication as a dict of its fields."""
        text = self.call("INFO", "replication") or ""
        fields = {}
        for line in text.splitlines():
            k, sep, v = line.partition(":")
            if sep:
                fields[k] = v
        return fields


def slave_fields(value):
    """slave0's "ip=...,port=...,offset=...,lag=..." as a dict."""
    return dict(kv.partition("=")[::2] for kv in value.split(","))


def synced(master_port, replica_ports, within_ms, after_a_line=False):
    master = Conn(master_port)
    replicas = [Conn(p) for p in replica_ports]
    if after_a_line:
        sys.stdin.readline()
    t0 = time.monotonic()
    while True:
        mo = master.info_replication().get("master_repl_offset")
        seen, done = [], True
        for port, r in zip(replica_ports, replicas):
            f = r.info_replication()
            link, ro = f.get("master_link_status"), f.get("slave_repl_offset")
            seen.append(f"{port}: link {link}, offset {ro}")
            if link != "up" or f.get("master_port") != str(master_port) or ro != mo:
                done = False
        waited = (time.monotonic() - t0) * 1000
        if done:
            print(int(waited))
            return 0
        if waited > within_ms:
            print(f"master {master_port} at offset {mo}; " + "; ".join(seen), file=sys.stderr)
            return 1
        time.sleep(POLL_S)


def sync(replica_port, master_port, keys, within_ms):
    r = Conn(replica_port)
    t0 = time.monotonic()
    reply = r.call("REPLICAOF", "127.0.0.1", master_port)
    if reply.startswith("-"):
        print(f"REPLICAOF answered {reply}", file=sys.stderr)
        return 1
    transfer_ms = None
    while True:
        f = r.info_replication()
        link = f.get("master_link_status")
        n = r.call("DBSIZE") if link == "up" else None
        waited = (time.monotonic() - t0) * 1000
        if transfer_ms is None and f.get("master_sync_in_progress") == "1":
            transfer_ms = waited
        if link == "up" and n == keys:
            print(int(waited), int(waited if transfer_ms is None else transfer_ms))
            return 0
        if waited > within_ms:
            print(f"link {link}, DBSIZE {n}, after {int(waited)} ms", file=sys.stderr)
            return 1
        time.sleep(POLL_S)


def lag(master_port, replica_port, path):
    master, replica = Conn(master_port), Conn(replica_port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(path, "w") as out:
        out.write("t_ms\tmaster_offset\tack_offset\tlag_s\treplica_offset\n")
        next_at = time.monotonic()
        while True:
            t_ms = int(time.time() * 1000)
            m = master.info_replication()
            ro = replica.info_replication().get("slave_repl_offset", "NA")
            s = slave_fields(m.get("slave0", "offset=NA,lag=NA"))
            out.write(f"{t_ms}\t{m.get('master_repl_offset', 'NA')}\t{s.get('offset', 'NA')}\t"
                      f"{s.get('lag', 'NA')}\t{ro}\n")
            out.flush()
            next_at += LAG_SAMPLE_S
            time.sleep(max(0.0, next_at - time.monotonic()))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "synced" and len(argv) in (5, 6) and argv[5:] in ([], ["after-a-line"]):
        return synced(int(argv[2]), [int(p) for p in argv[3].split(",")], int(argv[4]), len(argv) == 6)
    if cmd == "sync" and len(argv) == 6:
        return sync(int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5]))
    if cmd == "lag" and len(argv) == 5:
        return lag(int(argv[2]), int(argv[3]), argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
