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
  - screenshots of chapter 05 and its diff page at 390 and 1280 px wide,
    into $BUILD/book-screens/

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
                "--disable-extensions", "--hide-scrollbars", "--remote-debugging-port=0",
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

    def load(self, url):
        """Navigate and wait for the load event; return the errors seen meanwhile."""
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
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

    def screenshot(self, url, width, height, path, anchor=None):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=width < 600)
        self.load(url)  # not url#anchor: from the same page that would fire no load event
        if anchor:
            self.evaluate("document.getElementById(%s).scrollIntoView()" % json.dumps(anchor))
        time.sleep(0.2)
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
    images: [...document.images].map(i => ({src: i.src, drawn: i.complete && i.naturalWidth > 0})),
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
    facts, errors = {}, []
    try:
        for p in pages:
            try:
                errs = browser.load(p.as_uri())
                facts[p] = browser.evaluate(PAGE_FACTS)
            except (TimeoutError, RuntimeError) as e:
                errs = ["did not load: %s" % e]
            errors += ["%s: %s" % (p.relative_to(BOOK), e) for e in errs]
        SCREENS.mkdir(parents=True, exist_ok=True)
        shots = []
        for page, anchor in (("docs/05-active-sampling.html", None), ("docs/05-active-sampling.html", "walking-through-the-diff"),
                             ("diff/05.html", None)):
            for width, height in ((390, 844), (1280, 900)):
                name = "%s%s-%d.png" % (page.replace("/", "-")[:-5], "-" + anchor if anchor else "", width)
                if (BOOK / page).is_file():
                    browser.screenshot((BOOK / page).as_uri(), width, height, SCREENS / name, anchor)
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
                      ("that link right under the walk-through heading",
                       f["diffLinkAfter"] in ("walking-through-the-diff", "walking-through-the-code", "how-the-loop-became-the-table"))]
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
    tap.check("%d screenshots in %s" % (len(shots), rel(SCREENS)),
              [] if len(shots) == (6 if have_diffs else 4) and all(s.stat().st_size > 1000 for s in shots) else
              ["expected %d PNG files, received %s" % (6 if have_diffs else 4, [str(s) for s in shots])])
    print("# %d pages, %d links and sources checked, %d anchors, %d images, %d excerpt links, in %.1fs"
          % (len(pages), checked, anchored, len(images), excerpts, time.time() - started))
    return tap.end()


if __name__ == "__main__":
    sys.exit(main())
