#!/usr/bin/env python3
"""set_differential.py -- SET's option grammar, this server against real Redis.

    set_differential.py OUR_PORT REDIS_PORT [MAX_TOKENS]

Sends every sequence of up to MAX_TOKENS (default 4) option tokens that
Redis 7 knows (NX XX GET EX PX EXAT PXAT KEEPTTL, with values, plus a missing
value, a bad number, a zero and an unknown word), in mixed case, after
`SET key value`, to both servers, once with the key missing and once with the
key holding a value and a TTL. Compares the SET reply, then the value and the
TTL left behind (TTL within one second). Prints how many sequences were
compared and every difference; exits 1 if there was one.
"""
import itertools
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from resp_client import Conn  # noqa: E402  (the RESP reader the differential tests share)


def tokens(now_s):
    far_s = now_s + 100000
    return [["NX"], ["XX"], ["GET"], ["EX", "100"], ["PX", "100000"], ["EXAT", str(far_s)],
            ["PXAT", str(far_s * 1000)], ["KEEPTTL"], ["EX"], ["EX", "abc"], ["PX", "0"],
            ["FOO"]]


def mixed_case(rng, word):
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)


def main():
    ours, redis = Conn(int(sys.argv[1])), Conn(int(sys.argv[2]))
    max_tokens = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    rng = random.Random(7)
    toks = tokens(int(time.time()))
    cases = []
    for n in range(max_tokens + 1):
        for seq in itertools.product(range(len(toks)), repeat=n):
            opts = []
            for i in seq:
                word, *value = toks[i]
                opts += [mixed_case(rng, word)] + value
            for existing in (False, True):
                cases.append((opts, existing))
    compared, differences = 0, []
    for start in range(0, len(cases), 500):
        batch = cases[start:start + 500]
        commands = []
        for opts, existing in batch:
            commands.append(["DEL", "k"])
            commands.append(["SET", "k", "old", "EX", "500"] if existing else ["PING"])
            commands += [["SET", "k", "v"] + opts, ["GET", "k"], ["TTL", "k"]]
        a, b = ours.pipeline(commands), redis.pipeline(commands)
        for i, (opts, existing) in enumerate(batch):
            ra, rb = a[5 * i + 2:5 * i + 5], b[5 * i + 2:5 * i + 5]
            ttl_a, ttl_b = ra[2][1], rb[2][1]  # (":", seconds)
            same = ra[:2] == rb[:2] and abs(ttl_a - ttl_b) <= 1
            compared += 1
            if not same:
                differences.append((opts, existing, ra, rb))
    print("%d SET option sequences compared with Redis, %d differences" % (compared, len(differences)))
    for opts, existing, ra, rb in differences[:20]:
        print("  SET k v %s (key %s): ours %r, Redis %r" % (" ".join(opts), "existed" if existing else "missing", ra, rb))
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
