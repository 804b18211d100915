#!/usr/bin/env python3
"""report.py -- write docs/benchmarks.md and the plots from build/bench/results.

Called by bench.sh at the end; can be run again alone to redo the report
from the last results (RESULTS, OUT and IMG_DIR as bench.sh sets them). Each
section is written only when its part has results. Prints the summary that
`make bench` ends with.
"""
import csv
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys

RESULTS = os.environ.get("RESULTS", "build/bench/results")

# The parameters of the run that made the results (bench.sh writes them), so
# the report says the right numbers when run again alone.
if os.path.exists(os.path.join(RESULTS, "params")):
    for line in open(os.path.join(RESULTS, "params")):
        k, _, v = line.strip().partition("=")
        if k and k not in os.environ:
            os.environ[k] = v
OUT = os.environ.get("OUT", "docs/benchmarks.md")
IMG_DIR = os.environ.get("IMG_DIR", "docs/img")
# Each plot's data, one directory per plot (NAME for IMG_DIR/NAME.png), with
# the command that draws it again: `report.py --draw NAME DIR PNG`.
PLOTS_DIR = os.environ.get("PLOTS_DIR", "docs/plots")
BENCH_BUILD = os.environ.get("BENCH_BUILD", "build/bench")

# The targets (issue 24), Redis's CPU per request / ours, by pipeline depth:
# step 07, plain (read, parse, execute, write), and the fast path (the newest
# step: NEWEST, below; CPU_TARGETS is completed there).
PLAIN_CPU_TARGET = {1: 1.05, 16: 1.35}
FAST_PATH_CPU_TARGET = {1: 1.15, 16: 2.0}
# Memory per key against Redis's: steps 02-05 at most 1.0x, 06 and later 1.25x,
# and the fast path (the newest step: NEWEST, below) 1.0x without a TTL and
# 0.9x with one (issue 33).
def memory_target(step, ttl):
    if step == NEWEST and step > "07":
        return 1.0 if ttl == "no" else 0.9
    return 1.0 if step < "06" else 1.25


def read_tsv(name):
    path = os.path.join(RESULTS, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(x, digits=2):
    if x is None:
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def rel_img(name):
    """The image's path as the report links it."""
    return os.path.relpath(os.path.join(IMG_DIR, name), os.path.dirname(OUT) or ".")


def steps():
    """Step labels and directory names: the steps of steps/ that the build
    has a server of (it may keep one of a step renamed since: left out)."""
    names = {}
    if not os.path.isdir(BENCH_BUILD):  # report.py --draw needs no build
        return names
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    for d in sorted(os.listdir(BENCH_BUILD)):
        if (re.match(r"\d\d-", d) and os.path.exists(os.path.join(BENCH_BUILD, d, "server"))
                and os.path.exists(os.path.join(root, "steps", d, "main.c"))):
            names[d[:2]] = d
    return names


STEP_NAMES = steps()
NEWEST = max(STEP_NAMES) if STEP_NAMES else "07"
CPU_TARGETS = {"07": PLAIN_CPU_TARGET}
if NEWEST > "07":
    CPU_TARGETS[NEWEST] = FAST_PATH_CPU_TARGET


def label(server):
    """A server's name in the tables: Redis, 07 set-options-fsm."""
    if server == "redis":
        return "Redis"
    return f"{server} {STEP_NAMES.get(server, '')[3:]}".strip()


def short_label(server):
    """A server's name in the plots: Redis, 07, 12."""
    return "Redis" if server == "redis" else server


# One colour per server, the same in every plot: Redis red, each step a
# colour of its own (step 12, the fast path, the only orange one).
# The palette is tests/bench/colours.tsv, which the chapters' plot
# (docs/scripts/expiry-over-time.sh) reads too.
def read_palette():
    palette = {}
    for line in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "colours.tsv")):
        server, tab, rgb = line.strip().partition("\t")
        if tab and not server.startswith("#"):  # comments have no tab
            palette[server] = rgb.strip()
    return palette


SERVER_COLOURS = read_palette()


def colour(server):
    return SERVER_COLOURS.get(server, "#000000")


def colour_of_short_label(name):
    """The colour of a server named as the plots name it (short_label)."""
    return colour("redis" if name == "Redis" else name)


def order(servers):
    return sorted(set(servers), key=lambda s: ("" if s == "redis" else s))


def gnuplot(script):
    r = subprocess.run(["gnuplot"], input=script.encode(), capture_output=True)
    if r.returncode != 0 or r.stderr:
        print("report: gnuplot: " + r.stderr.decode(errors="replace"), file=sys.stderr)


# ============================ Plots and their data ============================
# Every plot is drawn from a directory of data, PLOTS_DIR/NAME for
# IMG_DIR/NAME.png, which keeps the figures it shows and a file `command`:
# the command that draws it again from them (tests/tools/plots_check.py runs
# it and compares).

def plot_data_dir(name):
    """PLOTS_DIR/NAME, emptied but for its quotes (where the chapters quote
    it, kept by hand: tests/tools/plots_check.py), with its command."""
    data = os.path.join(PLOTS_DIR, name)
    quotes = os.path.join(data, "quotes")
    kept = open(quotes).read() if os.path.exists(quotes) else None
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    if kept is not None:
        with open(quotes, "w") as f:
            f.write(kept)
    with open(os.path.join(data, "command"), "w") as f:
        f.write(f'python3 tests/bench/report.py --draw {name} "$DIR" "$OUT"\n')
    return data


def read_params(data):
    """A data directory's params file: NAME=VALUE lines."""
    params = {}
    for line in open(os.path.join(data, "params")):
        k, _, v = line.strip().partition("=")
        params[k] = v
    return params


def draw(name, data, out):
    """Draws the plot NAME from DATA into OUT (a PNG)."""
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    drawers = {"bench-cpu-per-request": bars_plot, "bench-throughput": bars_plot,
               "bench-memory": memory_bars, "bench-keys-over-time": keys_over_time,
               "bench-burst-latency": burst_plot}
    drawers[name](data, out)


HEADER_STYLE = """set terminal pngcairo size 1000,520 font 'DejaVu Sans,10'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key below horizontal
set xtics nomirror
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
"""


# ============================ Machine ============================

def cpu_model():
    return sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-").strip() or platform.processor()


def machine_line():
    """The machine in one line, to stand beside the ratios: a ratio to Redis
    depends on what a syscall costs on it."""
    return f"{cpu_model()}, {sh('nproc')} CPUs, Linux {platform.release()}"


def machine():
    cpu = cpu_model()
    return [
        ("date of the results", results_date()),
        ("CPUs (nproc)", sh("nproc")),
        ("CPU model", cpu or platform.processor()),
        ("kernel", platform.release()),
        ("Redis", sh("redis-server --version")),
        ("redis-benchmark", sh("redis-benchmark --version")),
        ("compiler", sh("cc --version | head -1")),
        ("build", f"{BENCH_BUILD}/NN-name/server, CFLAGS=\"-O2 -g -DNDEBUG\" plus the Makefile's warnings"),
        ("CPU time", "per thread, in ns, from /proc/PID/task/*/schedstat"),
        ("CPU pinning (throughput part)", pinning()),
    ]


def results_date():
    """When the newest result was written: the report may be written again
    later, from the same results (PARTS=" " make bench)."""
    names = ("throughput.tsv", "memory.tsv", "snapshot.tsv", "callgrind.tsv", "replication.tsv",
             "replication-sync.tsv", "burst.tsv", "expiry-over-time.txt")
    times = [os.path.getmtime(os.path.join(RESULTS, n)) for n in names
             if os.path.exists(os.path.join(RESULTS, n))]
    return datetime.datetime.fromtimestamp(max(times)).strftime("%Y-%m-%d %H:%M") if times else "-"


def pinning():
    path = os.path.join(RESULTS, "throughput-pinning.txt")
    if not os.path.exists(path):
        return "-"
    with open(path) as f:
        return f.read().strip()


# ============================ Throughput and CPU ============================

RPS, CPU = 0, 1  # the two figures of a run, as indexes into its (rps, cpu) pair


def test_name(test):
    """ping_mbulk -> PING, set -> SET."""
    return test.upper().replace("_MBULK", "")


def pipeline_name(p):
    return "no pipelining" if p == 1 else f"-P {p}"


def bracket_redis(data):
    """Redis runs first and again last in each test's sequence (throughput.sh
    labels the second run "redis-again"). Its figure for a round becomes the
    mean of the two; where one run failed, the other alone."""
    def mean(a, b):
        return b if a is None else a if b is None else (a + b) / 2
    for (test, p, s) in [k for k in data if k[2] == "redis-again"]:
        again = data.pop((test, p, s))
        first = data.setdefault((test, p, "redis"), {})
        for rd, (rps, cpu) in again.items():
            r0, c0 = first.get(rd, (None, None))
            first[rd] = (mean(r0, rps), mean(c0, cpu))


class Throughput:
    """throughput.tsv, read: data[(test, pipeline, server)] is {round: (rps,
    cpu)}, with Redis's two runs in a round made one (bracket_redis); tests
    are (test, pipeline) in the order they ran; requests, the -n of each."""

    def __init__(self, rows):
        self.tests = []
        for r in rows:
            t = (r["test"], int(r["pipeline"]))
            if t not in self.tests:
                self.tests.append(t)
        self.data = {}
        for r in rows:
            key = (r["test"], int(r["pipeline"]), r["server"])
            self.data.setdefault(key, {})[r["round"]] = (num(r["rps"]), num(r["cpu_us_per_req"]))
        bracket_redis(self.data)
        self.rounds = sorted({r["round"] for r in rows}, key=int)
        self.requests = {(r["test"], int(r["pipeline"])): r["requests"] for r in rows}

    def has(self, test, p, server):
        return (test, p, server) in self.data

    def values(self, test, p, server, idx):
        """This server's figure (RPS or CPU) in each round that measured it."""
        return [v[idx] for v in self.data.get((test, p, server), {}).values() if v[idx] is not None]

    def median(self, test, p, server, idx):
        return median(self.values(test, p, server, idx))

    def vs_redis(self, test, p, server, idx):
        """Median over rounds of the ratio of this server's figure to Redis's
        figure in the same round, the way round that puts the better server
        above 1: throughput, ours ÷ Redis's; CPU per request, Redis's ÷ ours."""
        if server == "redis":
            return 1.0
        ratios = []
        for rd in self.rounds:
            a = self.data.get((test, p, server), {}).get(rd, (None, None))[idx]
            b = self.data.get((test, p, "redis"), {}).get(rd, (None, None))[idx]
            if a and b:
                ratios.append(b / a if idx == CPU else a / b)
        return median(ratios)

    def ceiling(self, test, p):
        """What Redis ÷ ours in CPU per request would be if our server spent
        on this test what step 01, which stores nothing, spends on a PING
        with the same pipelining: the median over rounds of Redis's CPU per
        request on the test ÷ 01's on PING in the same round. No server that
        does the test's work can do much better on this machine."""
        ratios = []
        for rd in self.rounds:
            a = self.data.get(("ping_mbulk", p, "01"), {}).get(rd, (None, None))[CPU]
            b = self.data.get((test, p, "redis"), {}).get(rd, (None, None))[CPU]
            if a and b:
                ratios.append(b / a)
        return median(ratios)

    def of_medians(self, test, p, server, idx):
        """The ratio of this server's median figure to Redis's, the same way
        round as vs_redis: what dividing the table's median columns gives."""
        a, b = self.median(test, p, server, idx), self.median(test, p, "redis", idx)
        if not a or not b:
            return None
        return b / a if idx == CPU else a / b


def throughput_section(md, summary, tp):
    if not tp:
        return
    data, rounds, tests = tp.data, tp.rounds, tp.tests
    servers = order(s for (_, _, s) in data)
    n_rounds = f"{len(rounds)} round{'s' if len(rounds) != 1 else ''}"

    cmd = open(os.path.join(RESULTS, "throughput-command.txt")).read().strip() \
        if os.path.exists(os.path.join(RESULTS, "throughput-command.txt")) else ""
    md.append("## Throughput and CPU time per request\n")
    keyspace = int(float(os.environ.get("KEYSPACE", "1000000")))
    md.append(f"{n_rounds}. In each round every server is started afresh "
              f"and, except 01, loaded with the whole keyspace: the {keyspace:,} keys `key:000000000000` ... "
              "that `redis-benchmark -r` draws from, each holding the 3 bytes its SET writes, sent through "
              "`redis-cli --pipe`. So SET replaces values and every GET finds its key, and the runs measure "
              "a server at its full size, not one growing (item 13 of \"What profiling found\"). Then each "
              f"test runs on Redis, 01 (PING only), 02, ..., {NEWEST} and Redis again, in turn, before the "
              "next test starts; the figures are the medians over the rounds. "
              "The command, for each test, pipeline and server:\n")
    md.append(f"```\n{cmd}\n```\n")
    md.append("with `-n` = " + ", ".join(sorted({f'{v} (-P {p})' for (t, p), v in tp.requests.items()}))
              + ". The tests run in this order on each server: " +
              ", ".join(f"{test_name(t)} -P {p}" for t, p in tests) + ".\n")
    md.append("**CPU/req** is the server's user + system CPU time over the run (the kernel's exact "
              "count of the time its threads spent running, from /proc/PID/task/*/schedstat, read just "
              "before and after redis-benchmark) divided by the requests, in microseconds. "
              "**Redis ÷ step** is Redis's CPU per request divided by the step's: above 1, the step spends "
              "less CPU per request than Redis. **tput vs Redis** is the step's requests per second "
              "divided by Redis's. Each ratio is given twice. **per round** is the median of the per-round "
              "ratios: each round's run of a step against the same round's figure for Redis, which is "
              "the mean of two runs, one before the steps' runs of that test and one after them. "
              "**of medians** is the step's median divided by Redis's median, the two figures in the "
              "table. The targets use the first, because a round that is slow for the whole machine "
              "slows Redis's runs in it too and cancels out of that round's ratio, where the medians "
              "may come from different rounds; the second is shown because it is the one a reader "
              "can check from the table, and where the two differ by more than a few percent the "
              "rounds disagreed.\n")

    for test, p in tests:
        md.append(f"### {test_name(test)}, {pipeline_name(p)}\n")
        md.append("| server | req/s | tput vs Redis, per round | of medians | CPU/req (µs) | "
                  "Redis ÷ step (CPU), per round | of medians | CPU spread over rounds |")
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for s in order(srv for (t, pp, srv) in data if t == test and pp == p):
            cpu_values = tp.values(test, p, s, CPU)
            cpu = median(cpu_values)
            spread = (max(cpu_values) - min(cpu_values)) / cpu * 100 if cpu_values and cpu else None
            if s == "redis":
                tr, trm, cr, crm = "1", "1", "1", "1"
            else:
                tr, trm = fmt(tp.vs_redis(test, p, s, RPS)), fmt(tp.of_medians(test, p, s, RPS))
                cr, crm = fmt(tp.vs_redis(test, p, s, CPU)), fmt(tp.of_medians(test, p, s, CPU))
            md.append(f"| {label(s)} | {fmt(tp.median(test, p, s, RPS), 0)} | {tr} | {trm} | {fmt(cpu, 3)} | "
                      f"{cr} | {crm} | {'n/a' if spread is None else f'±{spread / 2:.0f}%'} |")
        md.append("")

    # The targets: step 07, plain, and the newest step, the fast path.
    targeted = [st for st in CPU_TARGETS if any(tp.has(t, p, st) for t, p in tests)]
    md.append("### The targets\n")
    md.append("Step 07 is the plain request path the chapters teach (read, parse, execute, write); "
              f"step {NEWEST} adds chapter {NEWEST}'s fast path. Each ratio is written as the median of the "
              "per-round ratios / the ratio of the medians (as above); the target is judged on the "
              "first.\n")
    md.append("A ratio to Redis holds for the machine it was measured on: where a syscall costs more, "
              "the kernel's share of every request grows, for Redis and for us alike, and every ratio "
              "shrinks towards 1. So beside each ratio stand **Redis's own CPU per request** in this run "
              "and the **ceiling here**: Redis's CPU per request on the test divided by step 01's on "
              "PING with the same pipelining, in the same round (median over rounds). Step 01 stores "
              "nothing, so the ceiling is the ratio a server would reach if the test's work cost it "
              "nothing at all; where a target is above the ceiling, no server can meet it on this "
              f"machine. This run's machine: {machine_line()}.\n")
    md.append("| step | test | Redis ÷ step, CPU per request | target | | Redis CPU/req (µs) | "
              "ceiling here (Redis ÷ 01's PING) | throughput vs Redis |")
    md.append("|---|---|---:|---:|---|---:|---:|---:|")

    def both(s, test, p, idx):
        return f"{fmt(tp.vs_redis(test, p, s, idx))} / {fmt(tp.of_medians(test, p, s, idx))}"

    for st in targeted:
        for test in ("set", "get"):
            for p in (1, 16):
                if not tp.has(test, p, st):
                    continue
                cr = tp.vs_redis(test, p, st, CPU)
                tr = tp.vs_redis(test, p, st, RPS)
                target = CPU_TARGETS[st][p]
                ok = cr is not None and cr >= target
                redis_us = tp.median(test, p, "redis", CPU)
                ceiling = tp.ceiling(test, p)
                md.append(f"| {label(st)} | {test.upper()} {'no pipelining' if p == 1 else '-P 16'} | "
                          f"{both(st, test, p, CPU)} | ≥ {target} | {'met' if ok else '**missed**'} | "
                          f"{fmt(redis_us, 2)} | {fmt(ceiling)} | {both(st, test, p, RPS)} |")
                summary.append(f"{test.upper():4s} {'-P 1 ' if p == 1 else '-P 16'}  {label(st)}: "
                               f"Redis CPU/req ÷ ours {fmt(cr)} (target {target}: "
                               f"{'met' if ok else 'MISSED'}; Redis {fmt(redis_us, 2)} µs/req, "
                               f"ceiling here {fmt(ceiling)}), throughput {fmt(tr)}x Redis")
    md.append("")

    # Plots: CPU per request and throughput (bars_plot), from the medians
    # kept in the plot's data directory.
    for what, idx, fname, scale in (("cpu", CPU, "bench-cpu-per-request", 1),
                                    ("rps", RPS, "bench-throughput", 1000)):
        data = plot_data_dir(fname)
        with open(os.path.join(data, "params"), "w") as f:
            f.write(f"what={what}\nrounds={len(rounds)}\n")
        for p in (1, 16):
            cols = [t for t, pp in tests if pp == p]
            with open(os.path.join(data, f"pipeline-{p}.dat"), "w") as f:
                f.write("test " + " ".join(f'"{short_label(s)}"' for s in servers) + "\n")
                for t in cols:
                    vals = [tp.median(t, p, s, idx) for s in servers]
                    # Requests per second in thousands, to the request
                    # (6 decimals), so the quotes round as the tables do.
                    f.write(f"{test_name(t)} " + " ".join("NaN" if v is None else f"{v / scale:.{4 if scale == 1 else 6}f}"
                                                          for v in vals) + "\n")
        table_quotes(data, what)
        draw(fname, data, os.path.join(IMG_DIR, fname + ".png"))
    md.append(f"![CPU time per request]({rel_img('bench-cpu-per-request.png')})\n")
    md.append(f"![Throughput]({rel_img('bench-throughput.png')})\n")


def table_quotes(data, what):
    """The quotes file of a bars plot: every median its data hold, as the
    tables of this report print it (CPU per request to 3 decimals, requests
    per second whole), so that the report and the plot cannot disagree."""
    out = ["# DOC | TEXT | FUNCTION ARG...  (tests/tools/plots_check.py), written by",
           "# tests/bench/report.py: the medians the report's tables print, which this plot draws."]
    for p in (1, 16):
        lines = [l.split() for l in open(os.path.join(data, f"pipeline-{p}.dat"))]
        names = [n.strip('"') for n in lines[0]][1:]
        for r in lines[1:]:
            for n, v in zip(names, r[1:]):
                if v == "NaN":
                    continue
                text, fn = (f"{float(v):.3f}", "%.3f") if what == "cpu" else (f"{round(float(v) * 1000):,}", "x1000")
                out.append(f"{OUT} | {text} | cell pipeline-{p}.dat {r[0]} {n} {fn}")
    with open(os.path.join(data, "quotes"), "w") as f:
        f.write("\n".join(out) + "\n")


def bars_plot(data, out):
    """CPU per request or throughput, one panel per pipeline depth; in each,
    a cluster of bars per test, one bar per server in its colour, from the
    medians in DATA (pipeline-1.dat, pipeline-16.dat: a header of server
    names, a row per test) and its params (what, rounds). The x range ends
    half a gap past the outer clusters (gnuplot's own leaves a cluster's
    width empty on each side); throughput in thousands, so the axis reads
    1,400 rather than 1.4x10^6."""
    params = read_params(data)
    rounds = int(params["rounds"])
    n_rounds = f"{rounds} round{'s' if rounds != 1 else ''}"
    ylabel = {"cpu": "server CPU time per request (µs)", "rps": "thousand requests per second"}[params["what"]]
    # 1000 px wide: drawn in a book's text column, its text stays 11 px or more.
    script = (HEADER_STYLE + "set terminal pngcairo size 1000,560 font 'DejaVu Sans,10'\n"
              "set key maxcols 4\n"
              f"set output '{out}'\nset multiplot layout 1,2\n")
    for p in (1, 16):
        dat = os.path.join(data, f"pipeline-{p}.dat")
        lines = open(dat).read().splitlines()
        names = re.findall(r'"([^"]*)"', lines[0])
        bars = ", \\\n     ".join(
            f"'{dat if i == 0 else ''}' using {i + 2}:xtic(1) title columnheader({i + 2}) "
            f"lc rgb '{colour_of_short_label(n)}'" for i, n in enumerate(names))
        script += (f"set title '{pipeline_name(p)} (medians of {n_rounds})'\n"
                   f"set ylabel '{ylabel}'\n"
                   f"set xrange [-0.6:{len(lines) - 1 - 0.4}]\n"
                   f"plot {bars}\n")
    gnuplot(script + "unset multiplot\n")


# ============================ Memory ============================

def memory_section(md, summary):
    rows = read_tsv("memory.tsv")
    if not rows:
        return
    by = {(r["server"], r["ttl"]): r for r in rows}
    keys = rows[0]["keys"]
    md.append("## Memory per key\n")
    md.append(f"{int(keys):,} keys `key:0` ... `key:{int(keys) - 1}`, each with the 3-byte value `abc`, "
              "loaded into a fresh server as one RESP stream through `redis-cli --pipe`: "
              "`SET key:N abc`, and in a second run `SET key:N abc EX 10000` (steps 02 and 03 have no "
              "TTLs). Per key: the growth of INFO's `used_memory` and of the process's resident set "
              "(VmRSS) over the load, divided by the keys. Our `used_memory` counts "
              "malloc_usable_size() of every block, Redis's counts jemalloc's size classes, so the RSS "
              "columns are the fairer comparison; the target applies to RSS.\n")
    md.append("| server | used_memory/key | RSS/key | RSS vs Redis | with TTL: used_memory/key | RSS/key | RSS vs Redis | target |")
    md.append("|---|---:|---:|---:|---:|---:|---:|---|")
    redis = {t: num(by[("redis", t)]["rss_per_key"]) for t in ("no", "yes") if ("redis", t) in by}
    for s in order(r["server"] for r in rows):
        cells = []
        for t in ("no", "yes"):
            r = by.get((s, t))
            if r is None:
                cells += ["—", "—", "—"]
                continue
            rss = num(r["rss_per_key"])
            ratio = rss / redis[t] if redis.get(t) and s != "redis" else None
            cells += [fmt(num(r["used_per_key"]), 1), fmt(rss, 1), "1" if s == "redis" else fmt(ratio)]
        targets = {memory_target(s, t) for t in ("no", "yes")}
        target = "" if s == "redis" else (f"≤ {memory_target(s, 'no')}x Redis" if len(targets) == 1 else
                                          f"≤ {memory_target(s, 'no')}x / ≤ {memory_target(s, 'yes')}x Redis")
        md.append(f"| {label(s)} | " + " | ".join(cells) + f" | {target} |")
        if s != "redis":
            measured = {t: num(by[(s, t)]["rss_per_key"]) / redis[t]
                        for t in ("no", "yes") if (s, t) in by and redis.get(t)}
            ok = all(r <= memory_target(s, t) for t, r in measured.items())
            summary.append(f"memory {label(s)}: RSS per key " +
                           ", ".join(f"{r:.2f}x Redis {'without' if t == 'no' else 'with'} a TTL "
                                     f"(target {memory_target(s, t)}x)" for t, r in measured.items()) +
                           f": {'met' if ok else 'MISSED'}")
    md.append("")
    memory_plot(by, order(r["server"] for r in rows), keys)
    md.append(f"![Memory per key]({rel_img('bench-memory.png')})\n")


def memory_plot(by, servers, keys):
    """Keeps the bytes per key, as the table shows them, in the plot's data
    directory (nottl.dat, ttl.dat: label, RSS, used_memory, colour) and
    draws the plot from them (memory_bars)."""
    data = plot_data_dir("bench-memory")
    with open(os.path.join(data, "params"), "w") as f:
        f.write(f"keys={keys}\n")
    for t in ("no", "yes"):
        with open(os.path.join(data, "ttl.dat" if t == "yes" else "nottl.dat"), "w") as f:
            f.write("# server RSS used_memory colour\n")
            for s in servers:
                r = by.get((s, t))
                if r is not None:
                    f.write(f"\"{short_label(s)}\" {r['rss_per_key']} {r['used_per_key']} "
                            f"{int(colour(s)[1:], 16)}\n")
    out = ["# DOC | TEXT | FUNCTION ARG...  (tests/tools/plots_check.py), written by",
           "# tests/bench/report.py: bytes per key in the memory table (fields: server, RSS, used_memory, colour)."]
    for name in ("nottl.dat", "ttl.dat"):
        for line in open(os.path.join(data, name)):
            if not line.startswith("#"):
                x = line.split()
                out += [f"{OUT} | {x[1]} | field {name} {x[0].strip(chr(34))} 2",
                        f"{OUT} | {x[2]} | field {name} {x[0].strip(chr(34))} 3"]
    with open(os.path.join(data, "quotes"), "w") as f:
        f.write("\n".join(out) + "\n")
    draw("bench-memory", data, os.path.join(IMG_DIR, "bench-memory.png"))


def memory_bars(data, out):
    """Bytes per key, a panel without TTLs and one with: each server's bars
    in its colour, RSS solid and used_memory hatched (a colour per measure
    would give Redis's or a step's colour to something else)."""
    keys = read_params(data)["keys"]
    panels = [(os.path.join(data, "nottl.dat"), "no TTL"), (os.path.join(data, "ttl.dat"), "with a TTL (EX 10000)")]
    rows = [line.split() for dat, _ in panels for line in open(dat) if not line.startswith("#")]
    top = max(num(v) or 0 for r in rows for v in r[1:3])
    script = (HEADER_STYLE + "set terminal pngcairo size 1000,480 font 'DejaVu Sans,10'\n"
              f"set output '{out}'\n"
              f"set multiplot layout 1,2 title 'bytes per key, {int(keys):,} keys with a 3-byte value'\n"
              "set style data boxes\nset xtics scale 0\n"
              f"set yrange [0:{top * 1.1:.0f}]\nset offsets 0, 0, 0, 0\n")
    for dat, title in panels:
        n = sum(1 for line in open(dat) if not line.startswith("#"))
        script += (f"set title '{title}'\nset ylabel 'bytes per key'\n"
                   f"set xrange [-0.6:{n - 0.4}]\n"
                   f"plot '{dat}' using ($0 - 0.2):2:(0.38):4:xtic(1) with boxes lc rgb variable fs solid 0.85 border notitle, \\\n"
                   f"     '' using ($0 + 0.2):3:(0.38):4 with boxes lc rgb variable fs pattern 4 border notitle, \\\n"
                   "     NaN with boxes fs solid 0.85 lc rgb 'gray30' title 'RSS (VmRSS)', \\\n"
                   "     NaN with boxes fs pattern 4 lc rgb 'gray30' title 'used\\_memory (INFO)'\n")
    gnuplot(script + "unset multiplot\n")


# ============================ Callgrind ============================

class Callgrind:
    """callgrind.tsv, read: ir[(server, command, pipeline)] is the count of
    instructions per command; servers in report order; n, the commands counted."""

    def __init__(self, rows):
        self.ir = {(r["server"], r["command"], int(r["pipeline"])): num(r["ir_per_command"]) for r in rows}
        self.servers = order(r["server"] for r in rows)
        self.n = rows[0]["commands"]

    def get(self, server, cmd, p):
        return self.ir.get((server, cmd, p))

    def redis_over(self, server, cmd, p):
        """Redis's count ÷ this server's: above 1, the server executes fewer."""
        ours, redis = self.get(server, cmd, p), self.get("redis", cmd, p)
        return redis / ours if ours and redis else None


def snapshot_section(md, summary):
    """Chapter 08: SAVE, the file, the load, and GET's p99 while BGSAVEs run
    (tests/bench/snapshot.sh), each against Redis's in the same run."""
    rows = read_tsv("snapshot.tsv")
    if not rows:
        return
    by = {r["server"]: r for r in rows}
    redis = by.get("redis")
    keys = int(rows[0]["keys"])
    md.append("## Snapshots\n")
    md.append(f"{keys:,} keys `key:N` = `abc`, every other one with `EX 10000`, loaded as for the memory "
              "table; then one `SAVE` (its wall time, as `redis-cli` sees it, and the file's size), "
              "a restart that loads the file (the server's own \"DB loaded from disk\" figure), and "
              "`redis-benchmark -t get -c 50 -r KEYS` twice: with no save running, and with one `BGSAVE` "
              "forked 300 ms into the run (its 99th percentile, ms; one fork for every server, since "
              "each fork stalls every client); that pair of runs three times, and the medians of the three "
              "(one run's p99 moves by half from one run to the next). Ratios are ours over "
              "Redis's; the targets (chapter 08) are at most 1.0 for the times and the p99 during "
              "`BGSAVE`, and at most 1.05 for the file.\n")
    md.append("| server | SAVE (ms) | vs Redis | file (bytes) | vs Redis | load (ms) | vs Redis | "
              "GET p99, quiet (ms) | GET p99 with a BGSAVE (ms) | vs Redis | the BGSAVE (ms) |")
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    targets = {"save_ms": 1.0, "bytes": 1.05, "load_ms": 1.0, "p99_bgsave_ms": 1.0}
    for s in order(by):
        r = by[s]
        def ratio(field):
            if s == "redis" or not redis or not num(redis[field]):
                return None
            return num(r[field]) / num(redis[field])
        cells = []
        for field in ("save_ms", "bytes", "load_ms"):
            cells += [f"{int(num(r[field])):,}", "1" if s == "redis" else fmt(ratio(field))]
        cells += [r["p99_ms"], r["p99_bgsave_ms"], "1" if s == "redis" else fmt(ratio("p99_bgsave_ms")),
                  r["bgsave_ms"]]
        md.append(f"| {label(s)} | " + " | ".join(cells) + " |")
        if s != "redis" and redis:
            got = {f: ratio(f) for f in targets}
            summary.append(f"snapshots {label(s)}: " + ", ".join(
                f"{f.replace('_ms', '').replace('_', ' ')} {fmt(v)}x Redis (target ≤ {targets[f]})"
                for f, v in got.items() if v is not None) + ": " +
                ("met" if all(v is not None and v <= targets[f] for f, v in got.items()) else "MISSED"))
    md.append("")


def callgrind_section(md, summary, cg):
    if not cg:
        return
    servers = cg.servers
    ours = [s for s in servers if s != "redis"]
    n = cg.n
    md.append("## Instructions per command (callgrind)\n")
    md.append("The server runs under `valgrind --tool=callgrind`, holding the 10,000 keys "
              "`key:000000000000` ... that `redis-benchmark -r 10000` names, so every SET overwrites a "
              "key and every GET finds one. For each command: zero the counters (`callgrind_control "
              f"-z`), run it once (one batch with -P 16) with `redis-benchmark -c 1`, dump the counters, "
              f"run it {int(n):,} more times, dump again; the difference divided by {int(n):,}, less what "
              "the idle server executes in the extra time, is the count per command. These are the "
              "server's user-space instructions (callgrind's Ir): the kernel's share of a request, "
              "most of its cost without pipelining, is not in them. Unlike times, they barely move from "
              "run to run, so a change in them is a change in the code.\n")
    md.append("| command | " + " | ".join(label(s) for s in servers) + " | "
              + " | ".join(f"Redis ÷ {label(s)}" for s in ours) + " |")
    md.append("|---|" + "---:|" * (len(servers) + len(ours)))
    for cmd in ("ping", "set", "get"):
        for p in (1, 16):
            cells = [fmt(cg.get(s, cmd, p), 0) for s in servers]
            ratios = [fmt(cg.redis_over(s, cmd, p)) for s in ours]
            md.append(f"| {cmd.upper()}, {pipeline_name(p)} | " + " | ".join(cells + ratios) + " |")
            for s in ours:
                if cg.get(s, cmd, p) is not None:
                    redis = cg.get("redis", cmd, p)
                    summary.append(f"callgrind {label(s)} {cmd.upper():4s} -P {p:<2d}: "
                                   f"{cg.get(s, cmd, p):.0f} instructions per command"
                                   + (f" (Redis {redis:.0f})" if redis is not None else ""))
    md.append("")


# ============================ Replication ============================
# tests/bench/replication.sh: chapter 09's masters (09, and the newest step,
# which carries it) and Redis, each followed by real redis-server 7.0.15 replicas.

# The targets (chapter 09), not enforced by a test: with replicas attached,
# our master spends at most Redis's CPU per SET (Redis ÷ step ≥ 1.0), and a
# full sync to a redis-server replica takes at most Redis's time.
REPL_CPU_TARGET = 1.0
REPL_SYNC_TARGET = 1.0
# Lag samples taken before this many ms into the steady load are left out:
# redis-benchmark is still connecting its clients.
LAG_SKIP_MS = 500


def replication_section(md, summary):
    rows = read_tsv("replication.tsv")
    lag = read_tsv("replication-lag.tsv")
    lag_runs = read_tsv("replication-lag-runs.tsv")
    sync = read_tsv("replication-sync.tsv")
    if not rows and not lag and not sync:
        return
    md.append("## Replication\n")
    pin = os.path.join(RESULTS, "replication-pinning.txt")
    pin = open(pin).read().strip() if os.path.exists(pin) else "-"
    md.append(f"Chapter 09's master (step 09, and step {NEWEST}, which carries it) beside Redis 7.0.15, each "
              "followed by real `redis-server` 7.0.15 replicas, so that every master feeds the same "
              "consumers. Started by tests/bench/replication.sh, polled by tests/bench/repl_probe.py "
              f"(one connection per server); pinning: {pin}. This run's machine: {machine_line()}.\n")
    cmds = os.path.join(RESULTS, "replication-command.txt")
    cmds = open(cmds).read().strip().splitlines() if os.path.exists(cmds) else ["", ""]
    if rows:
        replication_set_tables(md, summary, rows, cmds[0])
    if lag and lag_runs:
        replication_lag_table(md, lag, lag_runs, cmds[-1])
    if sync:
        replication_sync_table(md, summary, sync)


def replication_set_tables(md, summary, rows, cmd):
    counts = sorted({int(r["replicas"]) for r in rows})
    by_count = {k: Throughput([r for r in rows if int(r["replicas"]) == k]) for k in counts}
    rounds = len({r["round"] for r in rows})
    keyspace = int(float(os.environ.get("REPL_KEYSPACE", os.environ.get("KEYSPACE", "1000000"))))
    catchup = {}
    for r in rows:
        catchup.setdefault((r["server"].replace("-again", ""), int(r["replicas"]), int(r["pipeline"])),
                           []).append(num(r["catchup_ms"]))
    ours = [s for s in order(r["server"].replace("-again", "") for r in rows) if s != "redis"]
    md.append("### SET with 0, 1 and 2 replicas\n")
    md.append(f"{rounds} round{'s' if rounds != 1 else ''}. In each round every master is started afresh, "
              f"loaded with {keyspace:,} keys as in the throughput part (`key:000000000000` ..., through "
              "`redis-cli --pipe`), and given two empty `redis-server` replicas (`--save ''`). SET runs "
              f"as in the throughput part, on Redis, {', '.join(ours)} and Redis again in turn, first with no "
              "replica, then after `REPLICAOF` has attached one replica to each master, then two. "
              "Before each run every replica of that master must have its link up and its "
              "`slave_repl_offset` equal to the master's `master_repl_offset`; **catch-up** is how "
              "long after the run it took them to get there again (polled every 10 ms by a probe "
              "connected before the run, whose clock starts when redis-benchmark exits). A Redis master "
              "runs with `--repl-diskless-sync-delay 0`, so that attaching a replica does not wait 5 s. "
              "**CPU/req** is the master's own CPU time over the run (all its threads, "
              "/proc/PID/task/*/schedstat) divided by the requests; the replicas' is not in it. Ratios "
              "as in the throughput part: the median of the per-round ratios / the ratio of the "
              "medians, Redis's figure in a round being the mean of its two runs. The command:\n")
    if cmd:
        md.append(f"```\n{cmd}\n```\n")
    md.append("The first runs after a replica is attached follow the master's fork for the snapshot "
              "(for Redis and for us alike), so some of their writes take a copy-on-write fault.\n")
    for p in (1, 16):
        md.append(f"#### SET, {pipeline_name(p)}\n")
        md.append("| master | replicas | req/s | tput vs Redis, per round | CPU/req (µs) | "
                  "Redis ÷ step (CPU), per round / of medians | catch-up (ms), median / max |")
        md.append("|---|---:|---:|---:|---:|---:|---:|")
        for k in counts:
            tp = by_count[k]
            for s in order(srv for (t, pp, srv) in tp.data if pp == p):
                ups = [v for v in catchup.get((s, k, p), []) if v is not None]
                up = "-" if k == 0 else (f"{fmt(median(ups), 0)} / {fmt(max(ups), 0)}" if ups else "n/a")
                if s == "redis":
                    tr, cr = "1", "1"
                else:
                    tr = fmt(tp.vs_redis("set", p, s, RPS))
                    cr = f"{fmt(tp.vs_redis('set', p, s, CPU))} / {fmt(tp.of_medians('set', p, s, CPU))}"
                md.append(f"| {label(s)} | {k} | {fmt(tp.median('set', p, s, RPS), 0)} | {tr} | "
                          f"{fmt(tp.median('set', p, s, CPU), 3)} | {cr} | {up} |")
        md.append("")
    md.append("#### The target: CPU per request with replicas\n")
    md.append(f"With replicas attached, our master should spend at most Redis's CPU per request: Redis ÷ "
              f"step ≥ {REPL_CPU_TARGET} (per-round median / of medians; judged on the first). Beside it, "
              f"Redis's own CPU per request in this run, and the step's. "
              f"Machine: {machine_line()}.\n")
    md.append("| step | SET | replicas | Redis ÷ step, CPU per request | target | | Redis CPU/req (µs) | "
              "step CPU/req (µs) |")
    md.append("|---|---|---:|---:|---:|---|---:|---:|")
    for st in order(s for tp in by_count.values() for (_, _, s) in tp.data):
        if st == "redis":
            continue
        for p in (1, 16):
            for k in counts:
                tp = by_count[k]
                if k == 0 or not tp.has("set", p, st):
                    continue
                cr = tp.vs_redis("set", p, st, CPU)
                ok = cr is not None and cr >= REPL_CPU_TARGET
                redis_us = tp.median("set", p, "redis", CPU)
                md.append(f"| {label(st)} | {pipeline_name(p)} | {k} | {fmt(cr)} / "
                          f"{fmt(tp.of_medians('set', p, st, CPU))} | ≥ {REPL_CPU_TARGET} | "
                          f"{'met' if ok else '**missed**'} | {fmt(redis_us, 3)} | "
                          f"{fmt(tp.median('set', p, st, CPU), 3)} |")
                summary.append(f"replication SET {'-P 1 ' if p == 1 else '-P 16'} {k} replica"
                               f"{'s' if k != 1 else ' '} {label(st)}: Redis CPU/req ÷ ours {fmt(cr)} "
                               f"(target {REPL_CPU_TARGET}: {'met' if ok else 'MISSED'}; Redis "
                               f"{fmt(redis_us, 2)} µs/req)")
    md.append("")


def replication_lag_table(md, lag, lag_runs, cmd):
    windows = {(r["round"], r["server"]): (num(r["start_ms"]), num(r["end_ms"])) for r in lag_runs}
    rps = {}
    for r in lag_runs:
        rps.setdefault(r["server"], []).append(num(r["rps"]))
    samples = {}
    for r in lag:
        start, end = windows.get((r["round"], r["server"]), (None, None))
        t = num(r["t_ms"])
        if start is None or t is None or not (start + LAG_SKIP_MS <= t <= end):
            continue
        mo, ack, ro = num(r["master_offset"]), num(r["ack_offset"]), num(r["replica_offset"])
        samples.setdefault(r["server"], []).append(
            (None if mo is None or ack is None else mo - ack, num(r["lag_s"]),
             None if mo is None or ro is None else max(0.0, mo - ro)))
    md.append("### The replica's lag under a steady load\n")
    md.append("With one replica attached (after the 1-replica SET runs), a steady load of SETs, "
              "without pipelining from a fixed number of clients:\n")
    if cmd:
        md.append(f"```\n{cmd}\n```\n")
    md.append("and meanwhile, every 100 ms, the master's `INFO replication`, then the replica's. "
              f"Samples from {LAG_SKIP_MS} ms after the start of the load to its end, all rounds together. "
              "**unacknowledged** is `master_repl_offset` minus `slave0`'s `offset=`, the last offset the "
              "replica acknowledged: a replica sends `REPLCONF ACK` once a second, so this is mostly "
              "up to a second's worth of the stream. **lag=** is the master's count of seconds since that "
              "ACK. **not applied** is `master_repl_offset` minus the replica's own `slave_repl_offset`, "
              "read just after: what the replica had not yet applied (a reading below 0, where the "
              "replica's INFO came after more writes, counts as 0).\n")
    md.append("| master | load (req/s) | samples | unacknowledged (bytes), median / max | lag= (s), median / max "
              "| not applied (bytes), median / max |")
    md.append("|---|---:|---:|---:|---:|---:|")

    def med_max(values, digits=0):
        values = [v for v in values if v is not None]
        return f"{fmt(median(values), digits)} / {fmt(max(values), digits)}" if values else "n/a"

    for s in order(samples):
        v = samples[s]
        md.append(f"| {label(s)} | {fmt(median(rps.get(s, [])), 0)} | {len(v)} | "
                  f"{med_max([x[0] for x in v])} | {med_max([x[1] for x in v])} | "
                  f"{med_max([x[2] for x in v])} |")
    md.append("")


def replication_sync_table(md, summary, sync):
    keys = int(sync[0]["keys"])
    runs = {}
    for r in sync:
        runs.setdefault((r["master"], r["mode"], r["replica"]), []).append(
            (num(r["sync_ms"]), num(r["transfer_start_ms"])))
    n_runs = max(len(v) for v in runs.values())
    md.append("### Full sync\n")
    md.append(f"The master is loaded with {keys:,} keys `key:N` = `abc`, every other one with `EX 10000` "
              "(as in the snapshot section; none expires during the run). Then an empty replica starts "
              "(its own empty directory, `--save ''`) and is sent `REPLICAOF 127.0.0.1 PORT`; **total** "
              "is the time from just before that command to the first poll (every 10 ms, INFO "
              f"replication and DBSIZE) that finds `master_link_status:up` and DBSIZE {keys:,}. "
              "**handshake** is the part of it until the first poll that saw `master_sync_in_progress:1`: "
              "the replica connected, sent `PING`, `REPLCONF` and `PSYNC`, and has the master's "
              "`+FULLRESYNC`, which both masters send once they have forked for the snapshot. "
              "**transfer** is the rest: the snapshot written, sent and loaded. "
              f"Medians of {n_runs} sync{'s' if n_runs != 1 else ''} for each pair, each with a fresh "
              "replica. A Redis master, started with `--repl-diskless-sync-delay 0`, is timed in both its "
              "modes: **diskless**, its default, writes the snapshot straight into the replica's socket; "
              "**disk** (`CONFIG SET repl-diskless-sync no`) writes it to a file, then sends the file "
              "as `$<len>`, which is what this project's master always does. The target: a sync from "
              f"our master to a `redis-server` replica takes at most {REPL_SYNC_TARGET}x Redis's to the "
              "same replica, in Redis's default mode (diskless); the ratio to its disk mode is the "
              "like-for-like one.\n")
    def totals(key):
        return median([a for a, _ in runs.get(key, [])])

    # Each ratio divides by Redis's own time to a redis-server replica, in
    # the column's mode; the header says that time, in seconds.
    base = {m: totals(("redis", m, "redis")) for m in ("diskless", "disk")}
    md.append("| master | mode | replica | total (s) | handshake (s) | transfer (s) | " + " | ".join(
        f"÷ Redis → Redis, {m} ({fmt(base[m] and base[m] / 1000)} s)" for m in ("diskless", "disk")) + " |")
    md.append("|---|---|---|---:|---:|---:|---:|---:|")
    targets = []
    for key in sorted(runs, key=lambda k: (k[0] != "redis", k[0], k[1] != "diskless", k[2] != "redis", k[2])):
        master, mode, replica = key
        total = totals(key)
        start = median([b for _, b in runs[key]])
        transfer = median([a - b for a, b in runs[key] if a is not None and b is not None])
        ratios = [fmt(total / base[m]) if total and base[m] else "n/a" for m in ("diskless", "disk")]
        md.append(f"| {label(master)} | {mode} | {label(replica)} | {fmt(total and total / 1000)} | "
                  f"{fmt(start and start / 1000)} | {fmt(transfer and transfer / 1000)} | "
                  f"{ratios[0]} | {ratios[1]} |")
        if master != "redis" and replica == "redis" and total and base["diskless"]:
            r = total / base["diskless"]
            targets.append(f"- {label(master)} → Redis: {fmt(r)}x Redis's diskless sync, target ≤ "
                           f"{REPL_SYNC_TARGET}: {'met' if r <= REPL_SYNC_TARGET else '**missed**'} "
                           f"({fmt(total / 1000)} s against {fmt(base['diskless'] / 1000)} s; "
                           f"{fmt(total / base['disk']) if base['disk'] else 'n/a'}x its disk sync)")
            summary.append(f"replication full sync of {keys:,} keys, {label(master)} -> Redis: {total / 1000:.2f} s, "
                           f"{r:.2f}x Redis's diskless {base['diskless'] / 1000:.2f} s (target ≤ "
                           f"{REPL_SYNC_TARGET}: {'met' if r <= REPL_SYNC_TARGET else 'MISSED'}), "
                           + (f"{total / base['disk']:.2f}x its disk sync" if base["disk"] else ""))
    md.append("")
    if targets:
        md.append("The target, a full sync to a `redis-server` replica:\n")
        md.append("\n".join(targets) + "\n")
    slow = [k for k in runs if k[2] != "redis" and median([b for _, b in runs[k]]) is not None
            and median([b for _, b in runs[k]]) > 500]
    if slow:
        md.append("This project's replica starts its handshake at the next tick of its replication cron, "
                  "once a second (`REPL_CRON_MS`), not when `REPLICAOF` arrives as Redis 7.0.15 does: "
                  "that wait is most of its handshake above.\n")


# ============================ Expiry ============================

def expiry_section(md, summary):
    text_path = os.path.join(RESULTS, "expiry-over-time.txt")
    burst = read_tsv("burst.tsv")
    if not os.path.exists(text_path) and not burst:
        return
    md.append("## The expiry strategies side by side\n")
    if os.path.exists(text_path):
        md.append("### Keys held while a million keys expire\n")
        md.append("`docs/scripts/expiry-over-time.sh` (chapters 05 and 06) with steps 04, 05, 06 and Redis: "
                  "each key gets a deadline drawn uniformly over 10 s, nobody reads them, DBSIZE is "
                  "sampled every 100 ms; `cpu_ms` is the server's CPU time from the first deadline to the "
                  "last sample, `window_s` seconds (a little over 15: the last sample ends the window), and "
                  "`cpu%` that time as a share of one core over the window; `cycle` is the time the server "
                  "reports spending in its expire cycle. Its output:\n")
        text = [line for line in open(text_path).read().splitlines() if not line.startswith("wrote ")]
        md.append("```\n" + "\n".join(text) + "\n```\n")
        redraw_keys_over_time()
        md.append(f"![Keys held over time]({rel_img('bench-keys-over-time.png')})\n")
        md.append(keys_over_time_note())
    if burst:
        keys = os.environ.get("BURST_KEYS", "1000000")
        md.append(f"### {int(keys):,} keys expiring at once\n")
        md.append(f"{int(keys):,} keys, `SET key:N abc` then `PEXPIREAT key:N T` with the same T for "
                  "all, a few seconds after the load; then, in three separate runs (each a fresh server "
                  "and a fresh load, so the measurements never compete):\n")
        md.append("1. **no client** but `redis-cli -r 100 -i 0.1 dbsize`: the server's CPU time over "
                  "[T, T + 10 s] (utime + stime from /proc), which is what deleting the keys costs, and "
                  "when DBSIZE first reads 0;")
        md.append("2. **redis-benchmark**: `redis-benchmark -t get -n 50000 -c 10 -r 1000000 --csv`, once "
                  "before T (the keys still alive) and once started at T;")
        md.append("3. **probe**: `tests/bench/burst_probe.py`, 10 connections sending GET in a closed loop "
                  "from T - 1 s to T + 10 s, every request timed, DBSIZE every 100 ms.\n")
        md.append("The GETs name keys that do not exist, so they measure how long the server keeps a "
                  "request waiting, not lazy expiry. **load average** is the machine's (1 minute, from "
                  "/proc/loadavg) at the end of each measurement: on 2 cores, anything above 2 means "
                  "other work was waiting for a CPU, and the server lost its CPU now and then.\n")
        quiet = [r for r in burst if r["method"] == "quiet"]
        if quiet:
            md.append("| server | keys gone after (s) | CPU over the 10 s (ms) | load average |")
            md.append("|---|---:|---:|---:|")
            for r in sorted(quiet, key=lambda r: "" if r["server"] == "redis" else r["server"]):
                gone = "never" if r["empty_after_s"] == "-1" else r["empty_after_s"]
                md.append(f"| {label(r['server'])} | {gone} | {r['cpu_ms']} | {r.get('loadavg_1min') or '-'} |")
                summary.append(f"burst {label(r['server'])}: keys gone after {gone} s, "
                               f"{r['cpu_ms']} ms CPU (no client)")
            md.append("")
        md.append("| server | method | phase | requests | p50 (ms) | p99 (ms) | p99.9 (ms) | max (ms) | keys gone after (s) | load average |")
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in sorted((r for r in burst if r["method"] != "quiet"),
                        key=lambda r: ("" if r["server"] == "redis" else r["server"], r["method"],
                                       r["phase"] != "before")):
            md.append(f"| {label(r['server'])} | {r['method']} | {r['phase']} | {r['requests']} | "
                      f"{r['p50_ms']} | {r['p99_ms']} | {r['p999_ms']} | {r['max_ms']} | {r['empty_after_s']} | "
                      f"{r.get('loadavg_1min') or '-'} |")
            if r["phase"] == "burst" and r["method"] != "quiet":
                summary.append(f"burst {label(r['server'])} ({r['method']}): p50 {r['p50_ms']} ms, "
                               f"p99 {r['p99_ms']} ms, max {r['max_ms']} ms")
        md.append("")
        keys_gone_text(md, burst)
        series = []
        for s in order(r["server"] for r in burst):
            path = os.path.join(RESULTS, "burst", f"{s}-series.tsv")
            if os.path.exists(path):
                series.append((s, path))
        if series:
            data = plot_data_dir("bench-burst-latency")
            shutil.copy(os.path.join(RESULTS, "burst.tsv"), data)
            with open(os.path.join(data, "series"), "w") as f:
                for srv, path in series:
                    shutil.copy(path, data)
                    f.write(f"{srv}\t{label(srv)}\t{os.path.basename(path)}\n")
            draw("bench-burst-latency", data, os.path.join(IMG_DIR, "bench-burst-latency.png"))
            md.append(f"![Latency during the burst]({rel_img('bench-burst-latency.png')})\n")


def keys_gone_text(md, burst):
    """When the keys are gone, with no client and with the probe's ten: what
    a reading client changes, and why, from this run's figures."""
    def gone(server, method):
        r = next((r for r in burst if r["server"] == server and r["method"] == method
                  and r["phase"] == "burst"), None)
        return num(r["empty_after_s"]) if r and num(r["empty_after_s"]) not in (None, -1) else None
    cpu = {r["server"]: num(r["cpu_ms"]) for r in burst if r["method"] == "quiet"}
    sampling = [s for s in ("redis", "05") if gone(s, "quiet") and gone(s, "probe")]
    text = ["**When the keys are gone, with and without a client.** The \"keys gone\" times differ "
            "between the run with no client and the probe's run (DBSIZE every 100 ms in both, so "
            "to 0.1 s)."]
    if sampling:
        text.append(" " + "; ".join(f"{label(s)}: {gone(s, 'quiet')} s alone, {gone(s, 'probe')} s "
                                    "with ten clients reading" for s in sampling) + ".")
        shares = {s: cpu[s] / (gone(s, "quiet") * 10) for s in sampling if cpu.get(s)}
        share = "; ".join(f"{label(s)}'s {cpu[s]:.0f} ms over {gone(s, 'quiet')} s is "
                          f"{shares[s]:.0f}%" for s in shares)
        # Below a fifth, the cycles did not run back to back: the server
        # waited for a CPU (a busy machine) or ran out of keys to delete.
        busy = any(v < 19 for v in shares.values())
        sooner = all(gone(s, "probe") < gone(s, "quiet") for s in sampling)
        text.append(" Redis and step 05 delete expired keys in two cycles: a slow one that the server "
                    "cron runs 10 times a second for at most 25 ms, and a fast one of "
                    "at most 1 ms that runs before the event loop waits for events, no more than once "
                    "every 2 ms and only while expired keys are piling up. The 25 ms are a quarter of "
                    "the 100 ms between two cron runs, but the next run is timed from the end of the "
                    "last (`processTimeEvents()` in Redis's `ae.c`, and this project's event loop), so "
                    "full slow cycles back to back take 25 ms of every 125: a fifth of a core "
                    "(chapter 05, \"The time budget\"). With no client but the DBSIZE "
                    "sampler the loop wakes about 20 times a second (the cron, and a DBSIZE every 100 ms), "
                    "so the slow cycle does nearly all the work, at a fifth of a core or a little more "
                    "(a cycle overshoots its budget by up to 16 rounds, the clock being read every 16, and "
                    "the server answers the DBSIZEs too; an earlier run of this report measured "
                    "24% for Redis and 26% for step 05)"
                    + (f". In this run, {share} of a core"
                       + (": where that is below a fifth, the server waited for a CPU part of the "
                          "time, as the load average says" if busy else "") if share else "")
                    + ". A reading client wakes the loop "
                    "with every request, and each wake-up may run a fast cycle on top"
                    + (", at most 1 ms in every 2: the keys go sooner." if sooner else
                       "; in this run that did not make the keys go sooner."))
    if gone("06", "quiet") is not None and gone("06", "probe") is not None:
        t_quiet, t_probe = gone("06", "quiet"), gone("06", "probe")
        why = ("its wheel deletes up to 1,000 due keys on each turn of the loop and does not sleep "
               "while keys are due, so alone it deletes at full speed"
               + (f" ({cpu['06']:.0f} ms of CPU in those {t_quiet} s)" if cpu.get("06") else ""))
        if t_probe > t_quiet:
            text.append(f" Step 06 goes the other way, {t_quiet} s alone and {t_probe} s with clients: "
                        + why + ", and with clients their requests take turns with the deletions.")
        elif t_probe == t_quiet:
            text.append(f" Step 06 took {t_quiet} s both alone and with clients: " + why
                        + ", and with clients their requests take turns with the deletions, at a "
                        "cost below the DBSIZE sampler's 0.1 s resolution.")
        else:
            text.append(f" Step 06 took {t_quiet} s alone and {t_probe} s with clients. Alone it should "
                        "be the faster: " + why + ", where clients' requests take turns with the "
                        "deletions. In this run it was not; each figure is one run, and the load average "
                        "column says how busy the machine was.")
    md.append("".join(text) + "\n")


def keys_over_time_note():
    """What the plot shows that the output above does not, and, for samples
    kept before the script counted the keys due exactly, how the two differ."""
    note = ("The plot is drawn again from the samples the run kept (`REPLOT=dir`). Below the keys held, "
            "it shows the stale keys on a log scale: the keys held minus the keys whose deadline had "
            "not passed at the sample's time, counted from the schedule itself (the load draws it with "
            "`srand(1)`).")
    data = os.path.join(RESULTS, "expiry-over-time")
    dats = [os.path.join(data, f) for f in sorted(os.listdir(data)) if f.endswith(".dat")] \
        if os.path.isdir(data) else []
    if any(len(open(f).readline().split()) < 3 for f in dats):
        note += (" This run's samples were timed to 10 ms, and its `peak stale` column above assumed "
                 "the deadlines exactly uniform; at 100 keys per ms both figures are known to about "
                 "±500 keys, so step 06's few hundred cannot be told from none.")
    return note + "\n"


def redraw_keys_over_time():
    """The keys-over-time plot, drawn again from the samples the run kept
    (expiry-over-time.sh with REPLOT), so that the plot follows the script's
    plotting as the report follows this file. The samples, and the script's
    output (summary.txt), are kept in the plot's data directory."""
    data = os.path.join(RESULTS, "expiry-over-time")
    if not (os.path.isdir(data) and os.path.exists("docs/scripts/expiry-over-time.sh")):
        return
    kept = plot_data_dir("bench-keys-over-time")
    for name in os.listdir(data):
        if name != "command":  # the report draws it, as its command says
            shutil.copy(os.path.join(data, name), kept)
    summary = os.path.join(RESULTS, "expiry-over-time.txt")
    if os.path.exists(summary):
        with open(os.path.join(kept, "summary.txt"), "w") as f:
            f.writelines(line for line in open(summary) if not line.startswith("wrote "))
    draw("bench-keys-over-time", kept, os.path.join(IMG_DIR, "bench-keys-over-time.png"))


def keys_over_time(data, out):
    """Draws OUT from samples kept by docs/scripts/expiry-over-time.sh."""
    script = "docs/scripts/expiry-over-time.sh"
    env = dict(os.environ, REPLOT=data, OUT=out)
    env.pop("KEYS", None)  # the kept params say how many
    r = subprocess.run(["bash", script], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"report: {script} (REPLOT): {r.stderr}", file=sys.stderr)


def burst_plot(data, out):
    """The probe's run kept in DATA (its file series names each server's
    samples: server, label, file), one panel per server, then the keys held. One panel
    each, on the same axes, because the servers' worst waits coincide (the
    first second after the deadline) and would hide one another on one. The
    keys on a log axis over the seconds in which they go: the last 1% (a
    Redis rule) is invisible on a linear one, and after that every line is 0.
    Where the keys' lines coincide (all a million before the deadline), each
    is drawn thinner than the one before, with its own marker, so all show."""
    series, names = [], {}
    for line in open(os.path.join(data, "series")):
        srv, name, file = line.rstrip("\n").split("\t")
        series.append((srv, os.path.join(data, file)))
        names[srv] = name
    rows = {s: list(csv.DictReader(open(path), delimiter="\t")) for s, path in series}
    gone = [next((num(r["t_s"]) for r in rows[s] if num(r["t_s"]) >= 0 and num(r["dbsize"]) == 0),
                 num(rows[s][-1]["t_s"])) for s, _ in series]
    fewest = min(num(r["dbsize"]) for s, _ in series for r in rows[s] if num(r["dbsize"]))
    top = max(num(r["max_ms"]) or 0 for s, _ in series for r in rows[s])
    n = len(series)
    panel = 0.62 / n  # the latency panels share 62% of the height, the keys get the rest
    script = (f"set terminal pngcairo size 1000,{200 * n + 400} font 'DejaVu Sans,10'\n"
              f"set output '{out}'\n"
              "set multiplot title '10 clients sending GET in a closed loop; a million keys expire at 0'\n"
              "set grid\nset key top right\nset xrange [-1:*]\nset logscale y\nset lmargin 10\n"
              f"set yrange [0.1:{top * 2:.0f}]\nset ylabel 'slowest GET (ms)'\nset size 1,{panel:.3f}\n")
    for i, (s, path) in enumerate(series):
        script += (f"set origin 0,{0.96 - panel * (i + 1):.3f}\n"
                   f"set title '{names[s]}: the slowest GET in each 100 ms'\n"
                   f"plot '{path}' using 1:5 with steps lw 2 lc rgb '{colour(s)}' notitle\n")
    marks = [(6, 1.6), (4, 1.1), (7, 0.6), (8, 1.0), (2, 1.0)]  # open circle, open square, dot, ...
    plot = ", \\\n     ".join(
        f"'{path}' using 1:6 with linespoints lw {4 - 1.2 * i:.1f} pt {marks[i % 5][0]} ps {marks[i % 5][1]} "
        f"lc rgb '{colour(s)}' title '{names[s]}'" for i, (s, path) in enumerate(series))
    script += ("set origin 0,0\n"
               f"set size 1,{0.96 - panel * n:.3f}\n"
               "set title 'keys held (DBSIZE, every 100 ms), on a log scale: a line ends where the server "
               "holds no key'\n"
               f"set xrange [-0.3:{max(gone) + 0.1:.1f}]\n"
               f"set yrange [10**floor(log10({fewest})):2e6]\nset format y '10^{{%L}}'\n"
               "set xlabel 'seconds since the deadline'\nset ylabel 'keys held'\n"
               f"plot {plot}\nunset multiplot\n")
    gnuplot(script)


# ============================ The fast path ============================
# Fixed text, what the newest step, the fast path, adds to the step before it
# (the text names it from the build: {newest}, {name}), then the two side by
# side, from this run's throughput and callgrind results.

FAST_PATH_TEXT = """## The fast path: step {newest} against the plain path

Every step before step {newest} takes the plain request path the chapters
teach: read, parse, execute, write. `read_handler()` in `common/net.c` runs
a client's commands as soon as it has read them, and `end_of_turn()` writes
the turn's replies, one `send()` per client (step 08's snapshots add one
counter increment per write to that path, the changes its save points
count, and step 09's replication a call before and after each command).
Step {newest} ([chapter {newest}]({name}.md)) is the step before it plus what
only speed needs, in `steps/{name}/`:

- `fastpath.c` installs the run hooks of the step's own copy of net.h: it holds
  every client read in a turn of the event loop (`hold_client()`) and runs
  them all at the end of the turn (`run_held_clients()`), in the order they
  were read, before the replies are written. On its own this changes
  nothing a client can see; it gives the server a moment when all the
  commands of the turn are in memory at once.
- In that moment the look-ahead, `fastpath_look_ahead()`, parses up to 16
  complete requests waiting in the next clients' buffers, with each
  client's own parser (resp.c's), into a batch, and hashes each one's key,
  `argv[1]`. It asks the CPU to load their buckets, then the first entry of
  each bucket, its header and the end of its key, which after the timing
  wheel's link is often on the entry's second cache line
  (`dict_prefetch_bucket()`, `dict_prefetch_entry()` in the step's
  `dict.c`), and runs the batch's commands without parsing them again,
  handing each key's hash to the keyspace (`dict_expect_key()`). The memory
  loads of a batch overlap instead of following one another. Redis 7.4.0 does nothing of the kind:
  its `src/`, and that of `unstable` as of October 2024, has no prefetch at
  all. Valkey 8.0.0 does, for its I/O threads (`prefetchCommands()` in
  `src/memory_prefetch.c`, batches of `prefetch-batch-max-size`, default
  16), and Redis gained it in 2025 (`memory_prefetch.c`, redis/redis pull
  request #14017), for the commands its I/O threads have read and parsed:
  before the main thread runs such a batch, it walks their keys' buckets,
  entries, objects and values one step at a time for all of them,
  prefetching as it goes.
- A measured trick: a plain `SET` that skips its first lookup
  (`set_needs_current_key()` in `keyspace.c`). SipHash's rounds are
  inlined in every step from 02 on (`static inline`; GCC 12 at `-O2`
  inlines them, so `dict.o` has no `sip_round` symbol).

What the look-ahead buys, and costs, is in items 6 and 9 below.
"""


def fastpath_section(md, tp, cg):
    md.append(FAST_PATH_TEXT.format(newest=NEWEST, name=STEP_NAMES.get(NEWEST, NEWEST)))
    before = max((s for s in STEP_NAMES if s < NEWEST), default=None)
    measured = [(test, p) for test in ("set", "get") for p in (1, 16)]
    if before is None or not any((tp and tp.has(t, p, before)) or (cg and cg.get(before, t, p) is not None)
                                 for t, p in measured):
        return
    md.append(f"Step {before} (plain) and step {NEWEST} (the fast path), in this run: CPU per request and "
              "its ratio to Redis as in \"Throughput and CPU time per request\" (medians over the rounds; "
              "the ratio, Redis's CPU per request ÷ the step's, the median of the per-round ratios), and "
              "the instructions per command counted by callgrind.\n")
    md.append(f"| test | {before}: CPU/req (µs) | Redis ÷ {before} (CPU) | {NEWEST}: CPU/req (µs) | "
              f"Redis ÷ {NEWEST} (CPU) | {before}: instructions | {NEWEST}: instructions |")
    md.append("|---|---:|---:|---:|---:|---:|---:|")
    for test, p in measured:
        cells = []
        for s in (before, NEWEST):
            cells += [fmt(tp.median(test, p, s, CPU), 3) if tp and tp.has(test, p, s) else "n/a",
                      fmt(tp.vs_redis(test, p, s, CPU)) if tp and tp.has(test, p, s) else "n/a"]
        cells += [fmt(cg.get(s, test, p), 0) if cg else "n/a" for s in (before, NEWEST)]
        md.append(f"| {test_name(test)}, {pipeline_name(p)} | " + " | ".join(cells) + " |")
    md.append("")


# ============================ Profile findings ============================
# Fixed text, not regenerated: what profiling found when these benchmarks
# were first run, what was changed, and the numbers before and after.

FINDINGS = """## What profiling found, and what was changed

When these benchmarks were first run, the newest step used 1.03x (SET) and
1.33x (GET) less CPU per request than Redis without pipelining, and only
1.14x and 1.16x with `-P 16`, against targets of 1.1 and 1.5. This VM has no
hardware performance counters (`perf stat -e instructions true` says "not
supported"), so the profiles came from callgrind (instruction counts, per
function) and from `perf record -e cpu-clock` (where the time goes, cache
misses included). What they showed, and the fixes:

1. **A 64 KB buffer allocated and freed on every read** (net.c). A read asked
   for `READ_CHUNK` = 64 KB of room, and a query buffer left empty was freed
   when over `IDLE_BUFFER_KEEP` = 32 KB: so always. About 450 instructions per
   request without pipelining. Now a read makes room for 16 KB (as Redis 7's does), under the
   limit.
2. **The hash function was 2.5 times slower than it needed to be** (dict.c, from step 02 on).
   `sip_round()` was not inlined, so SipHash's four words lived in memory, and
   the input was loaded a byte at a time: 287 instructions for a 16-byte key,
   and a SET hashes its key about three times. Now the rounds are inlined and
   the words loaded whole: 116, with the same hashes (the unit test's known
   answers pass unchanged).
3. **Command lookup** (command.c) called `strlen()` and the locale's
   `tolower()` for every table entry it passed: about 580 instructions to find
   `set`, the tenth entry. Now `command_lookup()` is a plain loop over
   `arg_is()` (inline, in command.h), which calls neither and gives up on an
   entry at its first differing letter. (A first-letter test written out inline, about 90
   instructions, was removed in favour of the plain loop.)
4. **Length lines are read twice** (resp.c): `memchr()` for the CR, then
   `string_to_ll()` over the digits. A second parser that read the usual
   `$<digits>\\r\\n` in one pass was removed in favour of the one plain path,
   whose errors are exactly Redis's.
5. **Each reply woke the client up** (net.c, event_loop.c). Replies were
   written right after each client's batch; on a local socket the write runs
   the receiver's TCP code and wakes its process (perf: 11% of the server's
   time in `sock_def_readable` with `-P 16`). Now the turn's replies are written
   together once every ready client has been served, as Redis does in
   `beforeSleep()`: about 7% less CPU per request with `-P 16`.
6. **Most of the remaining user time was waiting for memory** in the hash
   table: perf put 40% of GET `-P 16`'s time in `lookup()`, on the loads of
   the bucket and of the entry (Redis's `dictFind()` costs the same). Two
   changes: each entry keeps 16 bits of its key's hash (dict.h), so walking a
   chain no longer reads the key bytes of the other entries, which in steps 06
   and 07 sit after the 24-byte timing-wheel link, on another cache line
   (a few percent); and before a pipelined batch runs, the keys it names are hashed
   and their buckets and first entries prefetched, so the batch's memory loads
   overlap instead of following each other (step 12's look-ahead,
   `fastpath_look_ahead()` in its fastpath.c; `dict_prefetch_bucket()` and
   `dict_prefetch_entry()` in its dict.c; see "The fast path" above): about
   20% less CPU per request for SET and GET with `-P 16`. The prefetch costs
   instructions: the table in "The fast path" counts both steps. A first
   look-ahead parsed each request a second time, on a parser of its own,
   and hashed its key a second time, 370 to 870 instructions a command more
   than step 07; parsing once, with the client's own parser, and handing the
   hash to the keyspace, brought that down to 80 to 310 (chapter 12's
   measurements). That is why callgrind's counts went up while the time
   went down.
7. The event loop read the clock twice per turn for timers even when there
   were none (steps 06 and 07 have none); it no longer does.
8. **A stall of over 400 ms while a million keys expired** (main.c of steps 05 to
   07), found by the burst measurement below: with step 05, every client
   waited 417 ms (probe) and 493 ms (redis-benchmark) at once, about 0.7 s
   after the deadline, although the expire cycle stops after 25 ms. glibc's
   malloc keeps freed small blocks in "fast bins" and merges them with their
   neighbours only when a large block is next freed; after some 850,000
   deletions (1.7 million blocks: entries and values) the shrinking TTL
   array freed one, and glibc merged all of them in one go. With fast bins
   turned off at start-up (`turn_off_malloc_fast_bins()`:
   `mallopt(M_MXFAST, 0)`, glibc only) the worst wait fell to about one slow
   cycle's budget of 25 ms: 26.5 ms (redis-benchmark) and 26.7 ms (probe)
   in the next run of the burst, where Redis 7.0.15, whose cycle has the same
   budget, got 27.7 and 27.6 ms. In the run before, Redis's worst had been
   52.9 and 60.5 ms: Redis did not change in between, so twice the budget is
   within what this shared machine adds to a wait. The SET and GET figures did
   not move: small blocks still go through glibc's per-thread cache first.

Later, for the figures without pipelining, where SET was at 1.05x to 1.13x
from one full run to the next against the 1.1x target:

9. **Keys prefetched across clients** (step 12's fastpath.c). Without
   pipelining each read brings one command, so a prefetch within one
   client's batch has nothing to overlap, and each command waited for its
   bucket, entry and value in turn: perf put 40% of the server's user time
   in `lookup()`. Now, in step 12, a turn of the event loop reads
   every ready client first; the look-ahead then prefetches the buckets,
   then the entries, of up to 16 of their keys at once, and they run in the
   order they were read. Server user time per request, 50 clients, 1,000,000
   keys loaded beforehand, medians of 8 rounds: SET 1.50 -> 1.15 µs, GET
   1.43 -> 1.08 µs. Its cost was then a look-ahead and a second hash per
   command: callgrind's count per command without pipelining went from 995
   to 1,218 for PING, which has no key, and from 1,544 to 1,997 for GET
   (since cut down: see item 6); it pays off only when the keys are not in
   the cache.
   Prefetching the value too, a third pass, made no difference measurable
   here and was left out.
10. **`recv()` and `send()` instead of `read()` and `write()`** (net.c): on a
   socket they reach the same code without going through the file layer
   first. Measured alone, a `recv()` that finds nothing costs about 330 ns
   here and a `read()` about 370; a request makes two such calls.
11. **Step 07's SET looked its key up twice** (keyspace.c): once to check its
   conditions, once to write. In step 12, `set_command()` looks first only when an
   option needs the key as it is (a condition, GET, KEEPTTL, a deadline
   already past); a plain SET looks once. With items 9 and 11 together,
   SET without pipelining went from 2,258 to 2,574 instructions, where item
   9 alone adds about 450.
12. **How CPU time is measured** (lib.sh, throughput.sh). The servers now run
   on one CPU and redis-benchmark on the other (`taskset`), and CPU time is
   the kernel's exact count (`/proc/PID/task/*/schedstat`) instead of utime
   and stime in 10 ms ticks. Left to the scheduler, client and server
   sometimes shared a CPU and sometimes not: Redis's own CPU time per
   request moved by ±7 to ±16% over the 5 rounds of a test (the spread
   column, in the report before); pinned, by ±3 to ±10%. Every server,
   Redis too, runs the same way.
13. **The keyspace is loaded before the runs** (throughput.sh). Each round
   used to start the servers empty, so SET measured a keyspace growing
   under it, and GET found 18% of its keys without pipelining, 70% with.
   A growing heap touches new pages of memory, and on this virtual machine
   the first touch of a page costs about 1.6 µs when that memory was in use
   shortly before and about 9 µs when it was not, because the host takes
   back, within seconds, the memory the guest frees. (A C loop touching
   2 GB page by page: 4.4 ms per 2 MB the first time, 0.83 ms when run
   again at once, 3.2 ms when run again 5 s later.) Which of the two a run
   got depended on what the machine had done just before: the same server
   code measured SET -P 16 at 1.67x Redis in one full run and 1.37x in
   another (step 07 spent 0.86 and 1.04 µs per request, Redis 1.43 and
   1.44). Now each round first loads the whole keyspace into every server,
   outside the measured runs: SET replaces values, every GET finds its key,
   and the figures are the cost of a request on a server at its full size.
   What a key costs in memory is measured in its own section.
14. **Redis is measured twice in each test of each round**, first and last
   (throughput.sh, report.py). Every ratio divides by Redis's figure for the
   round, so the noise of that one run went into all six steps' ratios at
   once: in one full run, four of the six steps' GET ratios without
   pipelining were 1.28 to 1.32 in round 2, where their medians over the
   rounds were 0.97 to 1.15. The mean of a run before the steps and a run
   after them halves the variance of that figure and cancels a steady drift
   of the machine over the sequence.
15. **A short value had a block of its own** (step 12's keyspace.c). A
   `key:N` key holding `abc` took two malloc chunks: its entry and a 32-byte
   one for the value's 7 bytes. A value of at most 44 bytes now lives in its
   key's entry (chapter 12, "Small as well as fast"): RSS per key went from
   88.4 to 70.8 bytes without a TTL and from 120.3 to 88.4 with one, and a
   SET of a value as long as the one it replaces allocates nothing, 1,655 to
   1,519 instructions a command (callgrind, counted as chapter 12 counts
   them), where one that changes the value's length moves the entry, 1,665
   to 1,932.

Measured, and left out:

- **Prefetching the value** as well (a third pass over the turn's clients):
  no difference beyond the noise.
- **Huge pages for the bucket arrays** (`madvise(MADV_HUGEPAGE)` on tables
  of 2 MB and more): no difference beyond the noise either.
- **Huge pages for the whole heap**, where the entries and values live.
  First with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, then from inside the
  server: after each allocation, if malloc had grown its heap,
  `madvise(MADV_HUGEPAGE)` on the new part, with malloc growing it 32 MB at
  a time. With 1,000,000 keys loaded first, a lookup no longer waits for a
  page-table walk as well, and step 07 spent 100 to 200 ns less user time
  per request (the in-process version: SET 1.28 -> 1.13 µs, GET 1.17 ->
  1.06 µs, 8 pinned rounds in each order). But while the heap grows it costs
  more than it saves: SET -P 16 on a fresh server used 12 to 15% more CPU
  per request (8 rounds in each order), and a full run of this benchmark put
  SET -P 16 at 1.53x Redis instead of 1.67x. The cause is the machine, a
  virtual one: a 2 MB page often comes from memory the guest has never
  touched, which the host must then supply. A C loop touching 64 MB page by
  page measured 3 to 5.5 ms per 2 MB page the first time and 0.19 to 0.29
  ms once that memory had been used, against 0.8 ms for the same 2 MB in
  4 KB pages, which the kernel mostly takes from pages freed recently. Left
  out here; on a machine whose memory is already warm it may pay.
- **A nap before each wait** (step 12). When a turn has run clients, sleep
  20 µs in `nanosleep()` (with the timer slack set to 1 µs) before
  `epoll_wait()`: the requests that arrive meanwhile wake nobody, and the
  next turn finds them all at once. Three interleaved rounds of `GET`, each
  server pinned as in the throughput part. With 50 clients (300,000
  requests a run) it halved the sleeps (12,478 to 12,572 instead of 21,815
  to 24,491), and step 12 used 4.05 to 4.16 µs of CPU per request instead
  of 4.37 to 4.41 (Redis: 4.97 to 5.11) and served 191,000 to 194,000
  requests a second instead of 154,000 to 161,000 (Redis: 167,000 to
  177,000). But the median latency rose from 0.167 to 0.191 ms, and the
  99th percentile from 0.26 ms to 0.36 to 0.38 ms. With 8 clients (150,000
  requests a run), which the nap makes wait for each other, it cost 6.79 to
  6.88 µs per request instead of 4.25 to 4.42, and 98,000 requests a second
  instead of 140,000 to 145,000. Left out: it trades latency for CPU, and a
  turn cannot tell the server whether 8 clients or 50 are behind it.

Before and after, step 07, on this machine (medians of 3 interleaved rounds,
CPU time per request, µs, and the ratio to Redis measured in the same rounds):

| | before | after |
|---|---:|---:|
| SET, no pipelining | 7.75 (1.03x) | 7.15 (1.15x) |
| GET, no pipelining | 6.90 (1.33x) | 6.75 (1.32x) |
| SET, -P 16 | 1.48 (1.14x) | 0.91 (1.86x) |
| GET, -P 16 | 1.16 (1.16x) | 0.72 (1.90x) |
| instructions per PING / SET / GET, no pipelining | 1,591 / 3,722 / 2,700 | 995 / 2,258 / 1,544 |
| instructions per PING / SET / GET, -P 16 | 601 / 2,619 / 1,685 | 540 / 2,035 / 1,306 |

**What limits the figures without pipelining.** Most of a request's CPU
time is the kernel's: a `recv()`, a `send()` (which, on a local socket, also
runs the client's side of TCP, and wakes the client up if it sleeps) and a
share of an `epoll_wait()` and of the sleeps in it. Redis pays the same.
Over 1,000,000 `GET`s from 50 clients, the change in `utime` and `stime`
gave, per request, 1.26 to 1.41 µs of user time and 3.70 to 3.80 µs of
kernel time for Redis, and 0.74 to 0.77 and 3.76 to 3.82 µs for step 12
(chapter 12 has the table). That sets a ceiling: with step 12's kernel time
and no user time at all, a server would use about 1.34x less CPU per request
than Redis. PING, which looks nothing up, gets PING_RANGE. The kernel's share
also grows with the sleeps, and a faster server sleeps more often per
request (chapter 12 has the counts, and what a sleep costs). And one run of
a test still moves by several percent (compare Redis's two runs in a round),
so step 12's 1.15x target lies inside the machine's spread. In 18
interleaved rounds of Redis, step 12 and the fast-path build that came
before chapter 12 (commit a06a823, built with its fast path on, the default),
step 12's per-round ratio ran from 1.12 to 1.22 for GET (median 1.16) and
from 1.13 to 1.20 for SET (median 1.17); that build's medians were 1.14 and
1.15. With `-P 16` the kernel's share is divided by 16, and PING is again
the floor: about 1.35x.

**Left as it is.** Values are a second allocation next to the entry;
glibc's malloc is slower than Redis's jemalloc for the small
blocks a key needs. None of these is needed for the targets.
"""


# ============================ The report ============================

def ping_range(tp):
    """What PING without pipelining gets in this run, Redis's CPU per request
    over the steps' (the per-round column of its table), lowest to highest."""
    ratios = [tp.vs_redis("ping_mbulk", 1, s, CPU) for s in STEP_NAMES] if tp else []
    ratios = [r for r in ratios if r is not None]
    if not ratios:
        return "less than that (this run measured no PING)"
    return (f"{fmt(min(ratios))}x to {fmt(max(ratios))}x in this\nreport's run (steps "
            f"{min(STEP_NAMES)} to {max(STEP_NAMES)}, the PING table's per-round column)")


def main():
    os.makedirs(IMG_DIR, exist_ok=True)
    os.makedirs(os.path.dirname(OUT) or ".", exist_ok=True)
    md = ["# Benchmarks\n",
          "Generated by `make bench` (tests/bench/bench.sh, tests/bench/report.py); do not edit by hand.\n",
          "**These numbers come from a shared 2-core virtual machine**, on which other test runs were "
          "going on at the same time. For the throughput runs the servers have one CPU and the benchmark "
          "client the other (see the machine table), so that they do not take turns on one. Throughput "
          "still moves by several percent from one run to the next, even for Redis against itself; "
          "server CPU time per request moves much less, and callgrind's instruction counts hardly at "
          "all. Compare servers within one report, not across reports.\n",
          "## How to read this\n",
          "Every figure compares this project's servers with a real Redis measured in the same run, on "
          "the same machine, with the same client. On a shared machine the steady figure is the "
          "server's **CPU time per request**: what one request costs the server, whatever else the "
          "machine is doing. Without pipelining it is mostly the kernel's (a read, a write and a share "
          "of an epoll_wait for every request), so even a server that did nothing could not be much "
          "cheaper than Redis; with `-P 16` a read brings 16 commands, and the user-space work (parsing, "
          "looking keys up, allocating, writing replies) shows. The instruction counts of callgrind "
          "isolate that work. Memory per key says what a key costs at rest, and the expiry section "
          "what each chapter's strategy costs when a million keys run out: how many stale keys a "
          "server keeps, and how long a client waits meanwhile. The replication section says what "
          "feeding replicas costs a master, how far behind a replica runs, and how long a full sync "
          "takes.\n",
          "## The machine\n",
          "| | |", "|---|---|"]
    for k, v in machine():
        md.append(f"| {k} | {v} |")
    md.append("")
    params = {k: os.environ.get(k) for k in ("ROUNDS", "N", "NP", "CLIENTS", "KEYSPACE", "MEM_KEYS",
                                            "CG_N", "EXPIRY_KEYS", "BURST_KEYS",
                                            "REPL_KEYSPACE", "REPL_SYNC_KEYS", "REPL_LAG_N", "REPL_SYNC_RUNS")
              if os.environ.get(k)}
    if params:
        md.append("Parameters of this run: " + ", ".join(f"{k}={v}" for k, v in params.items()) + ".\n")
    summary = []
    rows = read_tsv("throughput.tsv")
    tp = Throughput(rows) if rows else None
    rows = read_tsv("callgrind.tsv")
    cg = Callgrind(rows) if rows else None
    throughput_section(md, summary, tp)
    memory_section(md, summary)
    snapshot_section(md, summary)
    callgrind_section(md, summary, cg)
    replication_section(md, summary)
    expiry_section(md, summary)
    fastpath_section(md, tp, cg)
    md.append(FINDINGS.replace("PING_RANGE", ping_range(tp)))
    with open(OUT, "w") as f:
        f.write("\n".join(md))
    print(f"bench: wrote {OUT} and the plots in {IMG_DIR}/bench-*.png")
    print("bench: summary")
    print("  machine: " + machine_line())
    for line in summary:
        print("  " + line)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--draw"] and len(sys.argv) == 5:
        draw(*sys.argv[2:])  # report.py --draw NAME DIR PNG
    else:
        main()
