#!/usr/bin/env python3
"""transcripts.py -- replay every redis-cli session in docs/ against its step.

    transcripts.py BUILD_DIR [CHAPTER...]

A transcript is a fenced block whose info string is `console` and whose
command lines start with `$ redis-cli `; the lines after a command, up to the
next command, are what `redis-cli --no-raw` prints. All console blocks of
docs/NN-name.md are replayed in order against one fresh build/NN-name/server;
every reply must match, except the numbers that TTL and PTTL print, which may
be one unit off (the clock moves while the chapter is replayed). Prints one
line per chapter and a total; exits 1 on any difference.
"""
import glob
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time

LOOSE = {"ttl": 1, "pttl": 1000}


def free_port():
    for _ in range(50):
        port = random.randint(20000, 60000)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port")


def transcripts(path):
    """Yield (line_number, [(command_args, expected_lines)]) per console block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
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
            yield start, steps
        i += 1


def matches(args, expected, got):
    if expected == got:
        return True
    slack = LOOSE.get(args[0].lower()) if args else None
    m1 = re.fullmatch(r"\(integer\) (-?\d+)", "\n".join(expected))
    m2 = re.fullmatch(r"\(integer\) (-?\d+)", "\n".join(got))
    return bool(slack and m1 and m2 and abs(int(m1.group(1)) - int(m2.group(1))) <= slack)


def start(server):
    """Start server on a free port; return (process, port) once it says it is
    ready and answers PING. Retries on another port if the first was taken."""
    for _ in range(5):
        port = free_port()
        log = tempfile.TemporaryFile()
        proc = subprocess.Popen([server, "--port", str(port)], stdout=log, stderr=log)
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


def replay(chapter, server):
    proc, port = start(server)
    try:
        blocks = commands = 0
        problems = []
        for line_no, steps in transcripts(chapter):
            blocks += 1
            for args, expected in steps:
                commands += 1
                out = subprocess.run(["redis-cli", "--no-raw", "-p", str(port)] + args,
                                     capture_output=True, text=True).stdout
                got = out.rstrip("\n").split("\n")
                while expected and expected[-1] == "":
                    expected = expected[:-1]
                if not matches(args, expected, got):
                    problems.append("%s (block at line %d): redis-cli %s\n    expected: %s\n    got:      %s"
                                    % (chapter, line_no, " ".join(args), expected, got))
        return blocks, commands, problems
    finally:
        proc.terminate()
        proc.wait()


def main():
    build = sys.argv[1]
    chapters = sys.argv[2:] or sorted(glob.glob("docs/[0-9][0-9]-*.md"))
    total_blocks = total_commands = 0
    failed = False
    for chapter in chapters:
        prefix = os.path.basename(chapter)[:2]
        steps = glob.glob(os.path.join(build, prefix + "-*", "server"))
        if not list(transcripts(chapter)):
            continue
        if not glob.glob("steps/%s-*/main.c" % prefix):
            # A starter repository has the chapter but not its step.
            print("transcripts %-32s skipped: no steps/%s-*" % (chapter, prefix))
            continue
        if not steps:
            print("transcripts %s: no server built for step %s" % (chapter, prefix))
            failed = True
            continue
        blocks, commands, problems = replay(chapter, steps[0])
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
