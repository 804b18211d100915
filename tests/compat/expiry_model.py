#!/usr/bin/python3
"""expiry_model.py -- no key is returned after its deadline, and none is
deleted before it: a randomized check against a model.

    tests/compat/expiry_model.py SERVER_BINARY [OPS] [SEED]

    SERVER_BINARY   a step's server (steps 04..07: build/NN-name/server), or
                    redis-server (to check the model itself)
    OPS             commands to check (default 5000)
    SEED            random seed (default: random; printed)

One server is started on a free port. A single client sends a random mix of
writes (SET, SET PX/EX, DEL), TTL changes (EXPIRE, PEXPIRE, PEXPIREAT,
PERSIST, SET PX over an old TTL) and reads (GET, EXISTS, TTL, PTTL) over 16
keys with short TTLs (20 to 300 ms), pausing now and then so that deadlines
pass between, and right around, the commands.

==== The model ====

For every key the script knows its value (or that it is absent) and, if it
has a TTL, a window [lo, hi] of Unix milliseconds that holds the server's
deadline D. Every command is timed: t0 just before it is sent, t1 when its
reply has arrived, so the server ran it at some time s with t0 <= s <= t1.
A TTL set with PX n at s has D = s + n, so lo = t0 + n - 1 and hi = t1 + n
(the server's clock is whole milliseconds, hence the -1); PEXPIREAT fixes D
exactly; a PTTL or TTL reply narrows the window.

The server counts a key as expired once its whole-millisecond clock is past
D, i.e. from real time D + 1 on. So for a reply about a key with a TTL:
  - the value (or 1 from EXISTS, DEL, PERSIST, EXPIRE; or a TTL >= 0) says
    the key was alive at s >= t0: a violation if t0 >= hi + 1 + MARGIN_MS
    ("returned after its deadline");
  - nil (or 0, or -2) says it was gone at s <= t1: a violation if
    t1 < lo + 1 - MARGIN_MS ("deleted before its deadline").
For a key without a TTL every reply must match the model exactly: a missing
key that comes back, a persistent key that vanishes, a wrong value, or a
TTL that appears or disappears are violations too. MARGIN_MS (2 ms) covers
the clocks' granularity, nothing else.

Prints "N operations checked, M violations", how many replies were about a
key within 50 ms of its deadline (so the test did probe the edge), and the
first violations with the key's recent history. Exits 1 on any violation.
"""
import atexit
import os
import random
import shutil
import socket
import subprocess
import tempfile
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from ports import free_port  # noqa: E402  (the port policy of every test)

MARGIN_MS = float(os.environ.get("EXPIRY_MARGIN_MS", "2"))  # negative: self-test
KEYS = [b"m%d" % i for i in range(16)]
MAX_SHOWN = 5


# ==== RESP over a raw socket ====

def encode(args):
    return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed by the server")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def reply(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            return Exception(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("connection closed by the server")
                self.buf += chunk
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        raise ValueError("unexpected reply %r" % line)

    def timed(self, *args):
        """Send one command; return (reply, t0, t1) in Unix ms."""
        args = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        t0 = time.time() * 1000.0
        self.sock.sendall(encode(args))
        r = self.reply()
        t1 = time.time() * 1000.0
        return r, t0, t1


def start_server(binary):
    port = free_port()
    cmd = [binary, "--port", str(port)]
    if os.path.basename(binary) == "redis-server":
        cmd += ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--databases", "1"]
    # In a directory of its own, where a snapshot saved on exit (chapter 08
    # on) stays out of every other run's way; a relative path is resolved
    # from here first (a bare name, redis-server, is found on PATH).
    # The directory goes when this script ends, after its server.
    if os.sep in binary:
        cmd[0] = os.path.abspath(binary)
    where = tempfile.mkdtemp(prefix="expiry-model-")
    atexit.register(shutil.rmtree, where, True)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=where)
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit("%s exited at start-up" % binary)
        try:
            c = Conn(port)
            if c.timed(b"PING")[0] == "PONG":
                return proc, c
        except OSError:
            pass
        time.sleep(0.05)
    proc.kill()
    sys.exit("%s did not answer on port %d" % (binary, port))


# ==== The model ====

class Key:
    __slots__ = ("value", "lo", "hi", "history")

    def __init__(self):
        self.value = None  # bytes, or None: absent
        self.lo = self.hi = None  # the deadline window, or None: no TTL
        self.history = []

    def has_ttl(self):
        return self.lo is not None

    def set(self, value, lo=None, hi=None):
        self.value, self.lo, self.hi = value, lo, hi

    def gone(self):
        self.set(None)


class Checker:
    def __init__(self):
        self.keys = {k: Key() for k in KEYS}
        self.violations = []
        self.checked = 0
        self.near_deadline = 0  # replies about a key within 50 ms of its deadline
        self.saw_expired = 0  # replies that found a TTL key gone
        self.saw_alive_late = 0  # alive replies within 10 ms before the window's end

    def violation(self, k, what, t0, t1):
        key = self.keys[k]
        self.violations.append((k, what, t0, t1, list(key.history[-8:])))

    # --- what a reply says about the key ---

    def alive(self, k, t0, t1, what):
        """The reply says k existed when the command ran."""
        key = self.keys[k]
        if key.value is None:
            self.violation(k, "%s: the key is absent, but the reply says it exists" % what, t0, t1)
            return False
        if key.has_ttl():
            if abs(t0 - key.hi) < 50 or abs(t1 - key.lo) < 50:
                self.near_deadline += 1
            if t0 >= key.hi + 1 + MARGIN_MS:
                self.violation(k, "%s: returned %.1f ms after its deadline (window %.1f..%.1f)"
                               % (what, t0 - key.hi, key.lo, key.hi), t0, t1)
                return False
            if key.hi - t0 < 10:
                self.saw_alive_late += 1
        return True

    def absent(self, k, t0, t1, what):
        """The reply says k did not exist when the command ran."""
        key = self.keys[k]
        if key.value is None:
            return True
        if not key.has_ttl():
            self.violation(k, "%s: a key without TTL has vanished" % what, t0, t1)
            key.gone()
            return False
        if abs(t0 - key.hi) < 50 or abs(t1 - key.lo) < 50:
            self.near_deadline += 1
        ok = True
        if t1 < key.lo + 1 - MARGIN_MS:
            self.violation(k, "%s: deleted %.1f ms before its deadline (window %.1f..%.1f)"
                           % (what, key.lo - t1, key.lo, key.hi), t0, t1)
            ok = False
        self.saw_expired += 1
        key.gone()
        return ok

    def narrow(self, k, lo, hi, t0, t1, what):
        """A TTL reply says D is in [lo, hi]: intersect with the model."""
        key = self.keys[k]
        if not key.has_ttl():
            self.violation(k, "%s: the key has no TTL, but the reply gives one" % what, t0, t1)
            key.lo, key.hi = lo, hi
            return
        nlo, nhi = max(key.lo, lo), min(key.hi, hi)
        if nlo > nhi + MARGIN_MS:
            self.violation(k, "%s: TTL says the deadline is in %.1f..%.1f, the model %.1f..%.1f"
                           % (what, lo, hi, key.lo, key.hi), t0, t1)
            key.lo, key.hi = lo, hi
        elif nlo <= nhi:
            key.lo, key.hi = nlo, nhi

    # --- the commands ---

    def run(self, conn, rng):
        k = rng.choice(KEYS)
        key = self.keys[k]
        r = rng.random()
        v = b"v%d" % rng.randrange(10 ** 6)
        if r < 0.10:
            rep, t0, t1 = conn.timed(b"SET", k, v)
            what = "SET"
            if rep == "OK":
                key.set(v)
        elif r < 0.30:
            n = rng.randrange(20, 301)
            rep, t0, t1 = conn.timed(b"SET", k, v, b"PX", n)
            what = "SET PX %d" % n
            if rep == "OK":
                key.set(v, t0 + n - 1, t1 + n)
        elif r < 0.32:
            rep, t0, t1 = conn.timed(b"SET", k, v, b"EX", 1)
            what = "SET EX 1"
            if rep == "OK":
                key.set(v, t0 + 999, t1 + 1000)
        elif r < 0.45:
            n = rng.choice([rng.randrange(20, 301), rng.randrange(20, 301), 0, -1])
            rep, t0, t1 = conn.timed(b"PEXPIRE", k, n)
            what = "PEXPIRE %d" % n
            if rep == 1:
                if self.alive(k, t0, t1, what):
                    if n <= 0:
                        key.gone()
                    else:
                        key.lo, key.hi = t0 + n - 1, t1 + n
            elif rep == 0:
                self.absent(k, t0, t1, what)
        elif r < 0.48:
            rep, t0, t1 = conn.timed(b"EXPIRE", k, 1)
            what = "EXPIRE 1"
            if rep == 1:
                if self.alive(k, t0, t1, what):
                    key.lo, key.hi = t0 + 999, t1 + 1000
            elif rep == 0:
                self.absent(k, t0, t1, what)
        elif r < 0.53:
            at = int(time.time() * 1000) + rng.randrange(-20, 300)
            rep, t0, t1 = conn.timed(b"PEXPIREAT", k, at)
            what = "PEXPIREAT now%+d" % (at - t0)
            if rep == 1:
                if self.alive(k, t0, t1, what):
                    # A time already past deletes the key (at <= s).
                    if at < t0 - 1:
                        key.gone()
                    else:  # D = at; if at <= s the server deleted it at once,
                        key.lo = key.hi = at  # and later replies, after s, see it gone
            elif rep == 0:
                self.absent(k, t0, t1, what)
        elif r < 0.58:
            rep, t0, t1 = conn.timed(b"PERSIST", k)
            what = "PERSIST"
            if rep == 1:
                if not key.has_ttl() and key.value is not None:
                    self.violation(k, "PERSIST: answered 1 for a key without TTL", t0, t1)
                elif self.alive(k, t0, t1, what):
                    key.lo = key.hi = None
            elif rep == 0:
                if key.has_ttl():
                    # It had a TTL, so 0 means it was gone.
                    self.absent(k, t0, t1, what)
        elif r < 0.63:
            rep, t0, t1 = conn.timed(b"DEL", k)
            what = "DEL"
            if rep == 1:
                self.alive(k, t0, t1, what)
            elif rep == 0:
                self.absent(k, t0, t1, what)
            key.gone()
        elif r < 0.83:
            rep, t0, t1 = conn.timed(b"GET", k)
            what = "GET"
            if rep is None:
                self.absent(k, t0, t1, what)
            elif isinstance(rep, bytes):
                if self.alive(k, t0, t1, what) and rep != key.value:
                    self.violation(k, "GET: value %r, expected %r" % (rep[:20], key.value[:20]), t0, t1)
        elif r < 0.88:
            rep, t0, t1 = conn.timed(b"EXISTS", k)
            what = "EXISTS"
            if rep == 1:
                self.alive(k, t0, t1, what)
            elif rep == 0:
                self.absent(k, t0, t1, what)
        else:
            cmd = rng.choice([b"PTTL", b"PTTL", b"TTL"])
            rep, t0, t1 = conn.timed(cmd, k)
            what = cmd.decode()
            if rep == -2:
                self.absent(k, t0, t1, what)
            elif rep == -1:
                if key.value is None:
                    self.violation(k, "%s: -1 for an absent key" % what, t0, t1)
                elif key.has_ttl():
                    self.violation(k, "%s: -1, but the key has a TTL" % what, t0, t1)
            elif isinstance(rep, int):
                if self.alive(k, t0, t1, what):
                    if cmd == b"PTTL":  # D = s + rep, s a whole ms in [t0 - 1, t1]
                        self.narrow(k, t0 - 1 + rep, t1 + rep, t0, t1, what)
                    else:  # rounded to the nearest second
                        self.narrow(k, t0 - 1 + rep * 1000 - 500, t1 + rep * 1000 + 500, t0, t1, what)
        if isinstance(rep, Exception):
            self.violation(k, "%s: error reply %s" % (what, rep), t0, t1)
        self.checked += 1
        key.history.append("%.1f..%.1f %s -> %r" % (t0, t1, what, rep))
        del key.history[:-8]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    binary = sys.argv[1]
    ops = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else random.randrange(1 << 30)
    rng = random.Random(seed)
    proc, conn = start_server(binary)
    print("expiry model: %s, %d ops, seed %d" % (binary, ops, seed))
    sys.stdout.flush()
    checker = Checker()
    start = time.time()
    try:
        conn.timed(b"FLUSHALL")
        for _ in range(ops):
            checker.run(conn, rng)
            if rng.random() < 0.1:  # let deadlines pass between commands
                time.sleep(rng.randrange(1, 60) / 1000.0)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print("%d operations checked, %d violations (%.1f s; %d replies within 50 ms of a deadline, "
          "%d found a TTL key expired, %d found one alive in its last 10 ms)"
          % (checker.checked, len(checker.violations), time.time() - start, checker.near_deadline,
             checker.saw_expired, checker.saw_alive_late))
    for i, (k, what, t0, t1, hist) in enumerate(checker.violations[:MAX_SHOWN]):
        print("--- violation %d, key %s: %s (sent %.1f, reply %.1f)" % (i + 1, k.decode(), what, t0, t1))
        for h in hist:
            print("    " + h)
    if proc.returncode not in (0, -15):
        print("the server exited with status %s" % proc.returncode)
        sys.exit(1)
    sys.exit(1 if checker.violations else 0)


if __name__ == "__main__":
    main()
