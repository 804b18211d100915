"""ports.py -- a free port for a server a Python test starts, picked as
port.sh's pick_port picks one for the shell scripts: a random port from
20000 to 32767 that refuses a connection. That range stays below Linux's
ephemeral ports, where the kernel picks the local ports of outgoing
connections (and where binding port 0 would land). The port is free when
checked, not reserved: the caller retries with another if its server then
fails to bind it.
"""
import random
import socket

FIRST_PORT, LAST_PORT = 20000, 32767
TRIES = 50


def free_port():
    for _ in range(TRIES):
        port = random.randint(FIRST_PORT, LAST_PORT)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port from %d to %d in %d tries" % (FIRST_PORT, LAST_PORT, TRIES))
