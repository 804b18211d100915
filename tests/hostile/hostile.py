#!/usr/bin/python3
"""hostile.py -- hostile and unlucky clients for tests/hostile/hostile.bats.

    hostile.py many PORT PID N             N connections at once, each PINGed
    hostile.py fdstarve PORT PID N         N connections to a server short of fds
    hostile.py midcommand PORT PID N       N clients vanish in the middle of a command
    hostile.py bytewise PORT PID           one client sends a byte at a time
    hostile.py bigbulk PORT PID N          N clients declare 500 MB and send 10 bytes
    hostile.py flood PORT PID COUNT        COUNT pipelined PINGs, replies never read
    hostile.py echoflood PORT PID MB       ECHO replies piling up to MB megabytes, unread
    hostile.py inline PORT PID MB          an MB-megabyte inline line
    hostile.py qbufone PORT PID MB         one unfinished argument of 2*MB megabytes
    hostile.py qbufargs PORT PID MB        2*MB one-megabyte arguments, command unfinished
                                           (MB: the server's --client-query-buffer-limit)

Each prints "key=value ..." lines the bats file checks, and exits 0 if the
server did what it must: serve another client throughout, and give back what
the hostile one cost once it is gone (connected_clients back to its value
before, INFO used_memory back within a few KB where the server reports it).
Figures: VmRSS from /proc/PID/status (kB), CPU time from /proc/PID/stat.
Standard library only.
"""
import os
import selectors
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from resp_client import Conn  # noqa: E402  (the RESP client the Python tests share)


# ==== Looking at the server ====

def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def cpu_ticks(pid):
    """utime + stime, in clock ticks."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def info_field(port, name):
    c = Conn(port)
    text = c.call([b"INFO"])[1]
    c.close()
    for line in text.split(b"\r\n") + text.split(b"\n"):
        if line.startswith(name.encode() + b":"):
            return int(line.split(b":", 1)[1].strip())
    return None


def ping_ms(c):
    t = time.time()
    r = c.call([b"PING"])
    assert r == ("+", b"PONG"), r
    return (time.time() - t) * 1000.0


def wait_clients(port, want, timeout=5.0):
    """Wait until INFO connected_clients (this probe included) is want."""
    deadline = time.time() + timeout
    n = None
    while time.time() < deadline:
        n = info_field(port, "connected_clients")
        if n is None or n <= want:
            return n
        time.sleep(0.05)
    return n


def used_memory(port):
    return info_field(port, "used_memory")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def memory_back(port, before, slack=None):
    """used_memory returns to within slack bytes of before (the server's own
    allocation count, so no allocator noise; Redis's moves a little)."""
    if before is None:
        return
    if slack is None:
        slack = int(os.environ.get("HOSTILE_MEM_SLACK", 64 * 1024))
    deadline = time.time() + 3
    after = used_memory(port)
    while after - before > slack and time.time() < deadline:
        time.sleep(0.05)
        after = used_memory(port)
    print("used_memory_before=%d used_memory_after=%d" % (before, after))
    if after - before > slack:
        fail("used_memory grew by %d bytes and stayed" % (after - before))


# ==== The scenarios ====

def many(port, pid, n):
    """n connections open at once; each sends PING and must get PONG."""
    sel = selectors.DefaultSelector()
    socks = []
    t0 = time.time()
    rss0 = rss_kb(pid)
    for i in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
        if i % 500 == 499:  # let the server drain its accept queue (backlog 511)
            time.sleep(0.01)
    pending = {}
    for s in socks:
        sel.register(s, selectors.EVENT_WRITE)
        pending[s.fileno()] = s
    sent = 0
    got = {}
    deadline = time.time() + 40
    while (sent < n or len(got) < n) and time.time() < deadline:
        for key, ev in sel.select(timeout=1.0):
            s = key.fileobj
            if ev & selectors.EVENT_WRITE:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    fail("connection %d failed: %s" % (sent, os.strerror(err)))
                try:
                    s.send(b"*1\r\n$4\r\nPING\r\n")
                except OSError as e:
                    fail("connection %d failed: %s (did the server crash?)" % (sent, e))
                sent += 1
                sel.modify(s, selectors.EVENT_READ)
            else:
                try:
                    data = s.recv(64)
                except OSError as e:
                    fail("a connection failed after %d PONGs: %s (did the server crash?)" % (len(got), e))
                if not data:
                    fail("the server closed a connection after %d PONGs (did it crash?)" % len(got))
                got[s.fileno()] = got.get(s.fileno(), b"") + data
                if got[s.fileno()] == b"+PONG\r\n":
                    sel.unregister(s)
    pongs = sum(1 for v in got.values() if v == b"+PONG\r\n")
    elapsed = time.time() - t0
    held = info_field(port, "connected_clients")  # counts this probe too
    rss1 = rss_kb(pid)
    print("connections=%d pongs=%d connected_clients=%s seconds=%.2f rss_before_kb=%d "
          "rss_held_kb=%d per_connection_bytes=%d"
          % (n, pongs, held, elapsed, rss0, rss1, (rss1 - rss0) * 1024 // max(n, 1)))
    for s in socks:
        s.close()
    left = wait_clients(port, 1, timeout=10)
    print("connected_clients_after=%s" % left)
    if pongs != n:
        fail("%d of %d connections got PONG" % (pongs, n))
    if held is not None and held < n:
        fail("the server held %s connections, not %d" % (held, n))


def fdstarve(port, pid, n):
    """The server runs with a low fd limit: n connections exhaust it. It must
    not spin on accept(), and must serve again once they are gone."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
        except OSError as e:
            print("connect_error=%s" % e)
            break
        socks.append(s)
    time.sleep(0.3)  # let the server hit EMFILE
    t0, c0 = time.time(), cpu_ticks(pid)
    time.sleep(1.0)
    t1, c1 = time.time(), cpu_ticks(pid)
    hz = os.sysconf("SC_CLK_TCK")
    cpu_pct = 100.0 * (c1 - c0) / hz / (t1 - t0)
    alive = os.path.exists("/proc/%d" % pid) and open("/proc/%d/stat" % pid).read().split(")")[1].split()[0] != "Z"
    print("connections=%d cpu_while_idle_pct=%.1f alive=%d" % (len(socks), cpu_pct, alive))
    for s in socks:
        s.close()
    # Served again: the closed ones are accepted (EOF) and freed, and a new
    # client gets PONG.
    deadline = time.time() + 5
    ok = False
    while time.time() < deadline and not ok:
        try:
            c = Conn(port, timeout=1)
            ok = c.call([b"PING"]) == ("+", b"PONG")
            c.close()
        except OSError:
            time.sleep(0.1)
    print("served_after=%d" % ok)
    if not alive:
        fail("the server died")
    if cpu_pct > 20:
        fail("the server used %.0f%% CPU while idle and out of descriptors: it spins" % cpu_pct)
    if not ok:
        fail("the server did not serve again after the connections closed")


def midcommand(port, pid, n):
    """Clients that send part of a command and vanish, some with a reset."""
    mem0 = used_memory(port)
    clients0 = wait_clients(port, 1)
    other = Conn(port)
    partials = [
        b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$100000\r\n" + b"x" * 5000,
        b"*3\r\n$3\r\nSET\r\n$3\r\nk",
        b"*2\r\n$4\r\nECHO\r\n$5\r\nhel",
        b"*2000\r\n" + b"$1\r\na\r\n" * 1000,
        b"SET key \"unfinished",
        b"*1\r",
    ]
    worst = 0.0
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(partials[i % len(partials)])
        if i % 2:  # a reset instead of a FIN
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
        if i % 50 == 0:
            worst = max(worst, ping_ms(other))
    worst = max(worst, ping_ms(other))
    other.close()
    left = wait_clients(port, clients0)
    print("clients=%d other_ping_max_ms=%.1f connected_clients_after=%s" % (n, worst, left))
    if left != clients0:
        fail("connected_clients %s, was %s" % (left, clients0))
    memory_back(port, mem0)


def bytewise(port, pid):
    """A command trickles in one byte at a time while another client is
    served at full speed."""
    mem0 = used_memory(port)
    value = b"v" * 300
    cmd = b"*3\r\n$3\r\nSET\r\n$9\r\nhostile:b\r\n$%d\r\n%s\r\n" % (len(value), value)
    cmd += b"GET hostile:b\r\n"
    slow = socket.create_connection(("127.0.0.1", port))
    slow.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    other = Conn(port)
    worst, served = 0.0, 0
    t0 = time.time()
    for i in range(len(cmd)):
        slow.send(cmd[i:i + 1])
        time.sleep(0.001)
        if i % 5 == 0:
            worst = max(worst, ping_ms(other))
            served += 1
    slow.settimeout(5)
    want = b"+OK\r\n$%d\r\n%s\r\n" % (len(value), value)
    got = b""
    while len(got) < len(want):
        chunk = slow.recv(65536)
        if not chunk:
            break
        got += chunk
    slow.close()
    other.close()
    print("bytes=%d seconds=%.2f other_pings=%d other_ping_max_ms=%.1f reply_ok=%d"
          % (len(cmd), time.time() - t0, served, worst, got == want))
    if got != want:
        fail("reply %r" % got[:80])
    c = Conn(port)
    c.call([b"DEL", b"hostile:b"])
    c.close()
    wait_clients(port, 1)
    memory_back(port, mem0)


def bigbulk(port, pid, n):
    """n clients each declare a 500 MB argument and send 10 bytes of it."""
    mem0 = used_memory(port)
    clients0 = wait_clients(port, 1)
    rss0 = rss_kb(pid)
    socks = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"*3\r\n$3\r\nSET\r\n$9\r\nhostile:%d\r\n$524288000\r\n0123456789" % (i % 10))
        socks.append(s)
    time.sleep(0.5)
    other = Conn(port)
    worst = max(ping_ms(other) for _ in range(20))
    rss1 = rss_kb(pid)
    mem1 = used_memory(port)
    for s in socks:
        s.close()
    other.close()
    left = wait_clients(port, clients0)
    rss2 = rss_kb(pid)
    print("clients=%d declared_mb=%d rss_before_kb=%d rss_held_kb=%d rss_after_kb=%d "
          "used_memory_before=%s used_memory_held=%s other_ping_max_ms=%.1f connected_clients_after=%s"
          % (n, 500 * n, rss0, rss1, rss2, mem0, mem1, worst, left))
    # Redis reserves room for the declared argument (used_memory +512 MB per
    # client) but does not touch it, so its RSS stays put too; this project
    # promises not to allocate at all (HOSTILE_OWN_PROMISES=1).
    if os.environ.get("HOSTILE_OWN_PROMISES") == "1" and mem0 is not None and mem1 - mem0 > 1 << 20:
        fail("used_memory grew by %d bytes for %d clients that sent 10 bytes each" % (mem1 - mem0, n))
    if rss1 - rss0 > 50 * 1024:
        fail("RSS grew by %d MB for %d clients that sent 10 bytes each" % ((rss1 - rss0) // 1024, n))
    if left != clients0:
        fail("connected_clients %s, was %s" % (left, clients0))
    memory_back(port, mem0)


def _stuck_sender(port, payload, result):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # we never read
    result["sock"] = s
    try:
        s.sendall(payload)
        result["sent"] = len(payload)
    except OSError as e:
        result["error"] = str(e)


def _flood(port, pid, payload, reply_bytes, label, settle):
    mem0 = used_memory(port)
    clients0 = wait_clients(port, 1)
    rss0 = rss_kb(pid)
    other = Conn(port)
    result = {}
    th = threading.Thread(target=_stuck_sender, args=(port, payload, result), daemon=True)
    t0 = time.time()
    th.start()
    lat = []
    while th.is_alive() and time.time() - t0 < settle:
        lat.append(ping_ms(other))
        time.sleep(0.005)
    # The sender may block for good (the server paused reading it): that is
    # the point. Give the server a moment to process what it has.
    th.join(timeout=max(0.0, settle - (time.time() - t0)))
    for _ in range(20):
        lat.append(ping_ms(other))
        time.sleep(0.01)
    rss1 = rss_kb(pid)
    mem1 = used_memory(port)
    lat.sort()
    p99 = lat[int(len(lat) * 0.99) - 1] if lat else 0
    stuck = result.get("sock")
    if stuck:
        # The sender thread may still be blocked in sendall(): close() alone
        # would leave the connection open until that call returns (never);
        # shutdown() ends it now.
        try:
            stuck.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        stuck.close()
    th.join(timeout=5)
    other.close()
    left = wait_clients(port, clients0)
    rss2 = rss_kb(pid)
    print("%s sent_bytes=%s replies_bytes=%d other_pings=%d other_ping_p99_ms=%.1f other_ping_max_ms=%.1f "
          "rss_before_kb=%d rss_stuck_kb=%d rss_after_kb=%d used_memory_stuck=%s connected_clients_after=%s"
          % (label, result.get("sent", "blocked"), reply_bytes, len(lat), p99, lat[-1], rss0, rss1, rss2,
             mem1, left))
    if lat[-1] > 500:
        fail("another client waited %.0f ms for PONG" % lat[-1])
    if left != clients0:
        fail("connected_clients %s, was %s" % (left, clients0))
    memory_back(port, mem0)
    return rss1 - rss0


def flood(port, pid, count):
    payload = b"*1\r\n$4\r\nPING\r\n" * count
    _flood(port, pid, payload, 7 * count, "pings=%d" % count, settle=3.0)


def echoflood(port, pid, mb):
    """ECHO replies of 64 KB, never read, to mb megabytes: more than the
    server's 64 MB limit on unread replies, so it must stop reading this
    client, and its memory must stay near that bound."""
    arg = b"e" * 65536
    count = mb * 16
    payload = b"*2\r\n$4\r\nECHO\r\n$65536\r\n" + arg + b"\r\n"
    grown = _flood(port, pid, payload * count, count * 65543, "echo_mb=%d" % mb, settle=3.0)
    print("rss_growth_mb=%d" % (grown // 1024))
    if grown > 200 * 1024:
        fail("RSS grew by %d MB: the unread replies are not bounded" % (grown // 1024))


def inline(port, pid, mb):
    """A multi-megabyte inline line: a protocol error, the connection closed,
    others served, nothing kept."""
    mem0 = used_memory(port)
    clients0 = wait_clients(port, 1)
    other = Conn(port)
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(5)
    got = b""
    try:
        s.sendall(b"SET k " + b"a" * (mb << 20) + b"\r\n")
    except OSError:
        pass  # closed by the server while we were still sending: fine
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    s.close()
    worst = max(ping_ms(other) for _ in range(10))
    other.close()
    left = wait_clients(port, clients0)
    print("inline_mb=%d reply=%r other_ping_max_ms=%.1f connected_clients_after=%s"
          % (mb, got[:80], worst, left))
    if not got.startswith(b"-ERR Protocol error: too big inline request"):
        fail("reply %r" % got[:80])
    memory_back(port, mem0)


def _over_query_limit(port, pid, limit_mb, head, body, close_is_own_promise):
    """Send head and then body, twice the server's query buffer limit in
    all, as one command that never finishes. The server must close the
    connection without a reply, serve another client between every 256 KB
    sent, and give the memory back. close_is_own_promise: only this project
    promises to close (HOSTILE_OWN_PROMISES=1), Redis serves on."""
    own = os.environ.get("HOSTILE_OWN_PROMISES") == "1"
    limit = limit_mb << 20
    mem0 = used_memory(port)
    clients0 = wait_clients(port, 1)
    rss0 = rss_kb(pid)
    other = Conn(port)
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(10)
    data = head + body
    sent, pongs, peak, reset = 0, 0, mem0, None
    step = 256 * 1024
    while sent < len(data):
        try:
            s.sendall(data[sent:sent + step])
        except OSError as e:  # closed by the server while we were sending
            reset = e
            break
        sent = min(len(data), sent + step)
        ping_ms(other)  # raises unless PONG
        pongs += 1
        if mem0 is not None:
            peak = max(peak, used_memory(port))
    # Closed means EOF or a reset, and no byte of reply.
    got, closed = b"", reset is not None
    s.settimeout(0.2)
    deadline = time.time() + 5
    while not closed and time.time() < deadline:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            if close_is_own_promise and not own:
                break  # Redis keeps such a client: see the bats file
            continue
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
        got += chunk
    s.close()
    ping_ms(other)
    pongs += 1
    other.close()
    left = wait_clients(port, clients0)
    rss1 = rss_kb(pid)
    print("limit_mb=%d sent_bytes=%d closed=%d other_pongs=%d used_memory_peak_growth=%s "
          "rss_before_kb=%d rss_after_kb=%d connected_clients_after=%s"
          % (limit_mb, sent, closed, pongs, None if mem0 is None else peak - mem0, rss0, rss1, left))
    if got:
        fail("the server replied %r; it must close without a reply" % got[:80])
    if not closed and (own or not close_is_own_promise):
        fail("the connection is still open after %d bytes, limit %d" % (sent, limit))
    # Ours holds at most the limit, its buffer's spare room (it doubles) and
    # the parser's index of the arguments; Redis also reserves room for a
    # declared argument (see bigbulk).
    if own and mem0 is not None and peak - mem0 > 3 * limit:
        fail("used_memory grew by %d bytes with a limit of %d" % (peak - mem0, limit))
    if left != clients0:
        fail("connected_clients %s, was %s" % (left, clients0))
    memory_back(port, mem0)


def qbufone(port, pid, limit_mb):
    """One argument declared bigger than the limit, sent to twice the limit."""
    body = b"a" * (2 * limit_mb << 20)
    head = b"*2\r\n$4\r\nECHO\r\n$%d\r\n" % (len(body) + (1 << 20))
    _over_query_limit(port, pid, limit_mb, head, body, close_is_own_promise=False)


def qbufargs(port, pid, limit_mb):
    """A command declared with 1000 arguments; 2 * limit_mb of them, of 1 MB
    each, are sent, and the command never completes."""
    arg = b"b" * (1 << 20)
    body = (b"$%d\r\n%s\r\n" % (len(arg), arg)) * (2 * limit_mb)
    _over_query_limit(port, pid, limit_mb, b"*1000\r\n$4\r\nECHO\r\n", body, close_is_own_promise=True)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    what, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    {
        "many": lambda: many(port, pid, n),
        "fdstarve": lambda: fdstarve(port, pid, n),
        "midcommand": lambda: midcommand(port, pid, n),
        "bytewise": lambda: bytewise(port, pid),
        "bigbulk": lambda: bigbulk(port, pid, n),
        "flood": lambda: flood(port, pid, n),
        "echoflood": lambda: echoflood(port, pid, n),
        "inline": lambda: inline(port, pid, n),
        "qbufone": lambda: qbufone(port, pid, n),
        "qbufargs": lambda: qbufargs(port, pid, n),
    }[what]()
    print("ok")


if __name__ == "__main__":
    main()
