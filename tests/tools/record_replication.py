#!/usr/bin/env python3
"""record_replication.py -- record chapter 09's exchange on the wire: a real
redis-server 7.0.15 syncing as a replica of step 09's master, then one key
with a TTL living and dying on both. make pictures runs it; the capture it
writes (docs/img/09-replication-capture.txt) is what
tests/tools/draw_replication.py draws chapter 09's two pictures from.

    record_replication.py SERVER OUT

SERVER is step 09's binary (build/09-replication/server). The replica
connects to this program, which connects to the master and passes every
byte on, noting each message as it goes by. This program is also the
clients, one on the master and one on the replica, and notes what they
send and receive. It starts both servers in a directory of its own and
stops them, and removes the directory, whatever happens.

The capture is one message a line, "FROM -> TO: MESSAGE", in the order the
messages went by. A command is its words joined by spaces, a reply its RESP
form on one line (+OK, :1, $-1 for nil, a bulk string in quotes). So that
recording again gives the same file when the servers behave the same, it
normalises what differs from run to run: the replication id prints as
<replid>, the replica's port as <port>, and each Unix time in ms as <ms1>,
<ms2>, ... in order of first appearance (one time, one name). Offsets and
lengths are as they were. It leaves out the bare "\\n" a master sends while
a snapshot is being made, and of the REPLCONF ACKs the replica sends every
second it keeps one at each point where it waits for the replica to have
applied the whole stream: the ACK that says so. A client's command and its
reply are one step: what the link carried meanwhile follows them.

Exits 0 having written OUT, 2 when redis-server is missing or not 7.0.15
(OUT is left as it was), 1 on anything else, with the reason on stderr.
"""
import os
import re
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

REDIS_VERSION = "7.0.15"
TTL_MS = 2000  # the key's time to live: room for the reads before it ends
CATCH_UP_S = 5  # how long the replica may take to acknowledge the stream
FIRST_CRON_S = 1.5  # more than one turn of the master's replication cron
MS = re.compile(r"^[0-9]{13}$")


class Capture:
    """The lines of the capture, with the normalisations. Link messages
    arrive from the relay's thread and wait in `pending` until the main
    thread places them (flush), so that a client's step stays whole."""

    def __init__(self):
        self.lines, self.pending = [], []
        self.times = {}  # Unix ms as sent -> its name, <msN>
        self.lock = threading.Lock()

    def word(self, w):
        if MS.match(w):
            self.times.setdefault(w, "<ms%d>" % (len(self.times) + 1))
            return self.times[w]
        return w

    def text(self, words):
        return " ".join(self.word(w) for w in words)

    def link(self, line):
        with self.lock:
            self.pending.append(line)

    def flush(self):
        with self.lock:
            self.lines += self.pending
            self.pending = []

    def add(self, line, flush=True):
        """Place a line, after the link's messages so far (flush) or before
        those still waiting."""
        if flush:
            self.flush()
        with self.lock:
            self.lines.append(line)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reply_text(reply, cap):
    """A reply as the capture shows it (see the header)."""
    kind, value = reply
    if kind == "bulk":
        return "$-1" if value is None else '"%s"' % value.decode(errors="replace")
    if kind == "int":
        return ":" + cap.word(value.decode())
    return value.decode(errors="replace")


class Reader:
    """RESP read from the front of a growing buffer. Each parse returns
    what it read and how many bytes, or None while it is incomplete."""

    def __init__(self):
        self.buf = b""

    def line(self, at=0):
        end = self.buf.find(b"\r\n", at)
        return None if end < 0 else (self.buf[at:end], end + 2)

    def command(self):
        """A multibulk command: its words and its length in bytes."""
        head = self.line()
        if head is None:
            return None
        if not head[0].startswith(b"*"):
            raise ValueError("expected a command, got %r" % head[0][:40])
        at, words = head[1], []
        for _ in range(int(head[0][1:])):
            n = self.line(at)
            if n is None:
                return None
            size = int(n[0][1:])
            if len(self.buf) < n[1] + size + 2:
                return None
            words.append(self.buf[n[1]:n[1] + size].decode(errors="replace"))
            at = n[1] + size + 2
        return words, at

    def reply(self):
        """One reply, as (kind, value), and its length in bytes."""
        head = self.line()
        if head is None:
            return None
        first, at = head
        if first[:1] == b"$":
            size = int(first[1:])
            if size < 0:
                return ("bulk", None), at
            if len(self.buf) < at + size + 2:
                return None
            return ("bulk", self.buf[at:at + size]), at + size + 2
        if first[:1] == b":":
            return ("int", first[1:]), at
        return ("line", first), at

    def take(self, n):
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


class Relay(threading.Thread):
    """Between the replica and the master: passes every byte on, and notes
    each message before it does, so a reply is never noted before what it
    answers."""

    def __init__(self, cap, listen_port, master_port, replica_port):
        super().__init__(daemon=True)
        self.cap, self.master_port, self.replica_port = cap, master_port, replica_port
        self.server = socket.create_server(("127.0.0.1", listen_port))
        self.up, self.down = Reader(), Reader()  # replica -> master, master -> replica
        self.phase = "replies"  # then "snapshot", then "stream"
        self.offset = None  # the stream's offset, from +FULLRESYNC on
        self.acked = -1  # the replica's last REPLCONF ACK
        self.synced = threading.Event()
        self.error = None
        self.stopping = False
        self.start()

    def run(self):
        try:
            self.server.settimeout(10)
            replica, _ = self.server.accept()
            master = socket.create_connection(("127.0.0.1", self.master_port))
            sel = selectors.DefaultSelector()
            sel.register(replica, selectors.EVENT_READ, (replica, master, self.from_replica))
            sel.register(master, selectors.EVENT_READ, (master, replica, self.from_master))
            while not self.stopping:
                for key, _ in sel.select(0.1):
                    src, dst, note = key.data
                    data = src.recv(65536)
                    if not data:
                        return
                    note(data)
                    dst.sendall(data)
        except (OSError, ValueError) as e:
            if not self.stopping:
                self.error = str(e)
        finally:
            self.server.close()

    def from_replica(self, data):
        self.up.buf += data
        while (got := self.up.command()) is not None:
            words, n = got
            self.up.take(n)
            if len(words) == 3 and words[0].upper() == "REPLCONF" and words[1].upper() == "ACK":
                self.acked = int(words[2])  # placed by wait_caught_up()
                continue
            if len(words) == 3 and words[1] == "listening-port":
                words[2] = "<port>" if words[2] == str(self.replica_port) else words[2]
            self.cap.link("replica -> master: " + self.cap.text(words))

    def from_master(self, data):
        self.down.buf += data
        while self.down.buf:
            if self.phase == "replies":
                got = self.down.line()
                if got is None:
                    return
                line = self.down.take(got[1])[:-2].decode()
                m = re.match(r"^\+FULLRESYNC ([0-9a-f]{40}) ([0-9]+)$", line)
                if m:
                    line = "+FULLRESYNC <replid> " + m.group(2)
                    self.offset, self.phase = int(m.group(2)), "snapshot"
                self.cap.link("master -> replica: " + line)
            elif self.phase == "snapshot":
                if self.down.buf.startswith(b"\n"):
                    self.down.take(1)  # "still here", while the snapshot is made
                    continue
                got = self.down.line()
                if got is None or not got[0].startswith(b"$"):
                    if got is not None:
                        raise ValueError("expected $<len>, got %r" % got[0][:40])
                    return
                size = int(got[0][1:])
                if len(self.down.buf) < got[1] + size:
                    return
                self.down.take(got[1])
                rdb = self.down.take(size)
                if not rdb.startswith(b"REDIS"):
                    raise ValueError("the snapshot does not start with REDIS: %r" % rdb[:9])
                self.cap.link("master -> replica: $%d" % size)
                self.cap.link("master -> replica: <snapshot: %d bytes, %s ... %02X and 8 bytes "
                              "of checksum>" % (size, rdb[:9].decode(), rdb[-9]))
                self.phase = "stream"
                self.synced.set()
            else:
                got = self.down.command()
                if got is None:
                    return
                words, n = got
                self.down.take(n)
                self.offset += n
                self.cap.link("master -> replica: " + self.cap.text(words))

    def wait_caught_up(self, since=None):
        """Wait until the stream has grown past offset `since` (when given:
        a write on its way), and the replica acknowledges all of it; note
        that ACK after what the link carried before it. Returns the offset."""
        deadline = time.monotonic() + CATCH_UP_S
        while self.acked != self.offset or (since is not None and self.offset <= since):
            if self.error or time.monotonic() > deadline:
                raise RuntimeError("the replica did not acknowledge offset %s in %d s "
                                   "(last ACK %d)%s" % (self.offset, CATCH_UP_S, self.acked,
                                                        ": " + self.error if self.error else ""))
            time.sleep(0.01)
        self.cap.add("replica -> master: REPLCONF ACK %d" % self.acked)
        return self.acked


class Client:
    """A client of one server, whose every command and reply is noted."""

    def __init__(self, cap, name, port):
        self.cap, self.name = cap, name
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.reader = Reader()

    def run(self, *words):
        self.cap.add("client -> %s: %s" % (self.name, self.cap.text(words)))
        out = b"*%d\r\n" % len(words)
        for w in words:
            out += b"$%d\r\n%s\r\n" % (len(w), w.encode())
        self.sock.sendall(out)
        while (got := self.reader.reply()) is None:
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("%s closed the connection" % self.name)
            self.reader.buf += data
        self.reader.take(got[1])
        self.cap.add("%s -> client: %s" % (self.name, reply_text(got[0], self.cap)), flush=False)
        return got[0]


def wait_answering(port, proc, what):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("%s exited at start (status %d)" % (what, proc.returncode))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("%s does not answer on port %d" % (what, port))


def redis_version():
    try:
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return None
    m = re.search(r"v=([0-9.]+)", out)
    return m.group(1) if m else None


def exchange(cap, relay, master_port, replica_port):
    """What the capture holds after the handshake: the key's life. Active
    expiry is off on the master, so that the key stays past its deadline
    until a command names it there (the wheel would delete it within a
    tick, and the replica would have no time to show it hidden)."""
    if not relay.synced.wait(10):
        raise RuntimeError("the replica never got its snapshot: %s" % (relay.error or "no error"))
    time.sleep(FIRST_CRON_S)  # the PING of the master's first cron comes in this time
    offset = relay.wait_caught_up()
    on_master, on_replica = Client(cap, "master", master_port), Client(cap, "replica", replica_port)
    on_master.run("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    on_master.run("SET", "k", "v", "PX", str(TTL_MS))
    offset = relay.wait_caught_up(since=offset)
    on_replica.run("GET", "k")
    deadline_ms = int(on_replica.run("PEXPIRETIME", "k")[1])
    on_master.run("PEXPIRETIME", "k")
    on_replica.run("DBSIZE")
    if time.time() * 1000 > deadline_ms - 200:
        raise RuntimeError("too slow: the key's deadline came while it was read as alive")
    time.sleep(max(0, deadline_ms + 200 - time.time() * 1000) / 1000)
    cap.add("wait: until %s is past, on both clocks" % cap.word(str(deadline_ms)))
    on_replica.run("GET", "k")
    on_replica.run("TTL", "k")
    on_replica.run("DBSIZE")
    on_master.run("DBSIZE")
    on_master.run("GET", "k")
    relay.wait_caught_up(since=offset)
    on_replica.run("DBSIZE")
    on_master.run("DBSIZE")


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def record(server_path, cap):
    master_port, relay_port, replica_port = free_port(), free_port(), free_port()
    work = tempfile.mkdtemp(prefix="record_replication.")
    started = []
    try:
        os.mkdir(work + "/master")
        with open(work + "/master.log", "w") as log:
            master = subprocess.Popen([server_path, "--port", str(master_port), "--dir",
                                       work + "/master", "--save", "",
                                       "--repl-ping-replica-period", "60"],
                                      stdout=subprocess.DEVNULL, stderr=log)
        started.append(master)
        wait_answering(master_port, master, "step 09's master")
        relay = Relay(cap, relay_port, master_port, replica_port)
        replica = subprocess.Popen(["redis-server", "--port", str(replica_port), "--dir", work,
                                    "--save", "", "--appendonly", "no", "--replicaof", "127.0.0.1",
                                    str(relay_port), "--logfile", work + "/replica.log"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(replica)
        wait_answering(replica_port, replica, "the redis-server replica")
        exchange(cap, relay, master_port, replica_port)
        relay.stopping = True
        cap.flush()
    finally:
        for proc in reversed(started):
            stop(proc)
        shutil.rmtree(work, ignore_errors=True)


HEADER = """\
# 09-replication-capture.txt -- chapter 09's exchange as it went over the
# wire: redis-server %s syncing as a replica of step 09's master
# (build/09-replication/server --repl-ping-replica-period 60, so that no
# periodic PING comes in the middle), then a key with a TTL on both.
# Recorded by tests/tools/record_replication.py (make pictures): do not
# edit. Drawn by tests/tools/draw_replication.py into
# docs/img/09-handshake.dot and docs/img/09-key-life.dot.
#
# One message a line, FROM -> TO: MESSAGE, in the order they went by;
# "client" is a client of the server it names. Normalised: the replication
# id as <replid>, the replica's port as <port>, each Unix time in ms as
# <msN> (one time, one name). Offsets and lengths are as they were. Left
# out: the bare "\\n" keep-alives, and the replica's REPLCONF ACKs but one
# at each point where the recorder waited for it to have applied the whole
# stream. A client's command and its reply are one step; what the link
# carried meanwhile follows them.
"""


def main():
    if len(sys.argv) != 3:
        print("usage: record_replication.py SERVER OUT", file=sys.stderr)
        return 1
    version = redis_version()
    if version != REDIS_VERSION:
        print("record_replication.py: kept %s: recording needs redis-server %s, found %s"
              % (sys.argv[2], REDIS_VERSION, version or "none"), file=sys.stderr)
        return 2
    cap = Capture()
    try:
        record(sys.argv[1], cap)
    except (OSError, RuntimeError, ValueError) as e:
        print("record_replication.py: %s" % e, file=sys.stderr)
        return 1
    with open(sys.argv[2], "w") as f:
        f.write(HEADER % REDIS_VERSION)
        f.write("".join(line + "\n" for line in cap.lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
