#!/usr/bin/env python3
"""slow_replica.py -- a replica that asks for the stream and never reads it.

  slow_replica.py PORT

Connects to the master on 127.0.0.1:PORT with a small receive window, sends
REPLCONF listening-port and PSYNC ? -1, and then reads nothing more: what the
master streams piles up in its output buffer for this replica, which is what
chapter 09's output-limit test needs. The test kills it; if it is forgotten,
it exits by itself after LIFETIME_S.
"""
import socket
import sys
import time

LISTENING_PORT = 1  # what INFO names it by: nothing listens there
LIFETIME_S = 60


def main():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Set before connect(), so the window offered to the master stays small.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"REPLCONF listening-port %d\r\n" % LISTENING_PORT)
    if not s.recv(64).startswith(b"+OK"):
        sys.exit("slow_replica.py: REPLCONF listening-port was not answered +OK")
    s.sendall(b"PSYNC ? -1\r\n")
    time.sleep(LIFETIME_S)


main()
