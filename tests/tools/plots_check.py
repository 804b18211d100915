#!/usr/bin/env python3
"""plots_check.py -- are the plots in docs/img/*.png what their data draw,
and do the chapters quote the data truly? make pictures-check runs it (from
tests/tools/pictures_check.sh); make pictures runs it with --write, which
redraws instead of comparing.

    plots_check.py [--write]

Every plot docs/img/NAME.png has its data in docs/plots/NAME/: the figures
it shows, as the run that measured them wrote them, and a file `command`,
the shell command that draws the plot from them, run from the top of the
repository with DIR (the data directory) and OUT (the PNG to write) in its
environment. Checks, each printing what it found and what it expected:

  1. every plot has its data directory and every data directory its plot;
  2. the command draws the committed PNG byte for byte (twice, so the check
     cannot be flaky). Other versions of gnuplot, cairo, pango or the font
     draw other bytes, so this is skipped, with the reason, when gnuplot is
     missing or these are not the versions docs/plots/drawn-by names;
  3. every line of a directory's `quotes` file holds: the chapter quotes
     the text, and the text holds what the data give. A line is

         DOC | TEXT | FUNCTION ARG...

     where FUNCTION is one of QUOTES below, computed over the files of the
     directory, and TEXT is its result, with words around it if need be to
     find the right place in DOC (a line break in DOC counts as a space).
     So a figure in a chapter cannot drift from its plot's data.

Exits 1 on a failure.
"""
import csv
from decimal import Decimal
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
IMG = "docs/img"
PLOTS = "docs/plots"
DRAWN_BY = os.path.join(PLOTS, "drawn-by")

failed = False


def fail(msg):
    global failed
    print("plots: " + msg)
    failed = True


# ---- What a quote may compute, over a data directory ----------------------
# Samples of docs/scripts/expiry-over-time.sh are "seconds DBSIZE not-yet-due"
# lines; its summary.tsv has a header line and one row per server.

def samples(data, file):
    with open(os.path.join(data, file)) as f:
        return [tuple(float(x) for x in line.split()[:3]) for line in f if line.strip()]


def held_at(data, file, t):
    """Keys held at the first sample at or after T seconds, as 1,234."""
    return f"{int(next(n for s, n, _ in samples(data, file) if s >= float(t))):,}"


def stale_peak(data, file, spread_s="10"):
    """The most keys held past their deadline, up to SPREAD seconds: "N at T s"."""
    best = max((n - due, s) for s, n, due in samples(data, file) if 0 <= s <= float(spread_s))
    return f"{int(best[0]):,} at {best[1]:.1f} s"


def stale_peak_of(data, file, spread_s="10"):
    """The same peak, against the keys held then: "N of M at T s"."""
    best = max((n - due, n, s) for s, n, due in samples(data, file) if 0 <= s <= float(spread_s))
    return f"{int(best[0]):,} of {int(best[1]):,} at {best[2]:.1f} s"


def stale_peak_share(data, file, spread_s="10"):
    """The same peak as a share of the keys held then: "40%"."""
    best = max((n - due, n) for s, n, due in samples(data, file) if 0 <= s <= float(spread_s))
    return f"{100 * best[0] / best[1]:.0f}%"


def stale_quantile(data, file, q, spread_s="10"):
    """The stale keys (held minus not yet due) that a share Q of the samples
    up to SPREAD seconds are at or below, as 1,234."""
    stale = sorted(n - due for s, n, due in samples(data, file) if 0 <= s <= float(spread_s))
    return f"{int(stale[max(0, -(-len(stale) * int(float(q) * 100) // 100) - 1)]):,}"


def stale_median(data, file, spread_s="10"):
    """The median of the stale keys in the samples up to SPREAD seconds."""
    stale = [n - due for s, n, due in samples(data, file) if 0 <= s <= float(spread_s)]
    return f"{round(statistics.median(stale)):,}"


def first_at_most(data, file, keys):
    """The first sample after 0 holding at most KEYS keys: seconds, 2 decimals."""
    return f"{next(s for s, n, _ in samples(data, file) if s > 0 and n <= float(keys)):.2f}"


def run_of(data, file, keys):
    """The samples holding exactly KEYS keys: "from A to B s" (2 decimals)."""
    times = [s for s, n, _ in samples(data, file) if n == float(keys)]
    return f"from {times[0]:.2f} to {times[-1]:.2f} s"


def row(data, file, *args):
    """A cell of a TSV with a header: row(FILE, COL=VALUE..., COLUMN)."""
    *conds, column = args
    with open(os.path.join(data, file)) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if all(r[k] == v for k, v in (c.split("=", 1) for c in conds)):
                return r[column]
    raise LookupError(f"no row of {file} with {' '.join(conds)}")


def rowf(data, file, cond, *fmt):
    """A row of a TSV with a header, written by a format: rowf(FILE,
    COL=VALUE, FORMAT...), FORMAT in str.format's terms with the row's
    columns as names, numbers as numbers ({cpu_ms:,} ms over {window_s} s).
    In VALUE, _ stands for a space (server=Redis_7.0.15)."""
    k, v = cond.split("=", 1)
    with open(os.path.join(data, file)) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if r[k].replace(" ", "_") == v:
                return " ".join(fmt).format(**{c: number(x) for c, x in r.items()})
    raise LookupError(f"no row of {file} with {cond}")


def number(text):
    """'950' -> 950, '16.38' -> 16.38 (kept as written by the format's
    default), anything else as it is."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        float(text)
        return Decimal(text)  # prints as written: 16.30 stays 16.30
    except ValueError:
        return text


def col_range(data, file, column, fmt="%.1f"):
    """The lowest and highest numbers of a TSV's column: "13.7 to 16.5"."""
    with open(os.path.join(data, file)) as f:
        values = [float(r[column]) for r in csv.DictReader(f, delimiter="\t") if r[column] not in ("", "-")]
    return f"{fmt % min(values)} to {fmt % max(values)}"


def row_int(data, file, *args):
    """row(), as a whole number with thousands separators: 1,234."""
    return f"{round(float(row(data, file, *args))):,}"


def cell(data, file, line, column, fmt="%s"):
    """A cell of a whitespace-separated table whose first line names the
    columns (in quotes, as gnuplot reads them): cell(FILE, ROW, COLUMN, FMT)."""
    with open(os.path.join(data, file)) as f:
        lines = [l.split() for l in f if l.strip()]
    names = [n.strip('"') for n in lines[0]]
    for r in lines[1:]:
        if r[0] == line:
            v = float(r[names.index(column)])
            # thousands, written whole with separators: 93.5350 -> 93,535
            return f"{round(v * 1000):,}" if fmt == "x1000" else fmt % v
    raise LookupError(f"no row {line} in {file}")


def field(data, file, name, n):
    """Field N (from 1) of the line of FILE whose first field is NAME (quoted
    or not); lines starting with # are comments."""
    with open(os.path.join(data, file)) as f:
        for line in f:
            parts = line.split()
            if parts and not line.startswith("#") and parts[0].strip('"') == name:
                return parts[int(n) - 1]
    raise LookupError(f"no line {name} in {file}")


QUOTES = {"held_at": held_at, "stale_peak": stale_peak, "stale_peak_of": stale_peak_of,
          "stale_peak_share": stale_peak_share, "stale_quantile": stale_quantile,
          "stale_median": stale_median, "first_at_most": first_at_most,
          "run_of": run_of, "row": row, "row_int": row_int, "rowf": rowf, "col_range": col_range, "cell": cell, "field": field}


def check_quotes(name, data):
    path = os.path.join(data, "quotes")
    if not os.path.exists(path):
        return 0
    n = 0
    for number, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        n += 1
        try:
            # TEXT may hold a |: DOC ends at the first, EXPR starts after the last
            doc, rest = line.split(" | ", 1)
            text, expr = rest.rsplit(" | ", 1)
            doc, text, expr = doc.strip(), text.strip(), expr.strip()
            func, *args = expr.split()
            got = QUOTES[func](data, *args)
        except Exception as e:  # a bad line is a failure, not a crash
            fail(f"{path}:{number}: cannot compute '{line}': {type(e).__name__}: {e}")
            continue
        if " ".join(got.split()) not in " ".join(text.split()):
            fail(f"{path}:{number}: {doc} quotes '{text}', but {expr} gives '{got}' from the data")
        with open(os.path.join(ROOT, doc)) as f:
            body = " ".join(f.read().split())  # a quote may span a line break
        if " ".join(text.split()) not in body:
            fail(f"{path}:{number}: {doc} should quote '{text}' ({expr}), and does not")
    return n


# ---- Drawing ---------------------------------------------------------------

# What turns a plot's script into bytes: gnuplot, and under its pngcairo
# terminal cairo, pango and the font. Where dpkg can say, their versions too.
RENDERING_PACKAGES = ["gnuplot-nox", "libcairo2", "libpango-1.0-0", "fonts-dejavu-core"]


def gnuplot_version():
    """The drawing tools here, one per line (gnuplot's version first), or
    None without gnuplot."""
    if not shutil.which("gnuplot"):
        return None
    lines = [subprocess.run(["gnuplot", "--version"], capture_output=True, text=True).stdout.strip()]
    if shutil.which("dpkg-query"):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] + RENDERING_PACKAGES,
                           capture_output=True, text=True)
        lines += sorted(r.stdout.split("\n")[:-1])
    return "\n".join(lines)


def draw(data, out):
    env = dict(os.environ, DIR=data, OUT=out)
    command = open(os.path.join(data, "command")).read()
    r = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        fail(f"{data}/command failed (exit {r.returncode}): {r.stderr.strip()[:300]}")
        return False
    return True


def main():
    write = sys.argv[1:] == ["--write"]
    os.chdir(ROOT)
    pngs = sorted(f[:-4] for f in os.listdir(IMG) if f.endswith(".png"))
    dirs = sorted(d for d in os.listdir(PLOTS) if os.path.isdir(os.path.join(PLOTS, d))) \
        if os.path.isdir(PLOTS) else []
    for name in pngs:
        if not os.path.exists(os.path.join(PLOTS, name, "command")):
            fail(f"{IMG}/{name}.png has no data: expected {PLOTS}/{name}/ with the figures and a file command")
    for name in dirs:
        if not os.path.exists(os.path.join(IMG, name + ".png")) and not write:
            fail(f"{PLOTS}/{name}/ draws no plot: expected {IMG}/{name}.png (run make pictures)")
    here = gnuplot_version()
    drawn_by = open(DRAWN_BY).read().strip() if os.path.exists(DRAWN_BY) else None
    compare = True
    if here is None:
        print("plots: skipped drawing the plots again: gnuplot is not installed (tests/tools/deps.sh installs it)")
        compare = False
    elif not write and here != drawn_by:
        print(f"plots: skipped comparing the plots with their data: they were drawn with "
              f"[{'; '.join((drawn_by or 'unknown').splitlines())}], this machine has "
              f"[{'; '.join(here.splitlines())}], which may draw other bytes (checking the quotes only)")
        compare = False
    scratch = tempfile.mkdtemp()
    redrawn = quotes = 0
    try:
        for name in dirs:
            data = os.path.join(PLOTS, name)
            quotes += check_quotes(name, data)
            if not compare or not os.path.exists(os.path.join(data, "command")):
                continue
            first, second = os.path.join(scratch, "first.png"), os.path.join(scratch, "second.png")
            for f in (first, second):
                if os.path.exists(f):
                    os.remove(f)
            if not (draw(data, first) and draw(data, second)):
                continue
            redrawn += 1
            if open(first, "rb").read() != open(second, "rb").read():
                fail(f"{data}/command draws different bytes each time: its plot cannot be checked")
            if write:
                shutil.copy(first, os.path.join(IMG, name + ".png"))
            elif open(first, "rb").read() != open(os.path.join(IMG, name + ".png"), "rb").read():
                fail(f"{IMG}/{name}.png is not what its data draw: {data}/command draws something else "
                     "now (the data or the drawing changed; run make pictures, and look at the plot)")
        if write and here:
            with open(DRAWN_BY, "w") as f:
                f.write(here + "\n")
    finally:
        shutil.rmtree(scratch)
    if not failed:
        verb = "redrew" if write else "checked"
        print(f"plots: {verb} {redrawn} of {len(pngs)} plots in {IMG} from their data in {PLOTS}, "
              f"and {quotes} figures the chapters quote from them")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
