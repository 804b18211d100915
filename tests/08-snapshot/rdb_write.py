#!/usr/bin/env python3
"""rdb_write.py -- write RDB files by hand, and damage them, for chapter 08's
suites (snapshot.bats, interop.bats). Standard library only.

    rdb_write.py write OUT [--version N] [--aux NAME VALUE]... [--db N]
                 [--no-resizedb] [--no-crc] RECORD...
        RECORD is one string key, in the order given:
            --string KEY VALUE          no TTL
            --string-ms KEY VALUE MS    FC: an absolute deadline, Unix ms
            --string-s KEY VALUE S      FD: an absolute deadline, Unix seconds
        KEY and VALUE may hold backslash escapes (\\x00, \\r, \\n, \\\\).
        The file: "REDIS" and the version in four digits (default 10), each
        AUX field (FA), SELECTDB (FE) and RESIZEDB (FB, unless --no-resizedb),
        the records, EOF (FF) and the CRC-64 of every byte through FF, 8 bytes
        little-endian (8 zero bytes with --no-crc: "not checked"). Strings
        are written as Redis writes them when compression is off: a canonical
        decimal that fits in 32 bits as an integer encoding (C0, C1, C2), any
        other as its length and bytes.

    rdb_write.py damage IN OUT truncate|flip|magic [BYTES]
        OUT is IN with one thing wrong:
            truncate    cut after half of its bytes
            flip        one bit of the first byte of BYTES (escapes as above)
                        flipped: the structure still reads, the checksum fails
            magic       the first five bytes "REDIS" made "XEDIS"
        Prints the offset of the damage: the length kept, the flipped byte's
        offset, or 0.

    rdb_write.py crc FILE
        Prints the CRC-64 of FILE's bytes, in hex (the check value of
        "123456789" is e9c6d914c4b8d9ca).

The CRC is Redis's (crc64.c): CRC-64/Jones, polynomial 0xad93d23594c935a9,
reflected in and out, initial value 0, no final xor.
"""
import codecs
import struct
import sys

POLY_REFLECTED = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 bit-reversed
_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ POLY_REFLECTED if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def unescape(text):
    return codecs.escape_decode(text.encode("utf-8", "surrogateescape"))[0]


def length(n):
    """Redis's length encoding: 6 bits, 14 bits big-endian, or 0x80 + 32 bits."""
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n < 1 << 32:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def string(s):
    """An RDB string: an integer encoding if Redis would use one, else raw."""
    try:
        text = s.decode("ascii")
        v = int(text)
        canonical = str(v) == text and len(s) <= 11
    except (UnicodeDecodeError, ValueError):
        canonical = False
    if canonical:
        if -(1 << 7) <= v < 1 << 7:
            return b"\xc0" + struct.pack("<b", v)
        if -(1 << 15) <= v < 1 << 15:
            return b"\xc1" + struct.pack("<h", v)
        if -(1 << 31) <= v < 1 << 31:
            return b"\xc2" + struct.pack("<i", v)
    return length(len(s)) + s


def write(args):
    out = args.pop(0)
    version, db, resizedb, crc = 10, 0, True, True
    aux, records = [], []
    while args:
        opt = args.pop(0)
        if opt == "--version":
            version = int(args.pop(0))
        elif opt == "--aux":
            aux.append((unescape(args.pop(0)), unescape(args.pop(0))))
        elif opt == "--db":
            db = int(args.pop(0))
        elif opt == "--no-resizedb":
            resizedb = False
        elif opt == "--no-crc":
            crc = False
        elif opt == "--string":
            records.append((unescape(args.pop(0)), unescape(args.pop(0)), None))
        elif opt == "--string-ms":
            records.append((unescape(args.pop(0)), unescape(args.pop(0)), ("ms", int(args.pop(0)))))
        elif opt == "--string-s":
            records.append((unescape(args.pop(0)), unescape(args.pop(0)), ("s", int(args.pop(0)))))
        else:
            sys.exit("rdb_write.py write: unknown option %s" % opt)
    body = b"REDIS%04d" % version
    for name, value in aux:
        body += b"\xfa" + string(name) + string(value)
    if records:
        body += b"\xfe" + length(db)
        if resizedb:
            body += b"\xfb" + length(len(records)) + length(sum(1 for r in records if r[2]))
        for key, value, ttl in records:
            if ttl and ttl[0] == "ms":
                body += b"\xfc" + struct.pack("<q", ttl[1])
            elif ttl:
                body += b"\xfd" + struct.pack("<i", ttl[1])
            body += b"\x00" + string(key) + string(value)
    body += b"\xff"
    body += struct.pack("<Q", crc64(body)) if crc else b"\x00" * 8
    with open(out, "wb") as f:
        f.write(body)


def damage(args):
    src, out, how = args[0], args[1], args[2]
    data = bytearray(open(src, "rb").read())
    if how == "truncate":
        at = len(data) // 2
        data = data[:at]
    elif how == "flip":
        at = data.find(unescape(args[3]))
        if at < 0:
            sys.exit("rdb_write.py damage: %r is not in %s" % (args[3], src))
        data[at] ^= 0x01
    elif how == "magic":
        at = 0
        data[0:1] = b"X"
    else:
        sys.exit("rdb_write.py damage: truncate, flip or magic, not %s" % how)
    with open(out, "wb") as f:
        f.write(data)
    print(at)


def main():
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if cmd == "write" and args:
        write(args)
    elif cmd == "damage" and len(args) >= 3:
        damage(args)
    elif cmd == "crc" and len(args) == 1:
        print("%016x" % crc64(open(args[0], "rb").read()))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
