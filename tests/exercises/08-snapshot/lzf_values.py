#!/usr/bin/env python3
"""lzf_values.py -- values for chapter 08's exercise 3 (LZF in the writer),
and a reader that says how a snapshot stored each string. Standard library
only, and tests/helpers/resp_client.py.

    lzf_values.py set PORT SET
        SET every key of SET on the server at PORT, on one connection;
        prints "N keys, B bytes of keys and values".
    lzf_values.py check PORT SET
        GET every key of SET; prints "all N keys hold their values", or
        the keys whose value differs (or is missing), at most five.
    lzf_values.py strings FILE [KEY...]
        Reads the RDB file FILE (string keys only) and prints, one a line:
            lzf N, plain N, integer N      how its keys and values are stored
            lzf of 20 bytes or fewer: N    strings Redis never compresses
            lzf saving under 4 bytes: N    compressed length > length - 4
            lzf not decoding: N            data that does not decompress
                                           to the length it gives
        then, for each KEY given, "KEY: key E, value E" (E is lzf, plain or
        integer; "KEY: not in the file" if it is not there).

The sets (the same bytes every run: a fixed seed):
    edge   strings at the edges of the rules: 19 to 25 bytes, integers, the
           empty string, random bytes (which LZF cannot shrink) of 25 to
           5,000 bytes, 40 random bytes but for one repeat (which LZF
           shrinks by less than 4), text, a 100,000-byte run, blocks
           repeated at 8,192 bytes (the farthest an LZF reference reaches)
           and 8,193, binary, and long keys
    bulk   200 keys of about 2,000 bytes each, a phrase repeated: 400 KB
           that LZF shrinks to a few
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from resp_client import Conn, encode  # noqa: E402


def edge():
    rnd = random.Random(8)

    def noise(n):
        return bytes(rnd.randrange(256) for _ in range(n))

    block, block2 = noise(8192), noise(8193)
    mixed = b"".join(noise(40) + b"abc" * 14 for _ in range(40))
    # One repeat of 6 bytes in 40 random ones: LZF saves 2 or 3 bytes, too
    # few to keep it.
    few = noise(17) + b"abcdef" + noise(11) + b"abcdef"
    pairs = [(b"short:%d" % n, b"a" * n) for n in (19, 20, 21, 22, 24, 25)]
    pairs += [
        (b"int:12345", b"12345"),
        (b"int:neg", b"-7"),
        (b"int:zeros", b"0123"),
        (b"empty", b""),
        (b"random:25", noise(25)),
        (b"random:100", noise(100)),
        (b"random:1000", noise(1000)),
        (b"random:5000", noise(5000)),
        (b"text:long", b"a value that is longer than twenty bytes, and is text"),
        (b"text:2000", (b"The quick brown fox jumps over the lazy dog. " * 45)[:2000]),
        (b"run:100000", b"z" * 100000),
        (b"period:8192", block + block + b"tail"),
        (b"period:8193", block2 + block2),
        (b"mixed:3000", mixed),
        (b"few:40", few),
        (b"bin:\x00\r\n", b"\x00\r\n\xff" * 30),
        (b"k" * 100, b"a key of 100 k's"),
        (b"long:key:" + b"ab" * 20, b"xy" * 40),
        (b"12345", b"a key that is an integer"),
    ]
    return pairs


def bulk():
    return [(b"bulk:%d" % i, (b"value %d of the bulk, and more of the same words; " % i) * 40)
            for i in range(200)]


SETS = {"edge": edge, "bulk": bulk}


def run(port, commands):
    """Send every command on one connection, then read every reply."""
    conn = Conn(port, timeout=30)
    conn.sock.sendall(b"".join(encode(c) for c in commands))
    replies = [conn.read_reply() for _ in commands]
    conn.close()
    return replies


def do_set(port, pairs):
    replies = run(port, [[b"SET", k, v] for k, v in pairs])
    bad = [(k, r) for (k, _), r in zip(pairs, replies) if r != ("+", b"OK")]
    if bad:
        print("SET %r answered %r" % bad[0])
        return 1
    print("%d keys, %d bytes of keys and values" % (len(pairs), sum(len(k) + len(v) for k, v in pairs)))
    return 0


def do_check(port, pairs):
    replies = run(port, [[b"GET", k] for k, _ in pairs])
    bad = []
    for (k, v), r in zip(pairs, replies):
        if r == ("$", v):
            continue
        if r == ("$", None):
            got = "nil"
        elif r[0] != "$":
            got = repr(r)
        elif len(r[1]) != len(v):
            got = "%d bytes" % len(r[1])
        else:
            first = next(i for i in range(len(v)) if v[i] != r[1][i])
            got = "as many, differing from byte %d on" % first
        bad.append("%r: expected %d bytes, got %s" % (k[:40], len(v), got))
    if bad:
        print("%d of %d keys differ: %s" % (len(bad), len(pairs), "; ".join(bad[:5])))
        return 1
    print("all %d keys hold their values" % len(pairs))
    return 0


def lzf_decompress(data, out_len):
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i]
        i += 1
        if c < 32:
            out += data[i:i + c + 1]
            i += c + 1
            continue
        n = c >> 5
        if n == 7:
            n += data[i]
            i += 1
        back = ((c & 31) << 8) + data[i] + 1
        i += 1
        if back > len(out):
            return None
        for _ in range(n + 2):
            out.append(out[-back])
    return bytes(out) if len(out) == out_len else None


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0
        self.counts = {"lzf": 0, "plain": 0, "integer": 0}
        self.short_lzf = self.weak_lzf = self.broken_lzf = 0

    def take(self, n):
        if self.at + n > len(self.data):
            raise ValueError("the file ends at byte %d, in the middle of something" % len(self.data))
        b = self.data[self.at:self.at + n]
        self.at += n
        return b

    def length(self):
        """(length, None), or (None, encoding) for a special string encoding."""
        b = self.take(1)[0]
        kind = b >> 6
        if kind == 0:
            return b & 63, None
        if kind == 1:
            return ((b & 63) << 8) | self.take(1)[0], None
        if kind == 3:
            return None, b & 63
        if b == 0x80:
            return struct.unpack(">I", self.take(4))[0], None
        if b == 0x81:
            return struct.unpack(">Q", self.take(8))[0], None
        raise ValueError("unknown length byte 0x%02x at %d" % (b, self.at - 1))

    def string(self):
        """(bytes, how it was stored)."""
        n, enc = self.length()
        if enc is None:
            return self.take(n), "plain"
        if enc in (0, 1, 2):
            size = (1, 2, 4)[enc]
            v = int.from_bytes(self.take(size), "little", signed=True)
            return str(v).encode(), "integer"
        if enc == 3:
            clen, _ = self.length()
            ulen, _ = self.length()
            packed = self.take(clen)
            if ulen <= 20:
                self.short_lzf += 1
            if clen > ulen - 4:
                self.weak_lzf += 1
            s = lzf_decompress(packed, ulen)
            if s is None:
                self.broken_lzf += 1
                s = b""
            return s, "lzf"
        raise ValueError("unknown string encoding %d at %d" % (enc, self.at - 1))

    def counted(self):
        s, how = self.string()
        self.counts[how] += 1
        return s, how


def do_strings(path, wanted):
    r = Reader(open(path, "rb").read())
    found = {}
    if r.take(5) != b"REDIS":
        print("not an RDB file")
        return 1
    r.take(4)
    while True:
        op = r.take(1)[0]
        if op == 0xFF:
            break
        if op == 0xFA:
            r.string()
            r.string()
        elif op == 0xFE:
            r.length()
        elif op == 0xFB:
            r.length()
            r.length()
        elif op == 0xFC:
            r.take(8)
        elif op == 0xFD:
            r.take(4)
        elif op == 0:
            k, khow = r.counted()
            _, vhow = r.counted()
            found[k] = (khow, vhow)
        else:
            print("record type 0x%02x at byte %d: not a string" % (op, r.at - 1))
            return 1
    c = r.counts
    print("lzf %d, plain %d, integer %d" % (c["lzf"], c["plain"], c["integer"]))
    print("lzf of 20 bytes or fewer: %d" % r.short_lzf)
    print("lzf saving under 4 bytes: %d" % r.weak_lzf)
    print("lzf not decoding: %d" % r.broken_lzf)
    for name in wanted:
        key = name.encode("utf-8", "surrogateescape")
        if key in found:
            print("%s: key %s, value %s" % (name, found[key][0], found[key][1]))
        else:
            print("%s: not in the file" % name)
    return 0


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd in ("set", "check") and len(sys.argv) == 4 and sys.argv[3] in SETS:
        pairs = SETS[sys.argv[3]]()
        return (do_set if cmd == "set" else do_check)(int(sys.argv[2]), pairs)
    if cmd == "strings" and len(sys.argv) >= 3:
        try:
            return do_strings(sys.argv[2], sys.argv[3:])
        except ValueError as e:
            print("the file does not read: %s" % e)
            return 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
