#!/usr/bin/env python3
"""draw_replication.py -- chapter 09's two pictures, drawn from the exchange
recorded on the wire (docs/img/09-replication-capture.txt, written by
tests/tools/record_replication.py).

    draw_replication.py CAPTURE handshake   > docs/img/09-handshake.dot
    draw_replication.py CAPTURE key-life    > docs/img/09-key-life.dot

Each picture is a sequence diagram: a line down the page for each party,
one arrow a message, in the capture's order, top to bottom. The handshake
is the replica's and the master's messages from the start up to the
replica's first ACK after a write came down the stream; the key's life is
everything from the first client's command on, each command and its reply
as one arrow, without the stream's SELECT and the ACKs (the first picture
has them). What a message does on step 09's master is written beside it,
with the names of the code that does it; the .dot lists those names, and
tests/tools/pictures_check.sh looks them up in the code. The drawing
checks the capture as it goes: each ACK must be the offset the stream's
bytes add up to. Exits 1, saying why, on a capture it cannot draw.
"""
import re
import sys

STEP = "steps/09-replication"
MASTER_FILL, REPLICA_FILL, CLIENT_FILL = "#cfe2f3", "#fff2cc", "#f3f3f3"
STREAM_COLOUR, NOTE_COLOUR, DEADLINE_COLOUR = "#1c4587", "#555555", "#cc0000"
NOTES_WIDTH_PT = 300  # the notes column: wider than its longest line

# What step 09's master does with each message, by how it begins, and the
# code that does it (file, names), for the handshake's notes column.
MASTER_NOTES = [
    ("REPLCONF listening-port", "replconf_command(): the port, for INFO",
     "replication.c", "replconf_command"),
    ("REPLCONF capa", "replconf_command(): psync2 noted; eof not needed,\n"
     "the snapshot goes as $<len> from a file", "replication.c", "replconf_command"),
    ("PSYNC", "psync_command() -> sync_generic(): a new history,\n"
     "the backlog; start_snapshot_for_replicas(): a BGSAVE", "replication.c",
     "psync_command sync_generic start_snapshot_for_replicas"),
    ("+FULLRESYNC", "the id, and the offset at the fork", None, None),
    ("$", "send_snapshot(), when the BGSAVE child is done:\n"
     "the file, with no CRLF after it", "replication.c", "send_snapshot"),
    ("ping", "replication_cron(): a PING at its first turn", "replication.c", "replication_cron"),
    ("REPLCONF ACK", "replconf_command(): how far the replica is;\nno reply",
     "replication.c", "replconf_command"),
    ("SELECT", "feed_select(): after a full sync the stream\nnames its database first",
     "replication.c", "feed_select"),
    ("SET", "propagate_set(): a client's %s,\nwith its deadline as a time", "keyspace.c",
     "propagate_set"),
]

# The notes of the key's life: (who, message, reply, past the deadline)
# -> the note and the code that does it (file, names). None: any.
KEY_NOTES = [
    (("master", "DEBUG SET-ACTIVE-EXPIRE 0", None, None),
     "active expiry off: only a command\nthat names k deletes it", None, None),
    (("replica", "SET k v PXAT", None, None),
     "propagate_set(): the deadline\nas the master computed it", "keyspace.c", "propagate_set"),
    (("replica", "GET k", "$-1", True), "hidden: past its deadline,\nbut a replica never deletes",
     None, None),
    (("replica", "DBSIZE", ":1", True), "still counted: k is there\nuntil the master's DEL",
     None, None),
    (("master", "DBSIZE", ":1", True), "still held: no command\nhas named k yet", None, None),
    (("master", "GET k", "$-1", True), "expire_if_needed() finds k\noverdue, and deletes it",
     "expire.c", "expire_if_needed"),
    (("replica", "DEL k", None, None),
     "repl_propagate_expired(): the\nmaster's deletion, for the replica", "expire.c",
     "repl_propagate_expired"),
    (("replica", "DBSIZE", ":0", True), "removed by the DEL", None, None),
]


def key_note(who, text, reply, past):
    for (w, prefix, r, p), note, file, names in KEY_NOTES:
        if w == who and text.startswith(prefix) and r in (None, reply) and p in (None, past):
            return note, file, names
    return None, None, None


# Words of the protocol the pictures show, and the file of step 09 that
# speaks them: listed with the names, when a picture shows them.
WORD_HOMES = [
    ("replication.c", "listening-port"), ("replication.c", "psync2"),
    ("replication.c", "FULLRESYNC"), ("keyspace.c", "PXAT"), ("main.c", "set-active-expire"),
]


def fail(why):
    print("draw_replication.py: %s" % why, file=sys.stderr)
    sys.exit(1)


def read_capture(path):
    """The capture's messages, as (from, to, text), and its waits, as
    ("wait", None, text)."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^(\w+) -> (\w+): (.*)$", line)
            if m:
                out.append(m.groups())
            elif line.startswith("wait: "):
                out.append(("wait", None, line[6:]))
            else:
                fail("%s:%d: not a message: %s" % (path, n, line))
    return out


def resp_size(words):
    """The bytes of a command in RESP; each <msN> stands for 13 digits."""
    size = len("*%d\r\n" % len(words))
    for w in words:
        n = 13 if re.match(r"^<ms[0-9]+>$", w) else len(w.encode())
        size += len("$%d\r\n" % n) + n + 2
    return size


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def html(text, note=None):
    """An HTML label: the message, and a note under it in grey."""
    out = "<br/>".join(escape(t) for t in text.split("\n"))
    if note:
        out += '<br/><font color="%s" point-size="9">%s</font>' % (
            NOTE_COLOUR, "<br/>".join(escape(t) for t in note.split("\n")))
    return "<" + out + ">"


def column_text(text):
    """An HTML label for the notes column: every row's text flush left at
    the same place, in a cell of one width."""
    return ('<<table border="0" cellborder="0" cellpadding="0"><tr><td width="%d" align="left" '
            'balign="left">%s</td></tr></table>>' % (NOTES_WIDTH_PT, "<br/>".join(
                escape(t) for t in text.split("\n"))))


def note_for(notes, text):
    for prefix, note, file, names in notes:
        if text.startswith(prefix):
            return note, file, names
    return None, None, None


class Diagram:
    """A sequence diagram: columns of lifelines, and rows of arrows."""

    def __init__(self, name, title, columns):
        self.name, self.title, self.columns = name, title, columns  # [(id, label, fill)]
        self.rows, self.names = [], {}

    def name_shown(self, file, names):
        if file:
            self.names.setdefault(file, [])
            for n in names.split():
                if n not in self.names[file]:
                    self.names[file].append(n)

    def arrow(self, left, right, label, backwards=False, colour="black", side=None, note=None):
        """An arrow between two columns, from left to right unless
        backwards, with a note under its label; `side` is text for the
        column named "notes"."""
        for file, word in WORD_HOMES:
            if word.lower() in (w.lstrip("+-$:") for w in label.lower().split()):
                self.name_shown(file, word)
        self.rows.append(("arrow", left, right, label, backwards, colour, side, note))

    def band(self, label):
        self.rows.append(("band", label))

    def print(self, source):
        print("// Generated by tests/tools/draw_replication.py from %s:" % source)
        print("// do not edit; make pictures prints it again.")
        for file, names in self.names.items():
            print("// names in %s/%s: %s" % (STEP, file, " ".join(names)))
        print("digraph %s {" % self.name.replace("-", "_"))
        print('    graph [bgcolor=white, rankdir=TB, fontname=Helvetica, fontsize=11, '
              'fontcolor=black,\n           labelloc=t, nodesep=0.25, ranksep=0.12, newrank=true, '
              'splines=line,\n           label="%s"];' % self.title)
        print('    node [shape=point, width=0.02, height=0.02, color="#999999", label=""];')
        # Edges reach the centre of the rows' invisible boxes: the lifelines.
        print("    edge [fontname=Helvetica, fontsize=10, fontcolor=black, arrowsize=0.7, "
              "tailclip=false, headclip=false];")
        for col, label, fill in self.columns:
            if fill:
                print('    %s_0 [shape=box, style="rounded,filled", fillcolor="%s", color=black, '
                      'fontname=Helvetica, fontsize=10, width=1.6, label="%s"];'
                      % (col, fill, label))
            else:
                print('    %s_0 [shape=plaintext, fontname=Helvetica, fontsize=10, label="%s"];'
                      % (col, label))
        for i, row in enumerate(self.rows, 1):
            self.print_row(i, row)
        self.print_frame()
        print("}")

    def print_row(self, i, row):
        ids = ["%s_%d" % (col, i) for col, _, _ in self.columns]
        if row[0] == "band":
            for id_ in ids:
                print('    %s [shape=point, width=0.06, height=0.06, color="%s"];'
                      % (id_, DEADLINE_COLOUR))
            print("    {rank=same; %s}" % "; ".join(ids))
            middle = len(ids) // 2 - 1
            for j in range(len(ids) - 1):
                label = html(row[1]) if j == middle else '""'
                print('    %s -> %s [style=dashed, color="%s", arrowhead=none, fontcolor="%s", '
                      'label=%s];' % (ids[j], ids[j + 1], DEADLINE_COLOUR, DEADLINE_COLOUR, label))
            return
        _, left, right, label, backwards, colour, side, note = row
        cols = [col for col, _, _ in self.columns]
        # Each row as tall as its label, which dot draws above the arrow.
        lines = label.count("\n") + 1 + (note.count("\n") + 1 if note else 0)
        for id_ in ids:
            if not id_.startswith("notes_"):
                print("    %s [shape=box, style=invis, width=0.01, height=%.2f];"
                      % (id_, 0.16 * lines + 0.08))
        if "notes" in cols:
            print('    notes_%d [shape=plaintext, fontname=Helvetica, fontsize=9, fontcolor="%s", '
                  'label=%s];' % (i, NOTE_COLOUR, column_text(side or " ")))
        print("    {rank=same; %s}" % "; ".join(ids))
        # Invisible links keep the columns in their order on every row.
        print("    %s [style=invis];" % " -> ".join(ids))
        print('    %s_%d -> %s_%d [color="%s", fontcolor="%s", label=%s%s];'
              % (left, i, right, i, colour, colour, html(label, note),
                 ", dir=back" if backwards else ""))

    def print_frame(self):
        n = len(self.rows)
        for col, _, fill in self.columns:
            if col == "notes":
                print("    %s [style=invis];" % " -> ".join("notes_%d" % i for i in range(n + 1)))
                continue
            # One group, and heavy invisible links: the rows of a column in
            # line; then the lifeline, one straight line over them all.
            for i in range(n + 1):
                print("    %s_%d [group=%s];" % (col, i, col))
            print("    %s [style=invis, weight=100];"
                  % " -> ".join("%s_%d" % (col, i) for i in range(n + 1)))
            print('    %s_0 -> %s_%d [arrowhead=none, color="#999999", constraint=false, '
                  'tailclip=true];' % (col, col, n))
        print("    {rank=same; %s}" % "; ".join("%s_0" % col for col, _, _ in self.columns))
        print("    %s [style=invis];" % " -> ".join("%s_0" % col for col, _, _ in self.columns))


def reply_shown(reply):
    """A reply as redis-cli would print it, near enough."""
    if reply == "$-1":
        return "nil"
    if reply.startswith(":"):
        return reply[1:]
    return reply.lstrip("+")


def handshake(msgs, source):
    d = Diagram("handshake", "A redis-server 7.0.15 replica's first sync with step 09's master, "
                "as captured on the wire", [
                    ("replica", "replica\\nredis-server 7.0.15", REPLICA_FILL),
                    ("master", "master\\nstep 09", MASTER_FILL),
                    ("notes", "what step 09's master does", None)])
    offset, client_cmd, written, i = None, None, False, 0
    while i < len(msgs):
        src, dst, text = msgs[i]
        i += 1
        if src == "client":
            client_cmd = text if dst == "master" else client_cmd
            continue
        if "client" in (src, dst) or src == "wait":
            continue
        note, file, names = note_for(MASTER_NOTES, text)
        if note and "%s" in note:
            note = note % (client_cmd or "command")
        d.name_shown(file, names)
        if text.startswith("+FULLRESYNC"):
            offset = int(text.split()[-1])
        label, in_stream = text, False
        if src == "master" and text.startswith("$") and i < len(msgs) and \
                msgs[i][2].startswith("<snapshot"):
            label = "%s, then the %s" % (text, msgs[i][2].strip("<>").replace(", ", ",\n", 1))
            i += 1
        elif src == "master" and offset is not None and not text.startswith("+"):
            offset += resp_size(text.split())
            label, in_stream = "%s   (offset %d)" % (text, offset), True
            written = written or not text.split()[0] in ("ping", "SELECT")
        elif text.startswith("REPLCONF ACK"):
            if offset is None or int(text.split()[-1]) != offset:
                fail("%s: the stream adds up to offset %s, but the replica says %s"
                     % (source, offset, text))
        d.arrow("replica", "master", label, backwards=(src == "master"),
                colour=STREAM_COLOUR if in_stream else "black", side=note)
        if written and text.startswith("REPLCONF ACK"):
            return d
    fail("%s: no ACK after a write in the stream" % source)


def key_life(msgs, source):
    d = Diagram("key_life", "One key's life on both machines, as captured: "
                "the master deletes, the replica hides until the DEL", [
                    ("cm", "a client\\nof the master", CLIENT_FILL),
                    ("master", "master\\nstep 09", MASTER_FILL),
                    ("replica", "replica\\nredis-server 7.0.15", REPLICA_FILL),
                    ("cr", "a client\\nof the replica", CLIENT_FILL)])
    start = next((k for k, m in enumerate(msgs) if m[0] == "client"), None)
    if start is None:
        fail("%s: no client command" % source)
    k, past = start, False
    while k < len(msgs):
        src, dst, text = msgs[k]
        k += 1
        if src == "wait":
            d.band("the deadline passes:\nwait %s" % text)
            past = True
            continue
        if src == "client":
            if k >= len(msgs) or msgs[k][:2] != (dst, "client"):
                fail("%s: %s's command %r has no reply after it" % (source, dst, text))
            label = "%s  \u2192  %s" % (text, reply_shown(msgs[k][2]))
            note, file, names = key_note(dst, text, msgs[k][2], past)
            k += 1
            d.name_shown(file, names)
            if dst == "master":
                d.arrow("cm", "master", label, note=note)
            else:
                d.arrow("replica", "cr", label, backwards=True, note=note)
            continue
        if src != "master" or text.startswith("SELECT") or text == "ping":
            continue  # the ACKs, the SELECT: in the first picture
        note, file, names = key_note(dst, text, None, past)
        d.name_shown(file, names)
        d.arrow("master", "replica", text, colour=STREAM_COLOUR, note=note)
    return d


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("handshake", "key-life"):
        print("usage: draw_replication.py CAPTURE handshake|key-life", file=sys.stderr)
        return 1
    msgs = read_capture(sys.argv[1])
    d = (handshake if sys.argv[2] == "handshake" else key_life)(msgs, sys.argv[1])
    d.print(sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
