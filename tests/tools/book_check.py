#!/usr/bin/env python3
"""book_check.py -- the book (make book), read in a real browser.

    book_check.py            build the book into $BUILD/book (default build/),
                             load every page in headless Chromium, print TAP
    book_check.py --no-build the same on the book already there

Chromium runs once, headless, driven over its DevTools protocol by the small
client below (a WebSocket over a TCP socket: the standard library has none,
and --dump-dom cannot see script errors or images that failed to load). Each
page is loaded from disk (file://), and after its load event the page is
asked for its links, ids, images and main text; script exceptions, console
errors and failed loads are the protocol's events. Then, TAP:

  - every page loads without a script error or a failed load
  - every page's <main> has text
  - every href and src names a file that exists
  - every #anchor names an id in its target page
  - every image is drawn (naturalWidth > 0)
  - every chapter has a table of contents, previous/next links and a link
    to its diff page in its walk-through section
  - every excerpt's link lands on a source line that reads as the excerpt's
    first line
  - at 1400 px wide (as every page is loaded): no chapter's code block
    scrolls sideways (scrollWidth > clientWidth), and every picture's
    smallest text is 11 px or more as laid out: for an SVG, its smallest
    font-size times its drawn width over its viewBox's width; for a plot
    (PNG), the font its script gives gnuplot's pngcairo, in pixels
    (4/3 of its points), times its drawn width over its own
  - at 390 and 1400 px no page is wider than the window (only code scrolls)
  - the diff pages: a new or deleted file is shown line by line, across the
    width; no line of code is cut off at 390 or 1400 px (they wrap)
  - in each chapter with a live console (tests/book/play/), at 1400x900
    scrolled to the middle of its concepts, the console is in view; at
    390 px its first "Try it here" button brings the console into view
  - screenshots of chapters 02, 05 and 06 (the top, and the middle of the
    concepts) and of diff page 06, at 390 and 1400 px wide, into
    $BUILD/book-screens/

Without pandoc or chromium it prints one skipped test saying which.
"""
import base64
import json
import re
import os
import pathlib
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("BUILD", ROOT / "build"))
if not BUILD.is_absolute():
    BUILD = ROOT / BUILD
BOOK = BUILD / "book"
SCREENS = BUILD / "book-screens"


# ---- A WebSocket client, enough for the DevTools protocol -----------------------
class WebSocket:
    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           % (u.path, u.hostname, u.port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("the browser closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError("no WebSocket upgrade: %r" % head[:200])

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the browser closed the connection")
            buf += chunk
        return buf

    def send(self, text):
        """One masked text frame, as a client must send."""
        data = text.encode()
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self):
        """The next whole text message (fragments joined; pings answered)."""
        parts = []
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._exact(8))[0]
            payload = self._exact(n)
            op = b0 & 0x0F
            if op == 8:
                raise ConnectionError("the browser closed the WebSocket")
            if op == 9:
                # a pong, masked with zeros (short: pings carry at most 125 bytes)
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            if op in (0, 1, 2):
                parts.append(payload)
                if b0 & 0x80:
                    return b"".join(parts).decode()


class Browser:
    """Headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="book-chromium-")
        args = [exe, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--remote-debugging-port=0",
                "--user-data-dir=" + self.profile, "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = pathlib.Path(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (port_file.is_file() and port_file.read_text().count("\n") >= 1):
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start (no DevToolsActivePort)")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = WebSocket(page["webSocketDebuggerUrl"])
        self.next_id, self.events = 0, []
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")

    def call(self, method, **params):
        self.next_id += 1
        me = self.next_id
        self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == me:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_for(self, method, timeout=15):
        deadline = time.time() + timeout
        self.ws.sock.settimeout(timeout)
        while time.time() < deadline:
            for i, ev in enumerate(self.events):
                if ev["method"] == method:
                    del self.events[i]
                    return ev
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self.events.append(msg)
        raise TimeoutError("no %s within %ds" % (method, timeout))

    def load(self, url, timeout=15):
        """Navigate and wait for the load event; return the errors seen meanwhile."""
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired", timeout)
        self.call("Runtime.evaluate", expression="1")  # drains events sent before it
        errors = []
        for ev in self.events:
            p = ev["params"]
            if ev["method"] == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                errors.append("script error: %s" % d.get("exception", {}).get("description", d.get("text")))
            elif ev["method"] == "Runtime.consoleAPICalled" and p["type"] == "error":
                errors.append("console.error: %s" % " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif ev["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                errors.append("%s %s" % (p["entry"]["text"], p["entry"].get("url", "")))
        return errors

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def size(self, width, height):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=width < 600)

    def wait_until(self, expression, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.evaluate(expression):
                return True
            time.sleep(0.05)
        return False

    def screenshot(self, url, width, height, path, anchor=None, scroll=None):
        """A PNG of url at width x height, scrolled to anchor's element or by
        the script scroll, once a live server in the page has started."""
        self.size(width, height)
        self.load(url, SLOW_LOAD_S)  # not url#anchor: from the same page that would fire no load event
        self.wait_until(SERVER_READY, LIVE_START_S)
        if anchor:
            self.evaluate("document.getElementById(%s).scrollIntoView()" % json.dumps(anchor))
        if scroll:
            self.evaluate(scroll)
        time.sleep(0.3)
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        self.call("Emulation.clearDeviceMetricsOverride")

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


# A page's live server (tests/book/play/) has started, or the page has none.
SERVER_READY = "!document.getElementById('play') || document.getElementById('play').dataset.ready === '1' || typeof RedisPlayground === 'undefined'"
LIVE_START_S = 20
SLOW_LOAD_S = 60  # a page loaded for a measurement or a picture, on a busy machine
WIDE, NARROW, HEIGHT, PHONE_HEIGHT = 1400, 390, 900, 844
MIN_TEXT_PX = 11
# A plot's text: gnuplot's pngcairo draws a font of N points N * 4/3 pixels
# high at the PNG's own size (measured: DejaVu Sans at 10 points, capital H
# 10 px tall, so a 13.7 px em); the plots name their font in their scripts.
PNGCAIRO_PX_PER_PT = 4 / 3


def svg_text_px(path):
    """(smallest font-size of any <text>, viewBox width) of an SVG, in its
    user units, font-size inherited from the enclosing elements."""
    import xml.etree.ElementTree as ET
    svg = ET.parse(path).getroot()
    vb = [float(x) for x in (svg.get("viewBox") or "0 0 %s 0" % re.sub(r"[a-z]+$", "", svg.get("width", "0"))).split()]
    smallest = []

    def walk(e, size):
        style = re.search(r"font-size:\s*([\d.]+)", e.get("style", ""))
        size = float(style.group(1)) if style else float(e.get("font-size", size))
        if e.tag.endswith("}text") or e.tag == "text":
            smallest.append(size)
        for c in e:
            walk(c, size)
    walk(svg, 16)
    return (min(smallest) if smallest else None), vb[2]


def plot_font_pt(png):
    """The font size a plot's script gives gnuplot's pngcairo terminal: the
    script is the command in docs/plots/NAME/ (docs/scripts/ or tests/bench/)."""
    texts = []
    cmd = ROOT / "docs" / "plots" / png.stem / "command"
    if cmd.is_file():
        texts.append(cmd.read_text())
        texts += [(ROOT / f).read_text() for f in re.findall(r"\b((?:docs/scripts|tests/bench)/[\w.-]+)", texts[0])
                  if (ROOT / f).is_file()]
    sizes = [float(s) for text in texts for s in re.findall(r"pngcairo[^\n]*font '[^',]*,(\d+(?:\.\d+)?)'", text)]
    return min(sizes) if sizes else None


# The chapters whose pages (and the last one's diff page) are photographed.
SCREEN_CHAPTERS = ("02", "05", "06")
# Scroll to the middle of the chapter's concepts section (from its heading
# to the next ## heading), as a reader reading them would be.
MID_CONCEPTS = r"""(() => {
  const h = document.getElementById('the-concepts');
  if (!h) return false;
  let end = h.nextElementSibling;
  while (end && end.tagName !== 'H2') end = end.nextElementSibling;
  const top = h.getBoundingClientRect().top + scrollY;
  const bottom = end ? end.getBoundingClientRect().top + scrollY : document.body.scrollHeight;
  scrollTo(0, (top + bottom) / 2 - innerHeight / 2);
  return true;
})()"""
# Press the first "Try it here" of the concepts (on a phone: the console moves there).
TRY_IT_HERE = r"""(() => {
  const b = document.querySelector('.play-here button');
  if (!b) return false;
  b.click();
  return true;
})()"""
# After the script %s (scrolling or pressing), is the page's console in view?
IN_VIEW = r"""(() => {
  const went = %s;
  const c = document.querySelector('#play .play-console');
  if (!went || !c) return {went, console: !!c};
  const r = c.getBoundingClientRect();
  return {went, console: true, top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left),
          right: Math.round(r.right), scrollY: Math.round(scrollY),
          inView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth};
})()"""


# What a page says about itself once loaded, after its scripts ran.
PAGE_FACTS = r"""(() => {
  const main = document.querySelector('main');
  const excerpts = [...document.querySelectorAll('p.excerpt-src')].map(p => {
    let code = p.nextElementSibling;
    const lines = code ? [...code.querySelectorAll('code > span')].map(s => s.textContent) : [];
    return {href: p.querySelector('a').href, first: lines.find(l => l.trim() !== '...' && l.trim() !== '') || null};
  });
  return {
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    srcs: [...document.querySelectorAll('[src], link[href]')].map(e => e.src || e.href),
    ids: [...document.querySelectorAll('[id]')].map(e => e.id)
         .concat([...document.querySelectorAll('a[name]')].map(e => e.name)),
    images: [...document.images].map(i => ({src: i.src, drawn: i.complete && i.naturalWidth > 0,
                                            width: i.getBoundingClientRect().width, natural: i.naturalWidth})),
    // code blocks wider than their box (a horizontal scroll bar), at the width loaded
    overflow: [...document.querySelectorAll('main pre, main div.sourceCode')].filter(p => p.scrollWidth > p.clientWidth + 1)
              .map(p => ({first: (p.textContent.split('\n').find(l => l.length > 60) || p.textContent).slice(0, 60),
                          need: p.scrollWidth, have: p.clientWidth})),
    // diff pages: code lines cut off (they wrap), and a new or deleted file
    // drawn side by side (half of it empty) where it should span the width
    diffCut: [...document.querySelectorAll('.d2h-code-line-ctn')].filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1).length,
    diffHalf: [...document.querySelectorAll('#diff .d2h-file-wrapper')].filter(w => w.querySelector('.d2h-files-diff')
              && w.querySelector('.d2h-added-tag, .d2h-deleted-tag')).map(w => (w.querySelector('.d2h-file-name') || {}).textContent),
    // prose wider than the page (only code may scroll)
    pageWide: document.documentElement.scrollWidth > window.innerWidth + 1 ? document.documentElement.scrollWidth : 0,
    text: main ? main.innerText.trim().length : 0,
    // markdown that was not rendered: "](" or "![" in the prose, outside code
    leftover: main ? (() => { const m = main.cloneNode(true);
                              m.querySelectorAll('pre, code').forEach(e => e.remove());
                              return (m.textContent.match(/.{0,40}(\]\(|!\[).{0,40}/g) || []); })() : [],
    hasMain: !!main,
    toc: !!document.querySelector('#toc li a'),
    prev: !!document.querySelector('.bar a.prev'), next: !!document.querySelector('.bar a.next'),
    diffLink: (document.querySelector('p.diff-link a') || {}).href || null,
    diffLinkAfter: (() => { const p = document.querySelector('p.diff-link');
                            const h = p && p.previousElementSibling; return h ? h.id : null; })(),
    // The walk-through heading, as tests/book/build.py finds it: the one over
    // "Files this chapter changes:", else the first "Walking through ...".
    walkthrough: (() => {
      let h = [...document.querySelectorAll('p')].find(p => p.textContent.startsWith('Files this chapter changes:'));
      while (h && h.tagName !== 'H2') h = h.previousElementSibling;
      h = h || [...document.querySelectorAll('h2')].find(h => h.textContent.startsWith('Walking through'));
      return h ? h.id : null; })(),
    excerpts,
    lines: Object.fromEntries([...document.querySelectorAll('code > span[id^="L"]')].map(s => [s.id, s.textContent])),
  };
})()"""


# ---- TAP -----------------------------------------------------------------------
class Tap:
    def __init__(self):
        self.n = self.passed = self.failed = self.skipped = 0

    def check(self, name, problems, limit=15):
        self.n += 1
        if problems:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name))
            for p in problems[:limit]:
                print("#   %s" % p)
            if len(problems) > limit:
                print("#   ... and %d more" % (len(problems) - limit))
        else:
            self.passed += 1
            print("ok %d - %s" % (self.n, name))

    def skip(self, name, why):
        self.n += 1
        self.skipped += 1
        print("ok %d - %s # skip %s" % (self.n, name, why))

    def end(self):
        print("1..%d" % self.n)
        print("%d passed, %d failed%s" % (self.passed, self.failed,
                                          ", %d skipped" % self.skipped if self.skipped else ""))
        return 1 if self.failed else 0


def file_of(url):
    """(path, fragment) of a file:// URL, or None for any other scheme."""
    u = urllib.parse.urlparse(url)
    if u.scheme != "file":
        return None
    return pathlib.Path(urllib.parse.unquote(u.path)), urllib.parse.unquote(u.fragment)


def main():
    tap = Tap()
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = [n for n, ok in (("pandoc", shutil.which("pandoc")), ("chromium", exe)) if not ok]
    if missing:
        tap.skip("the book in a browser", "%s not installed (make deps installs what the book needs)" % " and ".join(missing))
        return tap.end()
    started = time.time()
    if "--no-build" not in sys.argv:
        build = subprocess.run([sys.executable, str(ROOT / "tests/book/build.py"), str(BOOK)],
                               capture_output=True, text=True)
        tap.check("make book builds the book (%.1fs)" % (time.time() - started),
                  [] if build.returncode == 0 and (BOOK / "index.html").is_file() else
                  ["build.py exited %d: %s" % (build.returncode, (build.stdout + build.stderr)[-800:])])
        if build.returncode != 0:
            return tap.end()
        print("# " + build.stdout.strip().replace("\n", "\n# "))
    pages = sorted(p for p in BOOK.rglob("*.html"))
    browser = Browser(exe)
    facts, errors, docked, narrow = {}, [], {}, {}
    try:
        browser.size(WIDE, HEIGHT)  # as laid out at 1400 px: code, pictures
        for p in pages:
            try:
                errs = browser.load(p.as_uri(), SLOW_LOAD_S)
                facts[p] = browser.evaluate(PAGE_FACTS)
            except (TimeoutError, RuntimeError) as e:
                errs = ["did not load: %s" % e]
            errors += ["%s: %s" % (p.relative_to(BOOK), e) for e in errs]
        for p in sorted(BOOK.glob("docs/[0-9][0-9]-*.html")):
            if 'id="play"' not in p.read_text():
                continue
            browser.load(p.as_uri(), SLOW_LOAD_S)
            browser.wait_until(SERVER_READY, LIVE_START_S)
            docked[p] = browser.evaluate(IN_VIEW % MID_CONCEPTS)
        browser.size(NARROW, PHONE_HEIGHT)
        for p in sorted(BOOK.glob("docs/*.html")) + [BOOK / "index.html"] + sorted(BOOK.glob("diff/*.html")):
            browser.load(p.as_uri(), SLOW_LOAD_S)
            narrow[p] = {"pageWide": browser.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1 ? "
                                                      "document.documentElement.scrollWidth : 0")}
            if p.parent.name == "diff":
                narrow[p]["diffCut"] = browser.evaluate(PAGE_FACTS)["diffCut"]
            if 'id="play"' in p.read_text():
                browser.wait_until(SERVER_READY, LIVE_START_S)
                narrow[p]["tryIt"] = browser.evaluate(IN_VIEW % TRY_IT_HERE)
        SCREENS.mkdir(parents=True, exist_ok=True)
        shots = []
        wanted = []
        for num in SCREEN_CHAPTERS:
            for page in sorted(BOOK.glob("docs/%s-*.html" % num)):
                if not page.name.endswith("-table.html"):
                    wanted += [(page, None, None), (page, "concepts", MID_CONCEPTS)]
            wanted.append((BOOK / "diff" / ("%s.html" % num), None, None) if num == SCREEN_CHAPTERS[-1] else None)
        for page, label, scroll in filter(None, wanted):
            for width, height in ((NARROW, PHONE_HEIGHT), (WIDE, HEIGHT)):
                name = "%s%s-%d.png" % (str(page.relative_to(BOOK)).replace("/", "-")[:-5], "-" + label if label else "", width)
                if page.is_file():
                    browser.screenshot(page.as_uri(), width, height, SCREENS / name, scroll=scroll)
                    shots.append(SCREENS / name)
    finally:
        browser.close()

    def rel(p):
        return str(p.relative_to(BOOK)) if str(p).startswith(str(BOOK) + "/") else os.path.relpath(p, ROOT)

    tap.check("%d pages load in Chromium with no script error and no failed load" % len(pages), errors)
    tap.check("every page's <main> has text", ["%s: no <main>, or it is empty" % rel(p) for p in pages
                                                if p not in facts or not facts[p]["hasMain"] or facts[p]["text"] == 0])
    missing, anchors, external, checked, anchored = [], [], set(), 0, 0
    for p, f in facts.items():
        for url in f["links"] + f["srcs"]:
            target = file_of(url)
            if target is None:
                external.add(url)
                continue
            checked += 1
            path, frag = target
            if not path.is_file():
                missing.append("%s links to %s: no such file" % (rel(p), rel(path)))
            elif frag and path.suffix == ".html":
                anchored += 1
                if path not in facts:
                    anchors.append("%s links to %s#%s: that page was not loaded" % (rel(p), rel(path), frag))
                elif frag not in facts[path]["ids"]:
                    anchors.append("%s links to #%s in %s: expected an element with that id, found none"
                                   % (rel(p), frag, rel(path)))
    tap.check("%d links and sources name files that exist (%d outside the book, not followed)"
              % (checked, len(external)), missing)
    tap.check("%d #anchors name an id in their page" % anchored, anchors)
    missing = sorted(set(missing))
    images = [(p, i) for p, f in facts.items() for i in f["images"]]
    tap.check("%d images are drawn" % len(images), ["%s: image %s was not drawn" % (rel(p), i["src"])
                                                     for p, i in images if not i["drawn"]])
    problems, measured = [], 0
    for p, f in facts.items():
        for i in f["images"]:
            target = file_of(i["src"])
            if not target or not target[0].is_file() or not i["drawn"] or not i["width"]:
                continue
            path = target[0]
            if path.suffix == ".svg":
                size, vb_width = svg_text_px(path)
                if size is None:
                    continue
                px, how = size * i["width"] / vb_width, "font-size %g of a viewBox %g wide, drawn %.0f px wide" % (size, vb_width, i["width"])
            elif path.suffix == ".png":
                pt = plot_font_pt(path)
                if pt is None:
                    problems.append("%s: %s: no gnuplot font size found for this plot in docs/plots/%s/command's script"
                                    % (rel(p), rel(path), path.stem))
                    continue
                px = pt * PNGCAIRO_PX_PER_PT * i["width"] / i["natural"]
                how = "pngcairo font %g pt in a plot %d px wide, drawn %.0f px wide" % (pt, i["natural"], i["width"])
            else:
                continue
            measured += 1
            if px < MIN_TEXT_PX - 0.05:
                problems.append("%s: %s: smallest text %.1f px, expected %d px or more (%s)"
                                % (rel(p), rel(path), px, MIN_TEXT_PX, how))
    tap.check("%d pictures' smallest text is %d px or more at %d px wide, as laid out"
              % (measured, MIN_TEXT_PX, WIDE), problems)
    problems = ["%s: a code block needs %d px, has %d: %r" % (rel(p), o["need"], o["have"], o["first"])
                for p, f in facts.items() if p.parent == BOOK / "docs" and p.name[:2].isdigit() for o in f["overflow"]]
    tap.check("no chapter's code block scrolls sideways at %d px" % WIDE, problems)
    problems = ["%s: the page is %d px wide at %d px: something other than code scrolls" % (rel(p), n["pageWide"], NARROW)
                for p, n in narrow.items() if n["pageWide"]]
    problems += ["%s: the page is %d px wide at %d px" % (rel(p), facts[p]["pageWide"], WIDE)
                 for p in facts if p in narrow and facts[p]["pageWide"]]
    tap.check("at %d and %d px no page scrolls sideways (%d pages)" % (NARROW, WIDE, len(narrow)), problems)
    diffs = [p for p in facts if p.parent == BOOK / "diff"]
    problems = ["%s: a new or deleted file drawn side by side, half empty: %s" % (rel(p), n)
                for p in diffs for n in facts[p]["diffHalf"]]
    problems += ["%s: %d code lines cut off at %d px, expected them wrapped" % (rel(p), n, w)
                 for p in diffs for w, n in ((WIDE, facts[p]["diffCut"]), (NARROW, narrow.get(p, {}).get("diffCut", 0))) if n]
    if diffs:
        tap.check("%d diff pages: a new or deleted file spans the width; long lines wrap at %d and %d px"
                  % (len(diffs), WIDE, NARROW), problems)
    problems = []
    for p, v in docked.items():
        if not v["went"]:
            problems.append("%s: no section with the id the-concepts" % rel(p))
        elif not v.get("inView"):
            problems.append("%s: at %dx%d, scrolled to the middle of the concepts (y %s), the console is at %s, not in view"
                            % (rel(p), WIDE, HEIGHT, v.get("scrollY"), {k: v.get(k) for k in ("top", "bottom", "left", "right")}))
    for p, n in narrow.items():
        v = n.get("tryIt")
        if v is None:
            continue
        if not v["went"]:
            problems.append("%s: at %d px, no \"Try it here\" button in the concepts" % (rel(p), NARROW))
        elif not v.get("inView"):
            problems.append("%s: at %d px, after \"Try it here\" the console is at %s, not in view"
                            % (rel(p), NARROW, {k: v.get(k) for k in ("top", "bottom", "left", "right")}))
    if docked:
        tap.check("%d chapters: at %d px, in the middle of the concepts, the live console is in view; at %d px a "
                  "\"Try it here\" brings it there" % (len(docked), WIDE, NARROW), problems)
    else:
        tap.skip("the live console beside the text", "no chapter page has a live console (make book without emcc)")
    problems = []
    for p, f in facts.items():
        md = ROOT / "README.md" if p == BOOK / "index.html" else ROOT / p.relative_to(BOOK).with_suffix(".md")
        if p.parent in (BOOK, BOOK / "docs") and md.is_file():
            want = len(re.findall(r"!\[", md.read_text()))
            if len(f["images"]) < want:
                problems.append("%s: expected the %d pictures of %s, found %d <img>"
                                % (rel(p), want, md.relative_to(ROOT), len(f["images"])))
        problems += ["%s: markdown left as text: %r" % (rel(p), t) for t in f["leftover"]]
    tap.check("every page shows its markdown's pictures as images and no markdown as text", problems)
    chapters = [p for p in facts if p.parent.name == "docs" and p.name[:2].isdigit() and "table" not in p.name]
    have_diffs = (BOOK / "diff").is_dir()
    problems = []
    last = max((p.name[:2] for p in chapters), default="")
    for p in chapters:
        f = facts[p]
        wants = [("a table of contents", f["toc"]), ("a previous link", f["prev"]),
                 ("a next link", f["next"] or p.name.startswith(last))]
        if have_diffs:
            wants += [("a link to diff/%s.html" % p.name[:2], f["diffLink"] and f["diffLink"].endswith("diff/%s.html" % p.name[:2])),
                      ("that link right under the walk-through heading (#%s)" % f["walkthrough"],
                       f["walkthrough"] is not None and f["diffLinkAfter"] == f["walkthrough"])]
        problems += ["%s: expected %s, found none" % (rel(p), what) for what, ok in wants if not ok]
    tap.check("%d chapters have contents, previous/next%s" % (len(chapters), " and their diff page's link" if have_diffs else ""), problems)
    if not have_diffs:
        tap.skip("the diff pages", "diff2html is not installed (make deps installs it into build/book-tools/)")
    problems, excerpts = [], 0
    for p, f in facts.items():
        for e in f["excerpts"]:
            excerpts += 1
            path, frag = file_of(e["href"])
            got = facts.get(path, {}).get("lines", {}).get(frag)
            if got is None or e["first"] is None or got.strip() != e["first"].strip():
                problems.append("%s: excerpt link %s#%s: expected the line %r, received %r"
                                % (rel(p), rel(path), frag, e["first"], got))
    tap.check("%d excerpt links land on the excerpt's first line in its source page" % excerpts,
              problems if excerpts else ["no excerpt links found in the chapters"])
    want_shots = 2 * (2 * len(SCREEN_CHAPTERS) + (1 if have_diffs else 0))
    tap.check("%d screenshots in %s" % (len(shots), rel(SCREENS)),
              [] if len(shots) == want_shots and all(s.stat().st_size > 1000 for s in shots) else
              ["expected %d PNG files, received %s" % (want_shots, [str(s) for s in shots])])
    print("# %d pages, %d links and sources checked, %d anchors, %d images, %d excerpt links, in %.1fs"
          % (len(pages), checked, anchored, len(images), excerpts, time.time() - started))
    return tap.end()


if __name__ == "__main__":
    sys.exit(main())
