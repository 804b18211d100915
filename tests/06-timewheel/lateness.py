#!/usr/bin/env python3
"""lateness.py -- how late a server deletes keys nobody reads, key by key.

    lateness.py PORT KEYS WITHIN_MS PREFIX

Gives KEYS keys (PREFIX:0, PREFIX:1, ...) absolute deadlines (PEXPIREAT)
40 to 130 ms apart, in a random order of gaps, the first 300 ms from now.
Then, for each key in turn, it sleeps until WITHIN_MS after the key's
deadline and sends one DBSIZE: the key counts as on time if it is gone by
then. Between those probes the connection is silent, so no request wakes the
server's loop: a server that deletes only on a fixed timer (a cron every
100 ms) is seen as it is, and not woken into deleting by the probes
themselves. Each gap is longer than WITHIN_MS, so at a probe exactly the
keys before it are due. More than half of the keys on time means the median
lateness is under WITHIN_MS.

Prints one line per key ("key 3: due +612 ms, probed 20 ms after: gone"),
then "on time: N of KEYS". Exits 0 unless the server did not answer.
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from resp_client import Conn  # noqa: E402


def now_ms():
    return time.time() * 1000.0


def main():
    port, keys, within, prefix = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    c = Conn(port)
    base = c.call(["DBSIZE"])[1]
    start = now_ms()
    deadlines, at = [], int(start) + 300
    for _ in range(keys):
        deadlines.append(at)
        at += random.randint(max(40, within + 10), 130)
    replies = c.pipeline([["SET", "%s:%d" % (prefix, i), "v"] for i in range(keys)] +
                         [["PEXPIREAT", "%s:%d" % (prefix, i), d] for i, d in enumerate(deadlines)])
    if any(r[0] == "-" for r in replies):
        print("an error reply while setting the keys: %r" % [r for r in replies if r[0] == "-"][0])
        return 1
    on_time = 0
    for i, d in enumerate(deadlines):
        # A key is expired from its deadline + 1 ms (now > deadline).
        wait = (d + 1 + within) - now_ms()
        if wait > 0:
            time.sleep(wait / 1000.0)
        probed = now_ms()
        left = c.call(["DBSIZE"])[1]
        gone = left <= base + keys - i - 1
        on_time += gone
        print("key %d: due +%d ms, probed %d ms after: %s (DBSIZE %d)"
              % (i, d - start, probed - d, "gone" if gone else "still there", left))
    print("on time: %d of %d" % (on_time, keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
