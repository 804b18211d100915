"""resp_client.py -- a minimal RESP2 client over a plain socket.

The differential tests (tests/compat/differential.py and
tests/07-set-options-fsm/set_differential.py) compare this server's replies
with Redis's exactly. A client library would smooth the differences over (an
error becomes an exception, a status and a bulk string both become text), so
they speak RESP themselves, through this module. The hostile clients'
well-behaved neighbour (tests/hostile/hostile.py) uses it too, and rawio.py
builds its requests with encode().
"""
import socket


def encode(args):
    """One command as a RESP multibulk request. Arguments may be bytes, str
    or numbers."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    """A connection that reads replies as (type, value) pairs: ("+", b"OK"),
    ("-", b"ERR ..."), (":", 42), ("$", b"bytes" or None), ("*", [...] or
    None)."""

    def __init__(self, port, timeout=10):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def close(self):
        self.sock.close()

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by the server")
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"-"):
            return (kind.decode(), rest)
        if kind == b":":
            return (":", int(rest))
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return ("$", None)
            while len(self.buf) < n + 2:
                self._fill()
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return ("$", data)
        if kind == b"*":
            n = int(rest)
            if n < 0:
                return ("*", None)
            return ("*", [self.read_reply() for _ in range(n)])
        raise ValueError("bad reply line %r" % line)

    def call(self, args):
        """Send one command and return its reply."""
        self.sock.sendall(encode(args))
        return self.read_reply()

    def pipeline(self, commands):
        """Send every command at once, then read all their replies."""
        self.sock.sendall(b"".join(encode(c) for c in commands))
        return [self.read_reply() for _ in commands]
