#!/usr/bin/env python3
"""play_check.py -- the book's live consoles (tests/book/play/), in a real browser.

    play_check.py             build the book with its modules into $BUILD/book
                              (make book's three steps), then check, TAP
    play_check.py --no-build  the same on the book already there

Headless Chromium (book_check.py's client) loads every chapter page that has
a console, from disk, at 1400 px wide (the console docked beside the text)
and at 390 px (a phone: the console under the text), and for each:

  - the page loads with no script error, and its server starts (the time
    from navigation to a started server is printed);
  - every redis-cli transcript of the chapter (the ones transcripts.py
    replays) is typed into the page's console, line by line (at 1400 px), and each reply
    the console prints is compared with what redis-cli prints for the same
    command against the native server (build/NN-name/server), started fresh
    beside it and given the same commands; TTL and PTTL may differ by one
    unit, as transcripts.py allows;
  - in the chapters that expire keys, the experiment: pause the clock, type
    SET k v PX 500, press "+1 s", and see, through inspect() and the drawing:
      lazy expiry (04)      k is still held, past its deadline, and drawn so;
                            GET k answers (nil) and deletes it;
      active sampling (05)  a cycle sampled k and deleted it, and the drawing
                            shows that cycle; GET k answers (nil);
      timing wheel (06, 07) k sat in a slot of the wheel, drawn there, and
                            fired from it; GET k answers (nil);
  - the chapter's own experiment, as a reader starts it (02, 03: the table
    growing, a key unlinked; 07: a SET the table rejects; 08 on: SAVE and
    DEBUG RELOAD from the drawing's buttons; 04-06 below),
    while the page's frames are timed: it must never block the page for
    more than FRAME_GAP_LIMIT_MS. In 04-06, "10,000 keys with a 1 s TTL,
    nobody reads" then "+1 s" and "+100 ms": lazy expiry still holds all 10,000, the
    wheel none, the cycles fewer (the figures are printed);
  - from chapter 08 on, the snapshot in the page's in-memory files: SAVE
    writes dump.rdb there, BGSAVE fails as glue.c says (a browser has no
    fork()) and the console shows the server's log line and why, DEBUG
    RELOAD loads the keys back; in the transcripts, BGSAVE must answer the
    page's (error) ERR where the native server starts its child
    (PAGE_ANSWERS);
  - the first command of the chapter's ```play block, pressed, is typed into
    the console, and the console is in view (on a phone, moved under the block);
  - screenshots of the console and drawing, 1400 and 390 px wide (a phone),
    into $BUILD/play-screens/;
and each step's own page (play/NN-name.html) answers PING, and its console
works from the keyboard alone (typed text and Enter, the up arrow).

Skips, saying why, without emcc (no modules), chromium or pandoc, or
without the book's tools (a starter repository).
"""
import base64
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "tools"))
import transcripts  # noqa: E402
from book_check import BOOK, BUILD, Browser, Tap  # noqa: E402

SCREENS = BUILD / "play-screens"
MODULES = BUILD / "play"
START_TIMEOUT_S = 20     # a module instantiating in the page
ADVANCE_TIMEOUT_S = 10   # "+1 s" moving the clock over its frames
SCREEN_WIDTH, SCREEN_HEIGHT = 1400, 900  # the console docked beside the text
PHONE_WIDTH, PHONE_HEIGHT = 390, 844     # the console under the text
FRAME_GAP_LIMIT_MS = 500  # the longest the page may go without a frame during an experiment
EXPERIMENT_TIMEOUT_S = 60
# A redis-cli call against the native server takes a few ms, so a key set
# with PX 1 is past its deadline by the next line of a transcript. The page's
# clock runs in real time too, but it moves on the page's timer ticks, and a
# line typed over the DevTools protocol can come before the next tick (the
# sooner, the busier the machine): each line waits until the page's clock has
# moved this far past the line before it.
LINE_PACE_MS = 3

# Time the page's frames from now on: the longest gap between two.
WATCH_FRAMES = r"""(() => {
  window.playFrames = {last: performance.now(), worst: 0};
  const tick = (t) => {
    const f = window.playFrames;
    f.worst = Math.max(f.worst, t - f.last);
    f.last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()"""

# Type one line into the console as a reader does; return what it printed
# after echoing the line (the reply, as redis-cli would print it).
TYPE = r"""((line) => {
  const out = document.querySelector('#play .play-out');
  const before = out.childNodes.length;
  const input = document.querySelector('#play .play-in');
  input.value = line;
  document.querySelector('#play .play-form').requestSubmit();
  const printed = [...out.childNodes].slice(before + 1)
    .filter(n => !n.classList.contains('play-note')).map(n => n.textContent).join('');
  return printed.replace(/\n$/, '');
})(%s)"""


def cli_line(args):
    """Arguments as one line typed at redis-cli's prompt: plain words as they
    are, the others in double quotes with redis-cli's escapes."""
    def quote(a):
        if a and re.fullmatch(r"[^\s\"'\\]+", a):
            return a
        out = ""
        for ch in a:
            out += {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or (
                ch if " " <= ch <= "~" else "".join("\\x%02x" % b for b in ch.encode()))
        return '"%s"' % out
    return " ".join(quote(a) for a in args)


def chapter_pages():
    """(page, step, chapter .md) for each chapter page with a console."""
    out = []
    for page in sorted((BOOK / "docs").glob("[0-9][0-9]-*.html")):
        m = re.search(r'<aside id="play" class="play" data-step="([^"]+)"', page.read_text())
        if m:
            out.append((page, m.group(1), ROOT / "docs" / (page.stem + ".md")))
    return out


def wait_until(browser, expression, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = browser.evaluate(expression)
        if value:
            return value
        time.sleep(0.02)
    return None


def type_line(browser, line):
    return browser.evaluate(TYPE % json.dumps(line))


def pace(browser, last):
    """Wait until the page's clock is LINE_PACE_MS past `last`, the time the
    line before was typed at (None for the first), unless the clock is
    paused; return the time now, for the next line."""
    if last is not None and not browser.evaluate("window.playServer.paused()"):
        wait_until(browser, "window.playServer.now() >= %d" % (last + LINE_PACE_MS), ADVANCE_TIMEOUT_S)
    return browser.evaluate("window.playServer.now()")


# Replies whose shape the transcripts may not show, typed into every console
# and compared with redis-cli's output against the native server: nested and
# numbered arrays (an index column two digits wide), nil inside an array,
# escapes in a bulk string, a command redis-cli prints raw (CLIENT INFO),
# quoting in the typed line.
FORMAT_SAMPLES = [["COMMAND", "INFO", "get", "set"], ["COMMAND", "INFO", "nosuch"],
                  ["ECHO", "h\u00e9llo\n\t\"q\" \\"], ["CLIENT", "INFO"], ["PING", "a b"]]


# What a page's server cannot do as the native one does, and what it answers
# instead (tests/book/play/glue.c says why): BGSAVE forks a child that writes
# the snapshot, and a browser has no processes; the server answers as it does
# whenever fork() fails. In a transcript, the page must answer exactly this.
PAGE_ANSWERS = {"bgsave": (["(error) ERR"], "a browser has no fork(): the server answers as when fork() fails")}


def replay_transcripts(browser, md, server):
    """Every console block of md, then FORMAT_SAMPLES, typed into the page
    and sent to the native server; returns (commands, problems). A command
    of PAGE_ANSWERS must get the page's answer there, and is noted."""
    blocks = list(transcripts.transcripts(md))
    proc, port = transcripts.start(str(server))
    problems, count, last = [], 0, None
    try:
        # The same start as transcripts.py gives the native server: the keys
        # the chapter names left by an earlier session, when the step keeps keys.
        prelude = [["SET", "transcripts:probe", "x"]]
        if transcripts.cli(port, prelude[0]) == ["OK"]:
            prelude += [["SET", args[1], "left by an earlier session"] for _, steps in blocks for args, _ in steps
                        if len(args) >= 2 and args[0].upper() not in ("DEBUG", "FLUSHALL", "INFO")]
            for args in prelude[1:]:
                transcripts.cli(port, args)
        for args in prelude:
            browser.evaluate("window.playServer.commandArgs(%s)" % json.dumps(args))
        for line_no, steps in blocks:
            for args, _ in steps:
                count += 1
                last = pace(browser, last)
                page = type_line(browser, cli_line(args)).split("\n")
                native = transcripts.cli(port, args)
                differs = PAGE_ANSWERS.get(args[0].lower() if args else "")
                if differs:
                    if page != differs[0]:
                        problems.append("%s (block at line %d): typed %s\n      page:   %s\n      wanted: %s (%s)"
                                        % (md.name, line_no, cli_line(args), page, differs[0], differs[1]))
                    else:
                        print("# %s (block at line %d): %s answers %s in the page (%s); natively %s"
                              % (md.name, line_no, cli_line(args), differs[0][0], differs[1], native[0]))
                elif not transcripts.matches(args, native, page):
                    problems.append("%s (block at line %d): typed %s\n      native: %s\n      page:   %s"
                                    % (md.name, line_no, cli_line(args), native, page))
        for args in FORMAT_SAMPLES:
            count += 1
            page = type_line(browser, cli_line(args)).split("\n")
            native = transcripts.cli(port, args)
            if page != native:
                problems.append("typed %s\n      native: %s\n      page:   %s" % (cli_line(args), native, page))
    finally:
        proc.terminate()
        proc.wait()
    return count, problems


def inspect(browser):
    return browser.evaluate("window.playServer.inspect()")


def press_advance(browser, label):
    """Press one of the clock's buttons and wait until the clock has moved."""
    ms = {"+100 ms": 100, "+1 s": 1000, "+1 min": 60000}[label]
    before = browser.evaluate("window.playServer.now()")
    browser.evaluate("[...document.querySelectorAll('#play .play-clock button')].find(b => b.textContent === %s).click()"
                     % json.dumps(label))
    return wait_until(browser, "window.playServer.now() >= %d" % (before + ms), ADVANCE_TIMEOUT_S)


def drawing_text(browser):
    return browser.evaluate("document.querySelector('#play .play-figure').innerText")


def expiry_experiment(browser):
    """Pause, SET k v PX 500, +1 s, GET k: what the strategy did to k, seen
    in inspect() and in the drawing. Returns (strategy, problems), or
    (None, []) for a step that does not expire keys."""
    first = inspect(browser)
    if "ttl_keys" not in first:
        return None, []
    problems = []

    def want(cond, what):
        if not cond:
            problems.append(what)

    browser.evaluate("window.playServer.pause()")
    type_line(browser, "DEL k")
    want(type_line(browser, "SET k v PX 500") == "OK", "SET k v PX 500 did not answer OK")
    before = inspect(browser)
    want(any(k["key"] == "k" and not k["past"] for k in before["ttl_keys"]),
         "after SET k v PX 500, inspect() does not list k with a TTL: %s" % before["ttl_keys"][:5])
    slot = None
    drawn = browser.evaluate("!!document.querySelector('#play .play-slots')")  # 07 draws its FSM instead
    if "wheel" in before:
        slot = next(((lvl, s["slot"]) for lvl, slots in enumerate(before["wheel"]["levels"])
                     for s in slots if "k" in s["keys"]), None)
        want(slot is not None, "k is in no slot of the wheel: %s" % before["wheel"]["levels"][:3])
        if slot and drawn:
            title = "level %d, slot %d: " % slot
            want(browser.evaluate("[...document.querySelectorAll('#play .play-slots li')].some(li => "
                                  "li.title.startsWith(%s) && li.title.includes('k') && li.classList.contains('is-full'))"
                                  % json.dumps(title)),
                 "the drawing does not show k in level %d, slot %d" % slot)
    want(press_advance(browser, "+1 s"), "+1 s did not move the clock by 1 s")
    after = inspect(browser)
    text = drawing_text(browser)
    if "wheel" in after:
        strategy = "fired from its slot"
        want(after["keys"] == before["keys"] - 1 and after["expired_keys"] == before["expired_keys"] + 1,
             "k was not deleted: keys %d -> %d, expired_keys %d -> %d"
             % (before["keys"], after["keys"], before["expired_keys"], after["expired_keys"]))
        want(after["wheel"]["fired"] == before["wheel"]["fired"] + 1,
             "the wheel's fired count went %d -> %d" % (before["wheel"]["fired"], after["wheel"]["fired"]))
        if slot and drawn:
            # Straight from its slot, or cascaded down from it first.
            fired = re.search(r"level \d+ slot \d+ fired: k deleted", text)
            start = re.search(r"level %d slot %d (fired: k deleted|→ level \d+ slot \d+: k cascaded)" % slot, text)
            want(fired and start, "the drawing does not show k leaving level %d, slot %d and firing: %r"
                 % (slot + (text[:400],)))
        elif "set" in after and "snapshot" not in after:  # 08 on draw the snapshot instead
            want(browser.evaluate("document.querySelector('#play .play-fsm').innerText.includes('EXPIRY_NONE → EXPIRY_PX')"),
                 "the state machine's drawing does not show SET k v PX 500 going EXPIRY_NONE → EXPIRY_PX")
    elif "cycles" in after:
        strategy = "sampled away by a cycle"
        cycle = next((c for c in reversed(after["cycles"]) if any(s["key"] == "k" and s["expired"] for s in c["sample"])), None)
        want(cycle is not None, "no recorded cycle sampled k and deleted it: %s" % after["cycles"][-3:])
        want(not any(k["key"] == "k" for k in after["ttl_keys"]), "k is still held after the cycles")
        if cycle:
            want(browser.evaluate("[...document.querySelectorAll('#play .play-cycle.is-deleting')].some(c => "
                                  "c.textContent.includes('cycle %d') && c.querySelector('.is-expired') && "
                                  "c.querySelector('.is-expired').textContent.startsWith('k'))" % cycle["n"]),
                 "the drawing does not show cycle %d deleting k: %r" % (cycle["n"], text[:300]))
    else:
        strategy = "still held until read"
        want(any(k["key"] == "k" and k["past"] for k in after["ttl_keys"]) and after["past_deadline"] >= 1,
             "k is not held past its deadline: %s" % after["ttl_keys"][:5])
        want(browser.evaluate("[...document.querySelectorAll('#play .play-ttl li.is-past')].some(li => "
                              "li.textContent.startsWith('k ') && li.textContent.includes('still held'))"),
             "the drawing does not show k held past its deadline: %r" % text[:300])
    got = type_line(browser, "GET k")
    want(got == "(nil)", "GET k after its deadline answered %r, not (nil)" % got)
    final = inspect(browser)
    want(not any(k["key"] == "k" for k in final["ttl_keys"]), "k is still held after GET k")
    if strategy == "still held until read":
        want(final["expired_keys"] == after["expired_keys"] + 1, "GET k did not count k as expired")
        want("lazy expiry: GET k" in drawing_text(browser), "the drawing does not show GET k deleting k")
    browser.evaluate("window.playServer.resume()")
    return strategy, problems


def snapshot_experiment(browser):
    """From chapter 08 on: the snapshot in the page's in-memory files (glue.c).
    SAVE writes dump.rdb; BGSAVE fails for want of fork(), and the console
    shows the server's log line and why; DEBUG RELOAD saves, empties and
    loads the keys back. Returns (what, problems), or (None, []) for a step
    without a snapshot."""
    if "snapshot" not in inspect(browser):
        return None, []
    problems = []

    def want(cond, what):
        if not cond:
            problems.append(what)

    type_line(browser, "FLUSHALL")
    type_line(browser, "SET greeting hello")
    type_line(browser, "SET session:1 alice EX 3600")
    before = inspect(browser)["snapshot"]
    want(type_line(browser, "SAVE") == "OK", "SAVE did not answer OK")
    saved = inspect(browser)["snapshot"]
    want(saved["file_bytes"] > 0, "after SAVE, no %s in the page's files: %s" % (saved["dbfilename"], saved))
    want(saved["saves"] == before["saves"] + 1 and saved["changes_since_save"] == 0,
         "SAVE was not counted, or left changes unsaved: %s -> %s" % (before, saved))
    got = type_line(browser, "BGSAVE")
    want(got == "(error) ERR", "BGSAVE answered %r, not (error) ERR (glue.c: no fork() in a browser)" % got)
    shown = browser.evaluate("document.querySelector('#play .play-out').textContent")
    want("Can't save in background: fork: Function not implemented" in shown,
         "the console does not show the server's log line for the failed fork(): %r" % shown[-300:])
    want("a web page has no processes" in shown, "the console does not say why BGSAVE fails here: %r" % shown[-300:])
    want(not inspect(browser)["snapshot"]["last_bgsave_ok"], "the failed BGSAVE was not counted failed")
    want(type_line(browser, "DEBUG RELOAD") == "OK", "DEBUG RELOAD did not answer OK")
    loaded = inspect(browser)["snapshot"]
    want(loaded["loaded_keys"] == 2, "DEBUG RELOAD loaded %d keys, not 2" % loaded["loaded_keys"])
    want(type_line(browser, "GET greeting") == '"hello"', "after DEBUG RELOAD, GET greeting is not \"hello\"")
    ttl = type_line(browser, "TTL session:1")
    want(re.fullmatch(r"\(integer\) 3[56]\d\d", ttl) is not None, "after DEBUG RELOAD, TTL session:1 is %r" % ttl)
    return ("SAVE writes %s (%d bytes) into the page's memory; BGSAVE answers (error) ERR, the console saying "
            "why (no fork()); DEBUG RELOAD loads the 2 keys back" % (saved["dbfilename"], saved["file_bytes"])), problems


def click(browser, label):
    return browser.evaluate("(() => { const b = [...document.querySelectorAll('#play button')].find(b => b.textContent === %s);"
                            " if (b) b.click(); return !!b; })()" % json.dumps(label))


def chapter_experiment(browser):
    """The experiment a reader starts from the drawing's buttons; returns
    (description, problems), or (None, []) when the chapter has none here."""
    d = inspect(browser)
    browser.evaluate(WATCH_FRAMES)
    problems = []
    if "snapshot" in d:
        type_line(browser, "FLUSHALL")
        click(browser, "SET session:1 alice EX 3600")
        click(browser, "SAVE")
        saved = inspect(browser)["snapshot"]
        text = drawing_text(browser)
        if "%d B" % saved["file_bytes"] not in text or "SAVE: dump.rdb written whole" not in text:
            problems.append("after the drawing's SAVE, it does not show dump.rdb's %d bytes and the save: %r"
                            % (saved["file_bytes"], text[:300]))
        click(browser, "DEBUG RELOAD")
        loaded = inspect(browser)["snapshot"]["loaded_keys"]
        text = drawing_text(browser)
        if loaded != 1 or "loaded 1 key(s) back" not in text or "session:1 expires at" not in text:
            problems.append("after the drawing's DEBUG RELOAD (%d keys loaded), it does not show session:1 loaded back "
                            "with its deadline: %r" % (loaded, text[:300]))
        return ("the drawing's SAVE and DEBUG RELOAD: dump.rdb's size, and session:1 loaded back with its deadline",
                problems)
    if "set" in d:
        click(browser, "SET k v EX 10 PX 5")
        path = inspect(browser)["set"]
        ok = not path["accepted"] and path["outcome"] == "syntax error"
        return "SET k v EX 10 PX 5: the expiry machine rejects PX after EX, a syntax error", \
            [] if ok else ["the drawing's SET was not rejected: %s" % path]
    if "ttl_keys" in d:
        type_line(browser, "FLUSHALL")
        browser.evaluate("window.playServer.pause()")
        click(browser, "10,000 keys with a 1 s TTL, nobody reads")
        if not wait_until(browser, "document.querySelector('#play .play-status').textContent.startsWith('10,000 keys set')",
                          EXPERIMENT_TIMEOUT_S):
            return "10,000 keys", ["the experiment did not finish within %ds" % EXPERIMENT_TIMEOUT_S]
        held = inspect(browser)["with_ttl"]
        # A key set with PX 1000 is expired once the clock is past its
        # deadline, not at it: 1.1 s.
        press_advance(browser, "+1 s")
        press_advance(browser, "+100 ms")
        after = inspect(browser)
        worst = browser.evaluate("window.playFrames.worst")
        left = after["keys"]
        if held != 10000:
            problems.append("%d keys with a TTL after the experiment set 10,000" % held)
        if "wheel" in after and left != 0:
            problems.append("the wheel left %d expired keys in memory" % left)
        elif "cycles" in after and "wheel" not in after and left >= 10000:
            problems.append("the cycles deleted none of the 10,000 expired keys")
        elif "cycles" not in after and "wheel" not in after and after["past_deadline"] != 10000:
            problems.append("lazy expiry holds %d keys past their deadline, not 10,000" % after["past_deadline"])
        if worst > FRAME_GAP_LIMIT_MS:
            problems.append("the page went %.0f ms without a frame" % worst)
        return ("10,000 keys with a 1 s TTL, nobody reads, +1.1 s: %d of them still in memory; "
                "longest frame gap %.0f ms" % (left, worst)), problems
    if "dict" in d:
        type_line(browser, "FLUSHALL")
        for i in range(1, 6):
            type_line(browser, "SET key:%d v" % i)
        dct = inspect(browser)["dict"]
        if dct["tables"][0]["size"] + dct["tables"][1]["size"] <= 4:
            problems.append("the table did not grow: %s" % dct)
        if "rehash started: table[1] allocated with 8 buckets, growing from 4" not in drawing_text(browser):
            problems.append("the drawing does not show the rehash starting: %r" % drawing_text(browser)[:300])
        what = "five SETs into a 4-bucket table: the drawing shows it growing into 8"
        if browser.evaluate("[...document.querySelectorAll('#play button')].some(b => b.textContent.startsWith('Delete'))"):
            type_line(browser, "DEL key:2")
            if "key:2 unlinked from table[" not in drawing_text(browser):
                problems.append("after DEL key:2 the drawing does not show key:2 unlinked: %r" % drawing_text(browser)[:300])
            what += "; DEL key:2 unlinks it from its chain"
        return what, problems
    click(browser, "Pipelined: two commands in one read")
    got = browser.evaluate("document.querySelector('#play .play-out').textContent")
    return "two pipelined commands in one send", [] if got.rstrip().endswith('PONG\n"hi"') else [
        "the console shows %r after the pipelined send" % got[-80:]]


def play_buttons(browser, width):
    """A chapter's ```play block, as a reader uses it: its first command's
    button types the command into the console (on a phone, the console moves
    under the block first, in view). Returns (what, problems), or (None, [])
    for a chapter without one."""
    line = browser.evaluate(r"""(() => {
      const b = [...document.querySelectorAll('main .play-try button')].find(b => !b.classList.contains('is-experiment'));
      if (!b) return null;
      b.click();
      return b.textContent;
    })()""")
    if line is None:
        return None, []
    typed = wait_until(browser, "document.querySelector('#play .play-out').textContent.includes(%s)"
                       % json.dumps("redis> " + line + "\n"), ADVANCE_TIMEOUT_S)
    got = browser.evaluate(r"""(() => {
      const b = [...document.querySelectorAll('main .play-try button')].find(b => b.textContent === %s);
      const root = document.getElementById('play');
      const r = root.querySelector('.play-console').getBoundingClientRect();
      return {under: root.previousElementSibling === b.closest('.play-try'),
              inView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth,
              at: [Math.round(r.top), Math.round(r.bottom), innerHeight]};
    })()""" % json.dumps(line))
    got.update(line=line, typed=bool(typed))
    problems = []
    if not got["typed"]:
        problems.append("pressing the play block's %r did not type it into the console" % got["line"])
    if width < 1100 and not got["under"]:
        problems.append("at %d px the console did not move under the play block" % width)
    if not got["inView"]:
        problems.append("at %d px, after pressing %r, the console is not in view (top, bottom, window: %s)"
                        % (width, got["line"], got["at"]))
    return "the play block's %s types into the console, in view" % got["line"], problems


def screenshot(browser, path, width):
    browser.evaluate("document.getElementById('play').scrollIntoView()")
    time.sleep(0.3)
    path.write_bytes(base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"]))
    print("# screenshot %s" % os.path.relpath(path, ROOT))


def press(browser, key, code, keycode):
    for kind in ("keyDown", "keyUp"):
        browser.call("Input.dispatchKeyEvent", type=kind, key=key, code=code, windowsVirtualKeyCode=keycode,
                     **({"text": "\r"} if key == "Enter" and kind == "keyDown" else {}))


def keyboard(browser):
    """The console with the keyboard alone, as the browser delivers keys:
    typed text and Enter run a line, the up arrow recalls it. Returns problems."""
    browser.evaluate("document.querySelector('#play .play-in').focus()")
    browser.call("Input.insertText", text="ECHO typed")
    press(browser, "Enter", "Enter", 13)
    time.sleep(0.1)
    shown = browser.evaluate("document.querySelector('#play .play-out').textContent")
    press(browser, "ArrowUp", "ArrowUp", 38)
    recalled = browser.evaluate("document.querySelector('#play .play-in').value")
    problems = []
    if not shown.rstrip().endswith('redis> ECHO typed\n"typed"'):
        problems.append("typing ECHO typed and Enter printed %r" % shown[-60:])
    if recalled != "ECHO typed":
        problems.append("the up arrow recalled %r, not the last line" % recalled)
    return problems


def step_pages(browser, tap, steps):
    """Each step's own page (play/NN-name.html): it loads and its server answers."""
    problems = []
    for step in steps:
        page = BOOK / "play" / (step + ".html")
        if not page.is_file():
            problems.append("no %s" % page.relative_to(BOOK))
            continue
        errors = browser.load(page.as_uri())
        ready = wait_until(browser, "document.getElementById('play').dataset.ready === '1'", START_TIMEOUT_S)
        got = type_line(browser, "PING") if ready else "(not started)"
        problems += ["%s: %s" % (page.relative_to(BOOK), e) for e in errors]
        if got != "PONG":
            problems.append("%s: PING answered %r" % (page.relative_to(BOOK), got))
        if ready and step == steps[0]:
            problems += ["%s: %s" % (page.relative_to(BOOK), p) for p in keyboard(browser)]
    tap.check("%d step pages load and their servers answer PING; the console works with the keyboard alone"
              % len(steps), problems)


def build_book(tap):
    started = time.time()
    steps = [[sys.executable, str(ROOT / "tests/book/build.py"), str(BOOK)],
             ["bash", str(ROOT / "tests/book/play/build.sh"), str(MODULES)],
             [sys.executable, str(ROOT / "tests/book/play/pages.py"), str(BOOK), str(MODULES)]]
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            tap.check("make book builds the book and its modules", ["%s exited %d: %s" % (
                " ".join(cmd[1:2]), r.returncode, (r.stdout + r.stderr)[-800:])])
            return False
        for line in r.stdout.strip().splitlines():
            print("# " + line)
    tap.check("the book and its modules build (%.1fs)" % (time.time() - started), [])
    return True


def main():
    tap = Tap()
    if not (ROOT / "tests/book/play/build.sh").is_file():
        tap.skip("the live consoles in a browser", "no tests/book/play/ here (a starter repository has no book)")
        return tap.end()
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = [n for n, ok in (("emcc", shutil.which("emcc")), ("pandoc", shutil.which("pandoc")),
                               ("chromium", exe)) if not ok]
    if missing:
        tap.skip("the live consoles in a browser", "%s not installed (make deps installs them)" % " and ".join(missing))
        return tap.end()
    if "--no-build" not in sys.argv and not build_book(tap):
        return tap.end()
    pages = chapter_pages()
    have = {step for _, step, _ in pages}
    steps = sorted(p.name for p in (ROOT / "steps").iterdir() if (p / "main.c").is_file())
    chapters = sorted(p for p in (ROOT / "docs").glob("[0-9][0-9]-*.md") if not p.name.endswith("-table.md"))
    tap.check("every chapter whose step exists has a live console (%d)" % len(pages), [
        "%s has no console (did step %s compile? see make book's output)" % (md.relative_to(ROOT), s)
        for md in chapters for s in steps if s[:2] == md.name[:2] and s not in have])
    if not pages:
        return tap.end()
    SCREENS.mkdir(parents=True, exist_ok=True)
    browser = Browser(exe)
    try:
        for width in (SCREEN_WIDTH, PHONE_WIDTH):
            chapters_at(browser, tap, pages, width)
        browser.call("Emulation.setDeviceMetricsOverride", width=SCREEN_WIDTH, height=SCREEN_HEIGHT,
                     deviceScaleFactor=1, mobile=False)
        step_pages(browser, tap, [step for _, step, _ in pages])
    finally:
        browser.close()
    return tap.end()


def chapters_at(browser, tap, pages, width):
    """Every chapter's console at one width: at the wide one docked beside
    the text, at a phone's under it; the transcripts are typed at the wide one."""
    wide = width == SCREEN_WIDTH
    browser.call("Emulation.setDeviceMetricsOverride", width=width, height=SCREEN_HEIGHT if wide else PHONE_HEIGHT,
                 deviceScaleFactor=1, mobile=not wide)
    for page, step, md in pages:
        name = "%s at %d px" % (page.relative_to(BOOK), width)
        errors = browser.load(page.as_uri())
        ready = wait_until(browser, "document.getElementById('play').dataset.ready === '1'", START_TIMEOUT_S)
        load_ms = browser.evaluate("Number(document.getElementById('play').dataset.readyMs)") if ready else 0
        size = (BOOK / "play" / (step + ".js")).stat().st_size
        tap.check("%s: loads, and step %s's server starts (%.0f ms from navigation; module %d KB)"
                  % (name, step, load_ms, size // 1024),
                  errors + ([] if ready else ["the server did not start within %ds" % START_TIMEOUT_S]))
        if not ready:
            continue
        server = BUILD / step / "server"
        if wide and not server.is_file():
            tap.check("%s: transcripts" % name, ["no native server %s: run make first" % server.relative_to(ROOT)])
        elif wide:
            count, problems = replay_transcripts(browser, md, server)
            if count:
                tap.check("%s: %d commands (its transcripts, then %d of redis-cli's formats) typed into the console "
                          "print as redis-cli does against the native server" % (name, count, len(FORMAT_SAMPLES)), problems)
        strategy, problems = expiry_experiment(browser)
        if strategy:
            tap.check("%s: pause, SET k v PX 500, +1 s: k %s, inspect() and the drawing agree; GET k is (nil)"
                      % (name, strategy), problems)
        what, problems = snapshot_experiment(browser)
        if what:
            tap.check("%s: %s" % (name, what), problems)
        what, problems = chapter_experiment(browser)
        tap.check("%s: %s" % (name, what), problems)
        what, problems = play_buttons(browser, width)
        if what:
            tap.check("%s: %s" % (name, what), problems)
        browser.call("Runtime.evaluate", expression="1")  # drains the events sent before it
        tap.check("%s: no script error while it was used" % name, [
            "script error: %s" % ev["params"]["exceptionDetails"].get("exception", {}).get("description", ev["params"]["exceptionDetails"]["text"])
            for ev in browser.events if ev["method"] == "Runtime.exceptionThrown"])
        screenshot(browser, SCREENS / (step + ("" if wide else "-phone") + ".png"), width)
        browser.load("about:blank")


if __name__ == "__main__":
    sys.exit(main())
