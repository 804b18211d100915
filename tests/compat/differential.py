#!/usr/bin/python3
"""differential.py -- send the same random commands to a step's server and to
a real redis-server, in lockstep, and compare every reply.

    tests/compat/differential.py STEP SERVER_BINARY [OPS] [SEED]

    STEP            01..07 (or 04-expiry-lazy): which commands to send
    SERVER_BINARY   the step's server (build/NN-name/server), or any server
                    that takes --port N
    OPS             operations to compare (default 2000)
    SEED            random seed (default: random; printed, so a run repeats)

Environment: REDIS_SERVER (default redis-server), DIFF_VERBOSE=1 prints every
operation.

Both servers are started on free ports (Redis with --save '' --appendonly no
--databases 1 --enable-debug-command yes), the keyspace is small (12 keys)
so commands collide, and each command goes to ours, then to Redis, before
the next one is sent. The commands are those of the step and the steps
before it:
    01  PING, ECHO, unknown commands, wrong arity, raw requests (inline,
        quoting, blank lines, *0) and protocol errors on fresh connections
    02  + GET, SET, DBSIZE, FLUSHALL
    03  + DEL, EXISTS (variadic, repeated keys)
    04  + EXPIRE PEXPIRE EXPIREAT PEXPIREAT with NX XX GT LT and bad values,
        TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST, SET EX/PX good and bad
    05, 06  the same commands (the chapters change when keys are deleted,
        which replies must never show)
    07  + SET's NX XX GET KEEPTTL EXAT PXAT in any order (the options Redis
        7.0 and this server both know)

Prints "N operations compared, M mismatches", then the first mismatches with
the commands that led to each, and exits 1 if there was any.

==== Relaxations, and why each is needed ====

Both servers run on the same machine and the same clock, but a command
reaches them a fraction of a millisecond apart, so anything that depends on
the exact millisecond is allowed to differ by that much and no more:
  - TTL and EXPIRETIME may differ by 1 (second), PTTL and PEXPIRETIME by
    1000 ms: a relative TTL is fixed when each server receives the command,
    and TTL rounds to the nearest second, so two correct servers can be one
    unit apart. The sign and the special values (-1 no TTL, -2 no key) must
    match exactly.
  - No command is sent near a key's deadline: the script keeps each key's
    approximate deadline (from the commands and Redis's replies), and before
    a command that touches a key due within GUARD_MS it sleeps until the key
    is GUARD_MS past due. Otherwise a key could expire between the two sends
    and both servers be right. These are the only sleeps.
  - A TTL-setting command whose result depends on the exact millisecond
    (GT/LT against a deadline within GUARD_MS, or an absolute time within
    GUARD_MS of now) is not sent; another operation is drawn.
  - DBSIZE is compared only when no key has a TTL (for instance right after
    FLUSHALL): a key that has expired but was not touched is still counted
    by step 04 (lazy expiry only), counted for a while by step 05 and Redis
    (sampling), and not by step 06 (the wheel). Which is the lesson of those
    chapters, not a bug. When keys have TTLs, DBSIZE is not sent.
Nothing else is relaxed: every other reply, error text included, must be
byte for byte Redis's.
"""
import atexit
import os
import random
import select
import shutil
import socket
import subprocess
import tempfile
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from resp_client import Conn  # noqa: E402  (the RESP reader the differential tests share)
from ports import free_port  # noqa: E402  (the port policy of every test)

KEYS = [b"k%d" % i for i in range(12)]
GUARD_MS = 30
KNOWN = {"PING", "ECHO", "GET", "SET", "DBSIZE", "FLUSHALL", "FLUSHDB", "DEL", "EXISTS", "EXPIRE",
         "PEXPIRE", "EXPIREAT", "PEXPIREAT", "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "PERSIST"}
MAX_SHOWN = 5


# ==== RESP ====

def raw_exchange(port, data, timeout=2.0):
    """Send raw bytes on a fresh connection; read until the server closes it.
    Returns (bytes received, closed?)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(data)
    got, closed = b"", False
    deadline = time.time() + timeout
    while time.time() < deadline:
        r, _, _ = select.select([s], [], [], deadline - time.time())
        if not r:
            break
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        got += chunk
    s.close()
    return got, closed


# ==== Starting the servers ====

def wait_ready(port, proc, what):
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit("%s exited at start-up (status %s)" % (what, proc.returncode))
        try:
            c = Conn(port)
            if c.call([b"PING"]) == ("+", b"PONG"):
                c.close()
                return
            c.close()
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit("%s did not answer PING on port %d" % (what, port))


def start(cmd, port, what):
    # In a directory of its own: a server that saves a snapshot on exit
    # (chapter 08 on) leaves it there, where no other run loads it. A
    # relative path (build/08-snapshot/server) is resolved from here first;
    # a bare name (redis-server) is found on PATH.
    # The directory goes when this script ends, after its servers.
    if os.sep in cmd[0]:
        cmd = [os.path.abspath(cmd[0])] + cmd[1:]
    where = tempfile.mkdtemp(prefix="differential-")
    atexit.register(shutil.rmtree, where, True)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=where)
    wait_ready(port, proc, what)
    return proc


# ==== The model: what the script knows of each key, from Redis's replies ====

class Model:
    def __init__(self):
        self.deadline = {}  # key -> approximate deadline, local time in ms (keys with a TTL)
        self.exists = set()  # keys that exist, as far as we know
        self.resync = set()  # keys whose state the last reply did not tell
        # A TTL was set since the last FLUSHALL: a key may have expired
        # untouched, which an active expirer (Redis, steps 05+) deletes and a
        # lazy one (step 04) keeps, so DBSIZE is not comparable until a flush.
        self.ttl_since_flush = False

    def now(self):
        return time.time() * 1000.0

    def any_ttl(self):
        return bool(self.deadline) or self.ttl_since_flush

    def guard(self, keys):
        """Sleep until no key in keys is within GUARD_MS of its deadline."""
        wait_until = 0.0
        now = self.now()
        for k in keys:
            d = self.deadline.get(k)
            if d is not None and d - GUARD_MS < now < d + GUARD_MS:
                wait_until = max(wait_until, d + GUARD_MS)
        if wait_until > now:
            time.sleep((wait_until - now) / 1000.0)
        # A key past its deadline that a command touches is deleted by
        # both servers on access (lazy expiry), so forget it.
        now = self.now()
        for k in keys:
            d = self.deadline.get(k)
            if d is not None and now > d:
                del self.deadline[k]
                self.exists.discard(k)

    def forget(self, k):
        self.deadline.pop(k, None)
        self.exists.discard(k)

    def set_ttl(self, k, deadline_ms):
        self.ttl_since_flush = True
        if deadline_ms <= self.now():
            self.forget(k)
        else:
            self.deadline[k] = deadline_ms
            self.exists.add(k)


# ==== The operations ====

def step_number(step):
    s = step.split("-")[0]
    if not s.isdigit():
        sys.exit("STEP must be 01..07 or a step name, not %r" % step)
    return int(s)


def rcase(rng, word):
    """The command name in a random case: commands are case-insensitive."""
    r = rng.random()
    if r < 0.6:
        return word.upper()
    if r < 0.8:
        return word.lower()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)


def rvalue(rng):
    r = rng.random()
    if r < 0.1:
        return b""
    if r < 0.2:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
    if r < 0.25:
        return b"x" * rng.randrange(100, 5000)
    return b"v%d" % rng.randrange(1000)


RAW_CASES = [
    # (bytes, description). QUIT at the end makes a well-formed exchange end
    # with a close, so both sides can be read to the end.
    (b"PING\r\nQUIT\r\n", "inline PING"),
    (b"ECHO 'a b' \"c\\x41\\n\"\r\nQUIT\r\n", "inline quoting"),
    (b"\r\n\r\n  \r\nPING\r\nQUIT\r\n", "blank lines"),
    (b"*0\r\n*-1\r\nPING\r\nQUIT\r\n", "empty multibulk"),
    (b"PING\nECHO x\nQUIT\n", "LF-only lines"),
    (b"*1\r\n$abc\r\n", "invalid bulk length"),
    (b"*abc\r\n", "invalid multibulk length"),
    (b"*1\r\n+PING\r\n", "expected $"),
    (b"ECHO \"abc\r\n", "unbalanced double quote"),
    (b"ECHO 'abc\r\n", "unbalanced single quote"),
    (b"ECHO \"a\"b\r\n", "closing quote then a character"),
    (b"*1\r\n$536870913\r\n", "bulk over 512 MB"),
    (b"*1\r\n$-1\r\n", "negative bulk length"),
    (b"*2147483648\r\n", "multibulk count over INT_MAX"),
    (b"*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n*1\r\n$x\r\n", "a command then a protocol error"),
]


def gen_op(rng, level, model):
    """One operation: ("cmd", args, keys touched) or ("raw", bytes, desc)."""
    choices = [("ping", 3), ("echo", 2), ("unknown", 1), ("arity1", 1), ("raw", 1)]
    if level >= 2:
        choices += [("get", 8), ("set", 10), ("dbsize", 2), ("flushall", 1), ("arity2", 1)]
    if level >= 3:
        choices += [("del", 4), ("exists", 4)]
    if level >= 4:
        choices += [("expire", 10), ("ttl", 6), ("persist", 2), ("set_ttl", 8), ("expire_bad", 2),
                    ("wait", 1.5)]
    if level >= 7:
        choices += [("set_opts", 8)]
    total = sum(w for _, w in choices)
    r = rng.random() * total
    for name, w in choices:
        r -= w
        if r <= 0:
            break
    k = rng.choice(KEYS)

    if name == "ping":
        return ("cmd", [rcase(rng, "ping")] + ([rvalue(rng)] if rng.random() < 0.4 else []), [])
    if name == "echo":
        return ("cmd", [rcase(rng, "echo"), rvalue(rng)], [])
    if name == "unknown":
        # A NUL in the name: b"set\x00x" would make a flaky case, since
        # Redis compares command names with strcasecmp(), which stops at the
        # NUL. When the 5-byte name hashes into the bucket of SET (about one
        # Redis process in 256: the hash seed is random), Redis runs SET.
        # Before the NUL, this one names no command at all.
        args = [rng.choice([b"foo", b"GETT", b"hsett", b"x" * 150, b"foo\x00set"])]
        args += [rvalue(rng) for _ in range(rng.randrange(0, 4))]
        return ("cmd", args, [])
    if name == "arity1":
        return ("cmd", rng.choice([[b"ECHO"], [b"ECHO", b"a", b"b"], [b"PING", b"a", b"b"]]), [])
    if name == "wait":
        # Let short TTLs run out, so that commands meet expired keys. Not
        # an operation: nothing is compared.
        return ("wait", rng.randrange(20, 250) / 1000.0)
    if name == "raw":
        data, desc = rng.choice(RAW_CASES)
        return ("raw", data, desc)
    if name == "get":
        return ("cmd", [rcase(rng, "get"), k], [k])
    if name == "set":
        return ("cmd", [rcase(rng, "set"), k, rvalue(rng)], [k])
    if name == "dbsize":
        if model.any_ttl():
            return None  # not comparable now: see the header
        return ("cmd", [rcase(rng, "dbsize")], [])
    if name == "flushall":
        return ("cmd", [rng.choice(["FLUSHALL", "flushall", "FLUSHDB"])]
                + rng.choice([[], [], ["ASYNC"], ["SYNC"], ["bad"]]), list(KEYS))
    if name == "arity2":
        return ("cmd", rng.choice([[b"GET"], [b"GET", k, k], [b"SET", k], [b"DBSIZE", b"x"]]), [k])
    if name in ("del", "exists"):
        ks = [rng.choice(KEYS) for _ in range(rng.randrange(1, 5))]
        if rng.random() < 0.05:
            return ("cmd", [name.upper()], [])
        return ("cmd", [rcase(rng, name)] + ks, ks)
    if name == "ttl":
        cmd = rng.choice(["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "ttl", "pttl"])
        return ("cmd", [cmd, k], [k])
    if name == "persist":
        return ("cmd", [rcase(rng, "persist"), k], [k])
    if name == "expire":
        return gen_expire(rng, k, model)
    if name == "expire_bad":
        cmd = rng.choice(["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"])
        bad = rng.choice([
            [k, "abc"], [k, "1.5"], [k, ""], [k, "9223372036854775807"],
            [k, "-9223372036854775808"], [k, "9223372036854775"], [k, "100", "NX", "XX"],
            [k, "100", "GT", "LT"], [k, "100", "NX", "GT"], [k, "100", "FOO"], [k, "100", "nx", "nx"],
            [k], [k, "abc", "FOO"], [k, "100", "xx", "lt", "bar"],
        ])
        return ("cmd", [cmd] + bad, [k])
    if name == "set_ttl":
        return gen_set_ttl(rng, k, model)
    if name == "set_opts":
        return gen_set_opts(rng, k, model)
    raise AssertionError(name)


def ttl_ms_choice(rng):
    return rng.choice([rng.randrange(50, 500), rng.randrange(50, 500), rng.randrange(1000, 100000)])


def gen_expire(rng, k, model):
    """EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT with a good value and maybe flags,
    unless its outcome depends on the exact millisecond."""
    cmd = rng.choice(["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"])
    now = model.now()
    r = rng.random()
    if cmd == "EXPIRE":
        n = rng.choice([0, -1, -100, 1, 100, 1000, 100000]) if r < 0.5 else rng.randrange(1, 300)
        when = now + n * 1000
    elif cmd == "PEXPIRE":
        n = rng.choice([0, -5, ttl_ms_choice(rng)])
        when = now + n
    elif cmd == "EXPIREAT":
        n = int(now // 1000) + rng.choice([-100, -1, 0, 1, 2, 100, 10000])
        if rng.random() < 0.1:
            n = rng.choice([0, 1, -1])
        when = n * 1000
    else:
        n = int(now) + rng.choice([-1000, -1, 50, 200, ttl_ms_choice(rng), 10 ** 7])
        if rng.random() < 0.1:
            n = rng.choice([0, 1, -1])
        when = n
    flags = rng.choice([[], [], [], ["NX"], ["XX"], ["GT"], ["LT"], ["XX", "GT"], ["XX", "LT"],
                        ["gt"], ["nx"]])
    # Decided by the millisecond: deleting now or not, or GT/LT against a
    # deadline as close.
    if abs(when - now) < GUARD_MS * 2:
        return None
    d = model.deadline.get(k)
    if d is not None and abs(when - d) < GUARD_MS * 2 and any(f.upper() in ("GT", "LT") for f in flags):
        return None
    return ("cmd", [rcase(rng, cmd.lower()) if rng.random() < 0.2 else cmd, k, str(n)] + flags, [k],
            ("ttl", when))


def gen_set_ttl(rng, k, model):
    r = rng.random()
    if r < 0.35:
        opts = ["PX", str(rng.randrange(50, 500))]
    elif r < 0.5:
        opts = ["EX", str(rng.choice([1, 10, 100]))]
    elif r < 0.6:
        opts = [rng.choice(["px", "Ex", "pX"]), str(rng.randrange(1000, 5000))]
    elif r < 0.7:
        opts = ["EX", "10", "EX", "20"] if rng.random() < 0.5 else ["PX", "100000", "PX", "200000"]
    else:
        opts = rng.choice([
            ["EX"], ["PX"], ["EX", "0"], ["PX", "0"], ["EX", "-1"], ["PX", "-100"], ["EX", "abc"],
            ["PX", "1.5"], ["EX", "9223372036854775807"], ["PX", "9223372036854775807"],
            ["EX", "9223372036854775"], ["EX", "10", "PX", "100"], ["FOO"], ["EX", "10", "FOO"],
            ["EX", ""], ["PX", "100", "EX"],
        ])
    return ("cmd", [rcase(rng, "set"), k, rvalue(rng)] + opts, [k])


def gen_set_opts(rng, k, model):
    """Step 07: SET's options as Redis 7.0 knows them, in any order."""
    parts = []
    cond = rng.choice([None, None, "NX", "XX"])
    if cond:
        parts.append([cond])
    if rng.random() < 0.3:
        parts.append(["GET"])
    exp = rng.choice([None, None, "EX", "PX", "EXAT", "PXAT", "KEEPTTL"])
    now = model.now()
    if exp == "EX":
        parts.append(["EX", str(rng.choice([1, 10, 100]))])
    elif exp == "PX":
        parts.append(["PX", str(rng.randrange(50, 500))])
    elif exp == "EXAT":
        parts.append(["EXAT", str(int(now // 1000) + rng.choice([-10, 5, 100]))])
    elif exp == "PXAT":
        parts.append(["PXAT", str(int(now) + rng.choice([-1000, 200, 100000]))])
    elif exp == "KEEPTTL":
        parts.append(["KEEPTTL"])
    if rng.random() < 0.1:  # a conflict or a repeat: errors and last-wins
        parts.append(rng.choice([["NX"], ["XX"], ["EX", "5"], ["KEEPTTL"], ["GET"], ["PX", "0"]]))
    rng.shuffle(parts)
    opts = [w if rng.random() < 0.8 else w.lower() for p in parts for w in p]
    return ("cmd", ["SET", k, rvalue(rng)] + opts, [k], ("resync",))


# ==== Comparing ====

TTL_TOLERANCE = {b"TTL": 1, b"PTTL": 1000, b"EXPIRETIME": 1, b"PEXPIRETIME": 1000}


def same(args, ours, theirs):
    if ours == theirs:
        return True
    name = (args[0] if isinstance(args[0], bytes) else str(args[0]).encode()).upper()
    tol = TTL_TOLERANCE.get(name)
    if tol and ours[0] == ":" and theirs[0] == ":" and ours[1] >= 0 and theirs[1] >= 0:
        return abs(ours[1] - theirs[1]) <= tol
    return False


def update_model(model, op, reply):
    """Learn from Redis's reply what the keyspace now is."""
    args = [a if isinstance(a, bytes) else str(a).encode() for a in op[1]]
    name = args[0].upper()
    if reply[0] == "-":
        return
    if name in (b"FLUSHALL", b"FLUSHDB"):
        model.deadline.clear()
        model.exists.clear()
        model.ttl_since_flush = False
    elif name == b"SET":
        k = args[1]
        if len(op) > 3 and op[3][0] == "resync":
            # NX, XX, GET, KEEPTTL (step 07): whether it wrote, and what TTL
            # the key kept, is asked next with a PTTL sent to both.
            model.resync.add(k)
            return
        opts = [a.upper() for a in args[3:]]
        when = None
        for i, o in enumerate(opts):  # the last EX/PX wins, as in Redis
            if i + 1 < len(opts) and o in (b"EX", b"PX"):
                n = int(args[3 + i + 1])
                when = model.now() + (n * 1000 if o == b"EX" else n)
        if when is None:
            model.deadline.pop(k, None)
            model.exists.add(k)
        else:
            model.set_ttl(k, when)
    elif name == b"DEL":
        for k in args[1:]:
            model.forget(k)
    elif name == b"GET":
        if reply == ("$", None):
            model.forget(args[1])
        else:
            model.exists.add(args[1])
    elif name == b"PERSIST":
        if reply == (":", 1):
            model.deadline.pop(args[1], None)
    elif name in (b"TTL", b"PTTL"):
        if reply == (":", -2):
            model.forget(args[1])
        elif reply == (":", -1):
            model.deadline.pop(args[1], None)
            model.exists.add(args[1])
        elif name == b"PTTL" and reply[0] == ":":
            model.set_ttl(args[1], model.now() + reply[1])
    elif len(op) > 3 and op[3][0] == "ttl":
        if reply == (":", 1):
            model.set_ttl(args[1], op[3][1])


def fmt_args(args):
    out = []
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        s = repr(a)[2:-1]
        out.append(s if len(s) <= 40 else s[:37] + "...")
    return " ".join(out)


def fmt_reply(r):
    s = repr(r)
    return s if len(s) <= 200 else s[:197] + "..."


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    step, binary = sys.argv[1], sys.argv[2]
    ops = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else random.randrange(1 << 30)
    level = step_number(step)
    redis = os.environ.get("REDIS_SERVER", "redis-server")
    verbose = os.environ.get("DIFF_VERBOSE") == "1"
    rng = random.Random(seed)

    our_port, ref_port = free_port(), free_port()
    while ref_port == our_port:
        ref_port = free_port()
    ours_p = start([binary, "--port", str(our_port)], our_port, binary)
    ref_p = start([redis, "--port", str(ref_port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                   "no", "--databases", "1", "--enable-debug-command", "yes"], ref_port, redis)
    print("differential: step %s, %s (port %d) vs %s (port %d), %d ops, seed %d"
          % (step, binary, our_port, redis, ref_port, ops, seed))
    sys.stdout.flush()

    compared, mismatches, shown = 0, 0, []
    per_command = {}
    history = []  # the last commands, to show what led to a mismatch
    model = Model()
    t_start = time.time()
    try:
        ours, theirs = Conn(our_port), Conn(ref_port)
        for c in (ours, theirs):
            c.call([b"FLUSHALL"])
        while compared < ops:
            if model.resync:
                k = model.resync.pop()
                op = ("cmd", [b"PTTL", k], [k])
            else:
                op = gen_op(rng, level, model)
            if op is None:
                continue
            if op[0] == "wait":
                time.sleep(op[1])
                continue
            if op[0] == "raw":
                a = raw_exchange(our_port, op[1])
                b = raw_exchange(ref_port, op[1])
                label = "raw %r (%s)" % (op[1][:60], op[2])
            else:
                model.guard(op[2])
                args = [x if isinstance(x, bytes) else str(x).encode() for x in op[1]]
                a = ours.call(args)
                b = theirs.call(args)
                label = fmt_args(args)
                update_model(model, op, b)
            compared += 1
            kind = "raw" if op[0] == "raw" else label.split(" ")[0].upper()
            if kind not in KNOWN:
                kind = "unknown-command"
            per_command[kind] = per_command.get(kind, 0) + 1
            history.append((label, a, b))
            history = history[-12:]
            ok = same(op[1], a, b) if op[0] == "cmd" else a == b
            if verbose:
                print("%s %s -> %s" % ("  " if ok else "!!", label, fmt_reply(b)))
            if not ok:
                mismatches += 1
                if len(shown) < MAX_SHOWN:
                    shown.append(list(history))
    finally:
        for p in (ours_p, ref_p):
            p.terminate()
        for p in (ours_p, ref_p):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()

    print("%d operations compared, %d mismatches (step %s, seed %d, %.1f s)"
          % (compared, mismatches, step, seed, time.time() - t_start))
    print("  by command: " + ", ".join("%s %d" % kv for kv in sorted(per_command.items())))
    for i, hist in enumerate(shown):
        print("--- mismatch %d: the commands that led to it, last one differs" % (i + 1))
        for label, a, b in hist[:-1]:
            print("    %s -> %s" % (label, fmt_reply(b)))
        label, a, b = hist[-1]
        print("  > %s" % label)
        print("      ours:  %s" % fmt_reply(a))
        print("      redis: %s" % fmt_reply(b))
    if ours_p.returncode not in (0, None, -15):
        print("our server exited with status %s" % ours_p.returncode)
        mismatches += 1
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
