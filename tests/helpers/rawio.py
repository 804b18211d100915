#!/usr/bin/env python3
"""rawio.py -- send raw bytes to a server and print the raw reply.

redis-cli always sends well-formed multibulk requests, so tests of inline
requests, protocol errors and odd packetisation need a plain socket.

    rawio.py PORT [--expect N] [--bytewise] [--close-expected] < request
    rawio.py PORT [--expect N] -- ARG...   (a multibulk command; \\x00 style
                                            escapes in ARGs are decoded)

Reads the request bytes from stdin (or builds them from ARGs), sends them (all at once, or one byte per
send with --bytewise), then prints what the server sends back until it has N
bytes (--expect), or the server closes the connection, or 5 seconds pass.
With --close-expected the exit status is 0 only if the server closed the
connection; otherwise 0 means the expected bytes arrived.
"""
import codecs
import socket
import sys
import time

from resp_client import encode


def main():
    port = int(sys.argv[1])
    expect = None
    bytewise = "--bytewise" in sys.argv
    close_expected = "--close-expected" in sys.argv
    if "--expect" in sys.argv:
        expect = int(sys.argv[sys.argv.index("--expect") + 1])
    if "--" in sys.argv:
        args = [codecs.escape_decode(a.encode())[0] for a in sys.argv[sys.argv.index("--") + 1:]]
        data = encode(args)
    else:
        data = sys.stdin.buffer.read()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        if bytewise:
            for i in range(len(data)):
                sock.sendall(data[i:i + 1])
                time.sleep(0.0005)
        else:
            sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server closed early (a protocol error): read what it sent
    got = b""
    closed = False
    deadline = time.time() + 5
    sock.settimeout(0.1)
    while time.time() < deadline:
        if expect is not None and len(got) >= expect and not close_expected:
            break
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        got += chunk
    sys.stdout.buffer.write(got)
    sys.stdout.flush()
    if close_expected:
        sys.exit(0 if closed else 3)
    if expect is not None and len(got) < expect:
        sys.exit(2)


if __name__ == "__main__":
    main()
