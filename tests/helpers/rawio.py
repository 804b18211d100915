#!/usr/bin/env python3
"""rawio.py -- send raw bytes to a server and print the raw reply.

redis-cli always sends well-formed multibulk requests, so tests of inline
requests, protocol errors and odd packetisation need a plain socket.

    rawio.py PORT [--expect N] [--bytewise] [--close-expected] < request
    rawio.py PORT [--expect N] -- ARG...   (a multibulk command; \\x00 style
                                            escapes in ARGs are decoded)
    rawio.py --redis-cli ARG...            (see "A redis-cli that ran out")

Reads the request bytes from stdin (or builds them from ARGs), sends them (all at once, or one byte per
send with --bytewise), then prints what the server sends back until it has N
bytes (--expect), or the server closes the connection, or the exchange's
bound runs out: EXCHANGE_TIMEOUT_S seconds from the connection's start, from
the environment (tests/helpers/expect.bash sets it), else DEFAULT_TIMEOUT_S.
With --close-expected the exit status is 0 only if the server closed the
connection (else 3); otherwise 0 means the expected bytes arrived (else 2).

An exchange that runs out is also written down, for the check that follows it
to report (expect.bash's fail_exchange): when BATS_TEST_TMPDIR is set (under
bats), four lines go to $BATS_TEST_TMPDIR/exchange-ran-out: what was sent,
the bytes received so far (escaped as expect.bash's visible() does), the
bound and a note.

A redis-cli that ran out: redis-cli waits for a whole reply and prints
nothing of a partial one, so when the bounded redis-cli of expect.bash runs
out, it calls `rawio.py --redis-cli` with its own arguments. This sends the
same request again, as redis-cli sent it (a multibulk of the arguments after
the options, and with -x the standard input that expect.bash kept), on a
new connection, and records what that received within
the bound, with a note saying so. With EXCHANGE_QUIET unset it also prints
the exchange, as sent:, expected: and received: lines, to stderr.
"""
import codecs
import os
import socket
import sys
import time

from resp_client import encode

DEFAULT_TIMEOUT_S = 10  # the same as expect.bash's EXCHANGE_TIMEOUT_S
RECORD_NAME = "exchange-ran-out"  # expect.bash reads it under the same name
# redis-cli's options that take a value (the rest take none).
CLI_OPTIONS_WITH_VALUE = {"-h", "-p", "-s", "-a", "-u", "-r", "-i", "-n", "-d", "-D", "-e",
                          "--user", "--pass", "--pipe-timeout", "--eval"}


def bound_s():
    return float(os.environ.get("EXCHANGE_TIMEOUT_S") or DEFAULT_TIMEOUT_S)


def visible(data):
    """data as expect.bash's visible() shows a reply: in double quotes, with
    \\ " CR LF TAB written out and any other byte outside printable ASCII as
    \\xHH."""
    named = {0x5C: "\\\\", 0x22: '\\"', 0x0D: "\\r", 0x0A: "\\n", 0x09: "\\t"}
    out = []
    for b in data:
        if b in named:
            out.append(named[b])
        elif 32 <= b < 127:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return '"%s"' % "".join(out)


def exchange(port, data, expect, bytewise, close_expected, timeout_s):
    """Send data, read until `expect` bytes came (or the close, with
    close_expected) or timeout_s passed since the start. Returns (bytes
    received, whether the server closed, whether the bound ran out)."""
    deadline = time.monotonic() + timeout_s
    got = b""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
    except socket.timeout:
        return got, False, True
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        if bytewise:
            for i in range(len(data)):
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                sock.sendall(data[i:i + 1])
                time.sleep(0.0005)
        else:
            sock.settimeout(timeout_s)
            sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server closed early (a protocol error): read what it sent
    except socket.timeout:
        return got, False, True  # the server stopped reading the request
    sock.settimeout(0.1)
    while time.monotonic() < deadline:
        if expect is not None and len(got) >= expect and not close_expected:
            return got, False, False
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return got, True, False
        if not chunk:
            return got, True, False
        got += chunk
    done = expect is not None and len(got) >= expect and not close_expected
    return got, False, not done


def record(sent, got, note):
    """Write down an exchange that ran out, for fail_exchange to report: four
    lines, what was sent (if the check's SENT does not say it), what was
    received, the bound in s, and a note."""
    tmp = os.environ.get("BATS_TEST_TMPDIR")
    if not tmp:
        return
    with open(os.path.join(tmp, RECORD_NAME), "a") as f:
        f.write("%s\n%s\n%g\n%s\n" % (sent, visible(got), bound_s(), note))


def shown_args(args):
    return " ".join(a if a and all(33 <= ord(c) < 127 and c not in "\"'\\$" for c in a)
                    else visible(a.encode()) for a in args)


def redis_cli_ran_out(argv):
    """`--redis-cli ARG...`: replay a bounded redis-cli call that ran out."""
    port, i, from_stdin, pipe = 6379, 0, False, False
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "-p":
            port = int(argv[i + 1])
        from_stdin |= argv[i] == "-x"
        pipe |= argv[i] == "--pipe"
        i += 2 if argv[i] in CLI_OPTIONS_WITH_VALUE else 1
    words = argv[i:]
    bound = bound_s()
    # As the checks write it (expect.bash's send): without the port and the
    # bound that the helpers add.
    shown, j = [], 0
    while j < len(argv):
        if j < i and argv[j] in ("-p", "--pipe-timeout"):
            j += 2
            continue
        shown.append(argv[j])
        j += 1
    sent = "redis-cli " + shown_args(shown)
    args = [w.encode() for w in words]
    if from_stdin and os.environ.get("REDIS_CLI_STDIN", "/dev/stdin") != "/dev/stdin":
        with open(os.environ["REDIS_CLI_STDIN"], "rb") as f:
            args.append(f.read())  # -x: the last argument is what stdin held
        from_stdin = False
    if pipe or from_stdin or not words:
        got = b""
        note = ("its request came from standard input, so it was not sent again "
                "to show the reply's bytes")
    else:
        got, _, _ = exchange(port, encode(args), None, False, False, bound)
        note = ("redis-cli shows nothing of a partial reply: shown is what the same request, "
                "sent again on a new connection, received in %g s" % bound)
    record(sent, got, note)
    if not os.environ.get("EXCHANGE_QUIET"):
        sys.stderr.write("sent:     %s\nexpected: a complete reply within %g s\n"
                         "received: %s (no complete reply within %g s)\n          (%s)\n"
                         % (sent, bound, visible(got), bound, note))


def main():
    if sys.argv[1:2] == ["--redis-cli"]:
        redis_cli_ran_out(sys.argv[2:])
        return
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
    got, closed, ran_out = exchange(port, data, expect, bytewise, close_expected, bound_s())
    sys.stdout.buffer.write(got)
    sys.stdout.flush()
    if ran_out and (close_expected or expect is not None):
        want = "the connection to close" if close_expected else "%d bytes" % expect
        record("", got,  # the check's own "sent:" line says what was sent
               "waited for %s; %d bytes came" % (want, len(got)))
    if close_expected:
        sys.exit(0 if closed else 3)
    if expect is not None and len(got) < expect:
        sys.exit(2)


if __name__ == "__main__":
    main()
