#!/usr/bin/env python3
"""burst_probe.py -- what a client sees while a server deletes a million keys.

Keeps CLIENTS connections busy with GET probe:<n> (a key that never exists,
so the reply is always "$-1\\r\\n"), each sending its next request as soon as
the previous reply arrives (a closed loop, like redis-benchmark), from
--start-ms to --end-ms (Unix ms). A separate connection asks DBSIZE every
100 ms. Every request's latency is recorded against the time it was sent.

Writes, relative to --t0-ms (the keys' common deadline):
  --series FILE   per 100 ms: t_s requests p50_ms p99_ms max_ms dbsize
  --summary FILE  one line per phase, "before" [start, t0) and "burst"
                  [t0, end): phase requests p50_ms p99_ms p999_ms max_ms
                  and, for "burst", the first second at which DBSIZE was 0
                  (or -1).
"""
import argparse
import selectors
import socket
import time


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--start-ms", type=int, required=True)
    ap.add_argument("--end-ms", type=int, required=True)
    ap.add_argument("--t0-ms", type=int, required=True)
    ap.add_argument("--series", required=True)
    ap.add_argument("--summary", required=True)
    a = ap.parse_args()

    while time.time() * 1000 < a.start_ms:
        time.sleep(0.001)

    sel = selectors.DefaultSelector()
    conns = []
    for i in range(a.clients):
        s = socket.create_connection(("127.0.0.1", a.port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        key = b"probe:%d" % i
        req = b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(key), key)
        st = {"sock": s, "req": req, "buf": b"", "sent_wall": 0.0, "sent": 0, "kind": "get"}
        conns.append(st)
        sel.register(s, selectors.EVENT_READ, st)
    ds = socket.create_connection(("127.0.0.1", a.port))
    ds.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    ds.setblocking(False)
    dst = {"sock": ds, "req": b"*1\r\n$6\r\nDBSIZE\r\n", "buf": b"", "sent_wall": 0.0, "sent": 0,
           "kind": "dbsize", "waiting": False}
    sel.register(ds, selectors.EVENT_READ, dst)

    samples = []  # (sent wall ms, latency ms)
    dbsizes = []  # (wall ms, keys)

    def send(st):
        st["sent_wall"] = time.time() * 1000
        st["sent"] = time.perf_counter_ns()
        st["sock"].sendall(st["req"])

    for st in conns:
        send(st)
    next_dbsize = time.time() * 1000
    running = True
    while running:
        now = time.time() * 1000
        if now >= a.end_ms:
            break
        if not dst["waiting"] and now >= next_dbsize:
            send(dst)
            dst["waiting"] = True
            next_dbsize += 100
        for key, _ in sel.select(timeout=0.01):
            st = key.data
            data = st["sock"].recv(65536)
            if not data:
                running = False
                break
            st["buf"] += data
            while b"\r\n" in st["buf"]:
                line, st["buf"] = st["buf"].split(b"\r\n", 1)
                done = time.perf_counter_ns()
                if st["kind"] == "get":
                    samples.append((st["sent_wall"], (done - st["sent"]) / 1e6))
                    if time.time() * 1000 < a.end_ms:
                        send(st)
                else:
                    dbsizes.append((st["sent_wall"], int(line[1:])))
                    st["waiting"] = False
    for st in conns + [dst]:
        st["sock"].close()

    t0 = a.t0_ms
    with open(a.series, "w") as f:
        f.write("t_s\trequests\tp50_ms\tp99_ms\tmax_ms\tdbsize\n")
        buckets = {}
        for sent, lat in samples:
            buckets.setdefault(int((sent - t0) // 100), []).append(lat)
        sizes = {}
        for at, n in dbsizes:
            sizes.setdefault(int((at - t0) // 100), n)
        for b in sorted(set(buckets) | set(sizes)):
            lats = sorted(buckets.get(b, []))
            f.write("%.1f\t%d\t%.3f\t%.3f\t%.3f\t%s\n" % (
                b / 10, len(lats), percentile(lats, 0.5), percentile(lats, 0.99),
                lats[-1] if lats else float("nan"), sizes.get(b, "NA")))
    empty_at = -1
    for at, n in dbsizes:
        if at >= t0 and n == 0:
            empty_at = (at - t0) / 1000
            break
    with open(a.summary, "w") as f:
        f.write("phase\trequests\tp50_ms\tp99_ms\tp999_ms\tmax_ms\tempty_after_s\n")
        for phase, keep in (("before", lambda s: s < t0), ("burst", lambda s: s >= t0)):
            lats = sorted(lat for sent, lat in samples if keep(sent))
            f.write("%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n" % (
                phase, len(lats), percentile(lats, 0.5), percentile(lats, 0.99),
                percentile(lats, 0.999), lats[-1] if lats else float("nan"),
                "%.1f" % empty_at if phase == "burst" else "-"))


if __name__ == "__main__":
    main()
