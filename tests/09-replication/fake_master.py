#!/usr/bin/env python3
"""fake_master.py -- a master that goes wrong on purpose, for chapter 09's
tests of a replica's link: it listens on a port, answers the handshake as a
7.0.15 master does (PING, REPLCONF, PSYNC), and then sends one of:

  bad-fullresync  "+FULLRESYNC short 0": a replication id that is not 40
                  characters
  bad-checksum    a whole snapshot holding one key, whose CRC-64 is wrong
  truncated       "$<len>" and only half the snapshot, then it hangs up
  good            the same snapshot, whole and right, then a PING now and
                  then (so the replica stays up)
  errors          the same good snapshot, then a stream that holds two
                  commands a replica must refuse (one unknown, one with too
                  few arguments) before SET after:errors 1, and no PINGs:
                  the replica goes on, and its ACKs count all three

Every connection gets the same treatment. It prints one line per
connection, "connection N: <what the replica sent, in order>", so a test
can count the replica's retries and see its handshake. In mode errors it
also prints "stream ends at offset N" once the stream is sent, and for each
command the replica sends after the sync "after the sync: <command>" as it
comes, then "ack N" if it is REPLCONF ACK N; it answers none of them.

  fake_master.py PORT MODE
"""
import socket
import struct
import sys
import threading
import time

# CRC-64/Jones, reflected, as Redis's crc64.c computes it (the same as
# steps/08-snapshot/rdb.c): polynomial 0xad93d23594c935a9, init 0.
POLY = 0x95AC9329AC4BC9B5  # the reflected polynomial
FULLRESYNC_OFFSET = 100  # where the stream it sends starts


def crc64(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ POLY if crc & 1 else crc >> 1
    return crc


def snapshot(key=b"from:fake", value=b"master"):
    """An RDB version 10 file holding one string key, with its CRC."""
    body = b"REDIS0010"
    body += b"\xfe\x00"  # SELECTDB 0
    body += b"\x00" + bytes([len(key)]) + key + bytes([len(value)]) + value
    body += b"\xff"
    return body + struct.pack("<Q", crc64(body))


def read_command(conn, buf):
    """One RESP array from conn, as a list of bytes; buf holds what was read
    ahead. Returns (args, rest), or (None, b"") when the peer hung up. With a
    timeout set on conn, each second without a command sends a PING."""
    while True:
        try:
            args, rest = parse(buf)
            if args is not None:
                return args, rest
        except ValueError:
            return None, b""
        try:
            data = conn.recv(65536)
        except (socket.timeout, TimeoutError):
            conn.sendall(b"*1\r\n$4\r\nPING\r\n")
            continue
        if not data:
            return None, b""
        buf += data


def parse(buf):
    if not buf.startswith(b"*"):
        if b"\n" in buf:  # an inline command
            line, rest = buf.split(b"\n", 1)
            return line.strip().split(), rest
        return None, buf
    end = buf.find(b"\r\n")
    if end < 0:
        return None, buf
    n, pos, args = int(buf[1:end]), end + 2, []
    for _ in range(n):
        end = buf.find(b"\r\n", pos)
        if end < 0:
            return None, buf
        length = int(buf[pos + 1 : end])
        start = end + 2
        if len(buf) < start + length + 2:
            return None, buf
        args.append(buf[start : start + length])
        pos = start + length + 2
    return args, buf[pos:]


def serve(conn, number, mode):
    seen, buf, synced = [], b"", False
    try:
        while True:
            args, buf = read_command(conn, buf)
            if args is None:
                break
            seen.append(b" ".join(args).decode(errors="replace"))
            name = args[0].lower()
            if synced and mode == "errors":
                # A replica sends its master nothing but ACKs: log what came.
                print("after the sync: " + seen[-1], flush=True)
                if name == b"replconf" and args[1].lower() == b"ack":
                    print(f"ack {args[2].decode()}", flush=True)
                continue
            if name == b"ping":
                conn.sendall(b"+PONG\r\n")
            elif name == b"replconf":
                if args[1].lower() != b"ack":
                    conn.sendall(b"+OK\r\n")
            elif name in (b"psync", b"sync"):
                send_sync(conn, mode)
                synced = True
                if mode not in ("good", "errors"):
                    break
                if mode == "good":
                    conn.settimeout(1.0)  # hold the link, with a PING now and then
            else:
                conn.sendall(b"-ERR unknown command\r\n")
    except OSError:
        pass
    finally:
        print(f"connection {number}: " + " | ".join(seen), flush=True)
        conn.close()


def send_sync(conn, mode):
    replid = b"f" * 40
    rdb = snapshot()
    if mode == "bad-fullresync":
        conn.sendall(b"+FULLRESYNC short 0\r\n")
        time.sleep(0.2)
        return
    conn.sendall(b"+FULLRESYNC " + replid + b" %d\r\n" % FULLRESYNC_OFFSET)
    if mode == "bad-checksum":
        bad = rdb[:-8] + struct.pack("<Q", crc64(rdb[:-8]) ^ 1)
        conn.sendall(b"$%d\r\n" % len(bad) + bad)
        time.sleep(0.5)
    elif mode == "truncated":
        conn.sendall(b"$%d\r\n" % len(rdb) + rdb[: len(rdb) // 2])
        time.sleep(0.2)
    else:
        conn.sendall(b"$%d\r\n" % len(rdb) + rdb)
    if mode == "errors":
        stream = (b"*1\r\n$13\r\nNOSUCHCOMMAND\r\n"
                  b"*2\r\n$3\r\nSET\r\n$5\r\nalone\r\n"
                  b"*3\r\n$3\r\nSET\r\n$12\r\nafter:errors\r\n$1\r\n1\r\n")
        conn.sendall(stream)
        print(f"stream ends at offset {FULLRESYNC_OFFSET + len(stream)}", flush=True)


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    if mode not in ("bad-fullresync", "bad-checksum", "truncated", "good", "errors"):
        sys.exit(f"fake_master.py: unknown mode {mode}")
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(8)
    print("listening", flush=True)
    number = 0
    while True:
        conn, _ = listener.accept()
        number += 1
        threading.Thread(target=serve, args=(conn, number, mode), daemon=True).start()


if __name__ == "__main__":
    main()
