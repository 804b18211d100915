#!/usr/bin/env python3
"""repl_capture.py -- play a replica against a master and print its stream.

    repl_capture.py --master HOST:PORT [--commands FILE] [--wait-ms N] [--verbose]

Connects to the master as a 7.0.15 replica does (PING, REPLCONF
listening-port, REPLCONF capa eof capa psync2, PSYNC ? -1), reads the
+FULLRESYNC line and the snapshot in either form ($<len> or $EOF:<mark>),
acknowledges it (REPLCONF ACK 0, every ACK_PERIOD_S from then on), then sends each line of FILE (words split on spaces) to the master as a
client, on a connection of its own, one after the other, waiting for each
reply. A line "sleep MS" pauses instead. It then reads the stream for
--wait-ms more, and prints the commands the master sent, one a line, words
joined by spaces. Timestamps and deadlines (numbers of 13 digits: Unix ms)
print as <ms>, so two masters' streams compare equal when they carry the same
commands. PING and REPLCONF GETACK, which a master sends on its own clock,
are left out. --verbose prints the handshake's replies first, each as
"> reply".

Exit status 0, or 1 with the reason on stderr: a reply that is not what a
master answers, a snapshot cut short, or a stream that does not parse.
"""
import argparse
import re
import socket
import sys
import threading
import time

MS = re.compile(rb"^[0-9]{13}$")
ACK_PERIOD_S = 0.1


class Link:
    """A socket read through a buffer, with a deadline for every read."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.buf = b""

    def fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        self.sock.settimeout(left)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return False
        if not data:
            raise EOFError("the master closed the connection")
        self.buf += data
        return True

    def line(self, deadline):
        while b"\r\n" not in self.buf:
            if not self.fill(deadline):
                raise TimeoutError("no whole line from the master in time")
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def exactly(self, n, deadline):
        while len(self.buf) < n:
            if not self.fill(deadline):
                raise TimeoutError("the snapshot was cut short: %d of %d bytes" % (len(self.buf), n))
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, *words):
        out = b"*%d\r\n" % len(words)
        for w in words:
            w = w if isinstance(w, bytes) else str(w).encode()
            out += b"$%d\r\n%s\r\n" % (len(w), w)
        self.sock.sendall(out)


class Acks(threading.Thread):
    """REPLCONF ACK 0 every ACK_PERIOD_S, as a replica acknowledges every
    second. A 7.0.15 master starts the stream of a replica that took a
    diskless snapshot at its first ACK after the transfer has ended on the
    master's side too (replconfCommand(), replication.c), which may be a
    little after the replica has read the last byte."""

    def __init__(self, link):
        super().__init__(daemon=True)
        self.link, self.done = link, threading.Event()
        self.start()

    def run(self):
        while not self.done.is_set():
            try:
                self.link.send("REPLCONF", "ACK", "0")
            except OSError:
                return
            self.done.wait(ACK_PERIOD_S)

    def stop(self):
        self.done.set()
        self.join()


def handshake(link, verbose):
    deadline = time.monotonic() + 5
    for words, want in ((["PING"], b"+PONG"), (["REPLCONF", "listening-port", "7777"], b"+OK"),
                        (["REPLCONF", "capa", "eof", "capa", "psync2"], b"+OK")):
        link.send(*words)
        got = link.line(deadline)
        if verbose:
            print("> " + got.decode(errors="replace"))
        if got != want:
            raise ValueError("%s: expected %r, got %r" % (" ".join(words), want, got))
    link.send("PSYNC", "?", "-1")
    got = link.line(deadline)
    if verbose:
        print("> " + got.decode(errors="replace"))
    if not re.match(rb"^\+FULLRESYNC [0-9a-f]{40} [0-9]+$", got):
        raise ValueError("PSYNC ? -1: expected +FULLRESYNC <replid> <offset>, got %r" % got)


def read_snapshot(link):
    """Skip the \\n keep-alives, then read the snapshot in either form."""
    deadline = time.monotonic() + 10
    while True:
        while not link.buf:
            if not link.fill(deadline):
                raise TimeoutError("no snapshot from the master in time")
        if link.buf.startswith(b"\n"):
            link.buf = link.buf[1:]
            continue
        break
    head = link.line(deadline)
    if head.startswith(b"$EOF:"):
        mark = head[5:]
        while mark not in link.buf:
            if not link.fill(deadline):
                raise TimeoutError("the diskless snapshot never ended")
        link.buf = link.buf.split(mark, 1)[1]
    elif head.startswith(b"$"):
        link.exactly(int(head[1:]), deadline)
    else:
        raise ValueError("expected $<len> or $EOF:<mark> before the snapshot, got %r" % head)


def parse_commands(buf):
    """The whole multibulk commands at the front of buf, and what is left."""
    out = []
    while buf.startswith(b"*") and b"\r\n" in buf:
        head, rest = buf.split(b"\r\n", 1)
        words = []
        for _ in range(int(head[1:])):
            if b"\r\n" not in rest:
                return out, buf
            lenline, tail = rest.split(b"\r\n", 1)
            if not lenline.startswith(b"$"):
                raise ValueError("a bulk length was expected in the stream, got %r" % lenline)
            n = int(lenline[1:])
            if len(tail) < n + 2:
                return out, buf
            words.append(tail[:n])
            rest = tail[n + 2:]
        out.append(words)
        buf = rest
    if buf and not buf.startswith(b"*"):
        raise ValueError("the stream holds something that is not a command: %r" % buf[:40])
    return out, buf


def shown(words):
    if words[0].upper() == b"PING" or (len(words) >= 2 and words[0].upper() == b"REPLCONF"):
        return None
    return " ".join("<ms>" if MS.match(w) else w.decode(errors="replace") for w in words)


def run_client_commands(host, port, path):
    client = Link(host, port)
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "sleep":
                time.sleep(int(words[1]) / 1000)
                continue
            client.send(*words)
            read_reply(client)
    client.sock.close()


def read_reply(link):
    deadline = time.monotonic() + 5
    line = link.line(deadline)
    if line[:1] in (b"$",) and int(line[1:]) >= 0:
        link.exactly(int(line[1:]) + 2, deadline)
    elif line[:1] == b"*":
        for _ in range(max(int(line[1:]), 0)):
            read_reply(link)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--master", required=True)
    ap.add_argument("--commands", default="/dev/null")
    ap.add_argument("--wait-ms", type=int, default=300)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    host, port = a.master.rsplit(":", 1)
    try:
        link = Link(host, int(port))
        handshake(link, a.verbose)
        read_snapshot(link)
        acks = Acks(link)
        run_client_commands(host, int(port), a.commands)
        deadline = time.monotonic() + a.wait_ms / 1000
        while link.fill(deadline):
            pass
        acks.stop()
        commands, rest = parse_commands(link.buf)
        if rest:
            raise ValueError("the stream ends inside a command: %r" % rest[:40])
    except (OSError, ValueError, EOFError, TimeoutError) as e:
        print("repl_capture.py: %s" % e, file=sys.stderr)
        return 1
    for words in commands:
        text = shown(words)
        if text is not None:
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
