#!/usr/bin/env python3
"""transcripts.py -- replay every redis-cli session in docs/ against its step.

    transcripts.py [--pace SECONDS] BUILD_DIR [CHAPTER...]

A transcript is a fenced block whose info string is `console` and whose
command lines start with `$ redis-cli `; the lines after a command, up to the
next command, are what `redis-cli --no-raw` prints. All console blocks of
docs/NN-name.md are replayed in order against one build/NN-name/server;
every reply must match, except the positive numbers that TTL and PTTL print,
which may be lower by the time the replay has taken so far (plus one unit):
the clock moves while the chapter is replayed, and on a loaded machine a
second can pass between two commands. Prints one line per chapter and a
total; exits 1 on any difference.

A reader follows the chapters in order, often with a server left running, so
each chapter's session must start from an empty server. Where the step keeps
keys, its first command must be FLUSHALL, and the server is handed over with
every key the chapter names already set, as a reader's would be. An `sh`
block that counts keys (DBSIZE, INFO keyspace, EXISTS) must start with
`redis-cli FLUSHALL` too.

--pace SECONDS replays as a person types: that long between two commands,
except in a block whose paragraph before it says to paste it. A TTL or PTTL
may then be lower by the time that passed, never expired or missing. It is
slow (a few minutes), so make test does not run it.
"""
import atexit
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from ports import free_port  # noqa: E402  (the port policy of every test)

LOOSE = {"ttl": 1, "pttl": 1000}
UNITS = {"ttl": 1, "pttl": 1000}  # of a second
COUNTS_KEYS = re.compile(r"redis-cli\s+(DBSIZE|EXISTS|INFO\s+keyspace)\b", re.I)


def paragraph_before(lines, i):
    """The paragraph that ends just above line i, as one string."""
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    text = []
    while j >= 0 and lines[j].strip() and not lines[j].startswith("```"):
        text.insert(0, lines[j])
        j -= 1
    return " ".join(text)


def transcripts(path, with_text=False):
    """Yield (line_number, [(command_args, expected_lines)]) per console block,
    and with_text, the paragraph before the block as a third item."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            text = paragraph_before(lines, i)
            start, steps, i = i + 1, [], i + 1
            while i < len(lines) and lines[i].strip() != "```":
                line = lines[i]
                if line.startswith("$ redis-cli "):
                    steps.append((shlex.split(line[len("$ redis-cli "):]), []))
                elif steps:
                    steps[-1][1].append(line)
                else:
                    raise ValueError("%s:%d: output before any command" % (path, i + 1))
                i += 1
            yield (start, steps, text) if with_text else (start, steps)
        i += 1


def sh_blocks_unflushed(path):
    """Line numbers of sh blocks that count keys but do not start with
    `redis-cli FLUSHALL`."""
    lines = open(path, encoding="utf-8").read().split("\n")
    bad, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start, body, i = i + 1, [], i + 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            cli = [ln for ln in body if re.match(r"\s*redis-cli\b", ln)]
            if any(COUNTS_KEYS.search(ln) for ln in body) and \
                    not (cli and re.match(r"\s*redis-cli\s+FLUSHALL\b", cli[0], re.I)):
                bad.append(start)
        i += 1
    return bad


def matches(args, expected, got, drift=0.0):
    """drift: seconds since the chapter's replay began (a reader's typing, or
    a loaded machine); a positive TTL or PTTL may be that much lower, but
    still positive."""
    if expected == got:
        return True
    cmd = args[0].lower() if args else ""
    slack = LOOSE.get(cmd)
    m1 = re.fullmatch(r"\(integer\) (-?\d+)", "\n".join(expected))
    m2 = re.fullmatch(r"\(integer\) (-?\d+)", "\n".join(got))
    if not (slack and m1 and m2):
        return False
    want, have = int(m1.group(1)), int(m2.group(1))
    if want <= 0 or drift == 0:
        return abs(want - have) <= slack
    return 0 < have and want - slack - drift * UNITS[cmd] <= have <= want + slack


def cli(port, args):
    out = subprocess.run(["redis-cli", "--no-raw", "-p", str(port)] + args,
                         capture_output=True, text=True).stdout
    return out.rstrip("\n").split("\n")


def keeps_keys(port):
    return cli(port, ["SET", "transcripts:probe", "x"]) == ["OK"]


def leave_keys(port, blocks):
    """Set every key the chapter names, as an earlier session would have."""
    for _, steps, _ in blocks:
        for args, _ in steps:
            if len(args) >= 2 and args[0].upper() not in ("DEBUG", "FLUSHALL", "INFO"):
                cli(port, ["SET", args[1], "left by an earlier session"])


def start(server):
    """Start server on a free port; return (process, port) once it says it is
    ready and answers PING. Retries on another port if the first was taken."""
    for _ in range(5):
        port = free_port()
        log = tempfile.TemporaryFile()
        # In a directory of its own: from chapter 08 on, a server saves its
        # keys there when it stops, and loads them from there when it starts.
        # The directory goes when this script ends, after its servers.
        where = tempfile.mkdtemp(prefix="transcripts-")
        atexit.register(shutil.rmtree, where, True)
        proc = subprocess.Popen([os.path.abspath(server), "--port", str(port)], stdout=log,
                                stderr=log, cwd=where)
        for _ in range(200):
            if proc.poll() is not None:
                break
            log.seek(0)
            ready = b"ready to accept connections" in log.read()
            if ready and subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True,
                                        text=True).stdout.strip() == "PONG":
                return proc, port
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    raise RuntimeError("could not start " + server)


def replay(chapter, server, pace=0.0):
    proc, port = start(server)
    try:
        blocks = commands = 0
        problems = ["%s (sh block at line %d): counts keys, so it must start with redis-cli FLUSHALL"
                    % (chapter, n) for n in sh_blocks_unflushed(chapter)]
        all_blocks = list(transcripts(chapter, with_text=True))
        if keeps_keys(port):
            first = all_blocks[0][1][0][0] if all_blocks and all_blocks[0][1] else []
            if [a.upper() for a in first] != ["FLUSHALL"]:
                problems.append("%s: the session must start from an empty server: its first "
                                "command must be redis-cli FLUSHALL" % chapter)
            leave_keys(port, all_blocks)
        began = time.monotonic()
        for line_no, steps, text in all_blocks:
            blocks += 1
            pasted = "paste" in text.lower()
            for n, (args, expected) in enumerate(steps):
                if pace and n and not pasted:
                    time.sleep(pace)
                commands += 1
                got = cli(port, args)
                while expected and expected[-1] == "":
                    expected = expected[:-1]
                drift = time.monotonic() - began
                if not matches(args, expected, got, drift):
                    problems.append("%s (block at line %d): redis-cli %s\n    expected: %s\n    got:      %s"
                                    % (chapter, line_no, " ".join(args), expected, got))
        return blocks, commands, problems
    finally:
        proc.terminate()
        proc.wait()


def main():
    argv, pace = sys.argv[1:], 0.0
    if argv[:1] == ["--pace"]:
        pace, argv = float(argv[1]), argv[2:]
    build = argv[0]
    chapters = argv[1:] or sorted(glob.glob("docs/[0-9][0-9]-*.md"))
    total_blocks = total_commands = 0
    failed = False
    for chapter in chapters:
        prefix = os.path.basename(chapter)[:2]
        if not list(transcripts(chapter)):
            continue
        step = sorted(glob.glob("steps/%s-*/main.c" % prefix))
        if not step:
            # A starter repository has the chapter but not its step.
            print("transcripts %-32s skipped: no steps/%s-*" % (chapter, prefix))
            continue
        # The step's own build, by its name: build/ may still hold a step
        # that was renamed since, with the same number.
        steps = glob.glob(os.path.join(build, os.path.basename(os.path.dirname(step[0])), "server"))
        if not steps:
            print("transcripts %s: no server built for step %s" % (chapter, prefix))
            failed = True
            continue
        blocks, commands, problems = replay(chapter, steps[0], pace)
        total_blocks += blocks
        total_commands += commands
        print("transcripts %-32s %d blocks, %d commands, %d differences"
              % (chapter, blocks, commands, len(problems)))
        for p in problems:
            print("  " + p)
        failed = failed or bool(problems)
    print("%d transcripts (%d redis-cli commands) checked" % (total_blocks, total_commands))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
