#!/usr/bin/env python3
"""build.py -- the tutorial as a static site that opens from disk (file://).

    build.py OUT                 the whole book into OUT (make book: build/book)
    build.py OUT --diff AA BB    only the diff page of step AA against step BB

Pages, each wrapped in one skeleton with one stylesheet (tests/book/book.css):
  index.html                 README.md
  docs/NN-name.html          each chapter, docs/README.md, benchmarks.md, and
                             instructors.md when it exists: pandoc (GitHub's
                             markdown, so heading ids are GitHub's anchors),
                             a table of contents, previous/next links
  diff/NN.html               the step before NN against step NN (diff/01.html: step 01
                             and common/ whole), rendered by diff2html
                             (tests/book/diffpage.mjs), files in the
                             chapter's reading order (see reading_order)
  src/NN-name/FILE.html      every file of every step, and src/common/, with
                             line anchors (#L12) and highlighting
Links between .md files become links between pages; a link to a step's file
goes to its source page; a fenced block whose info string names a file
(tests/tools/excerpts.py) gets a link to the lines it shows.

Without pandoc this says what to install and exits 0; without node or
diff2html the diff pages are left out, saying so.
"""
import concurrent.futures
import hashlib
import html
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "book"
sys.path.insert(0, str(ROOT / "tests" / "tools"))
import excerpts  # noqa: E402  (the same matching as the excerpt check)
import step_name  # noqa: E402  (the one resolver of steps and their order)

TOOLS = pathlib.Path(os.environ.get("BOOK_TOOLS_DIR", ROOT / "build" / "book-tools"))
D2H = TOOLS / "node_modules" / "diff2html"
HEADING = re.compile(r"^(#{1,6}) +(.*?) *#*$")
FILES_LINE = "**Files this chapter changes:**"
IMAGE_LINE = re.compile(r"^(\s*)!\[(.*)\]\(([^()\s]+)\)\s*$")


# ---- What the book holds -------------------------------------------------------
def steps():
    return step_name.steps()


def num_before(num):
    """The number of the step before step NUM: the previous step there is,
    whatever its number (09 before 12 while 10 and 11 are not written)."""
    before = step_name.step_before(step_dir(num))
    return before[:2] if before else None


def tracked(d):
    """The files of directory d (repo-relative) that git knows or would add."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", d],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return sorted(set(out.split()))


def md_pages():
    """(source .md, output .html), in reading order: prev/next follow it."""
    docs = ROOT / "docs"
    # A chapter's companion pages ("07-set-fsm-table.md") come after the
    # chapter itself, so that "next" from chapter 06 is chapter 07.
    chapters = sorted((p.name for p in docs.glob("[0-9][0-9]-*.md")),
                      key=lambda n: (n[:2], n.endswith("-table.md"), n))
    order = ["README.md", "docs/README.md"] + ["docs/" + c for c in chapters]
    for extra in ("benchmarks.md", "instructors.md"):
        if (docs / extra).is_file():
            order.append("docs/" + extra)
    return [(m, "index.html" if m == "README.md" else m[:-3] + ".html") for m in order]


def source_page(path):
    """The page of a repo file: steps/05-x/a.c -> src/05-x/a.c.html."""
    if path.startswith("steps/"):
        return "src/" + path[len("steps/"):] + ".html"
    return "src/" + path + ".html"


# ---- Running pandoc -----------------------------------------------------------
def pandoc(args, text):
    r = subprocess.run(["pandoc", "--wrap=none", "--highlight-style=pygments",
                        "--metadata", "pagetitle=book"] + args,
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("book: pandoc failed: " + r.stderr)
    return r.stdout


def highlight_css():
    tpl = HERE / "highlight.pandoc"
    return pandoc(["-f", "gfm", "-t", "html5", "-s", "--template", str(tpl)], "```c\nint x;\n```\n")


# ---- One skeleton for every page ------------------------------------------------
def rel(frm, to):
    """The href from page frm to output path to (both relative to the book)."""
    return os.path.relpath(to, os.path.dirname(frm) or ".")


def nav_links(page, prev_next):
    """The bar at the top and bottom of a page: home, chapters, previous, next."""
    parts = ['<a href="%s">Home</a>' % rel(page, "index.html"),
             '<a href="%s">Chapters</a>' % rel(page, "docs/README.html")]
    for cls, label, target in prev_next:
        if target:
            parts.append('<a class="%s" href="%s">%s</a>' % (cls, rel(page, target[0]), label % html.escape(target[1])))
    return '<nav class="bar">%s</nav>' % " ".join(parts)


def skeleton(page, title, body, toc="", bar="", head="", kind="chapter"):
    css = rel(page, "assets/book.css")
    toc_html = '<nav id="toc" aria-label="Contents"><p class="toc-title">Contents</p>%s</nav>' % toc if toc else ""
    if toc:  # the title first, then the contents, then the text
        m = re.search(r"<h1[^>]*>.*?</h1>", body, re.S)
        if m:
            toc_html = '<header class="title">%s</header>\n%s' % (m.group(0), toc_html)
            body = body[:m.start()] + body[m.end():]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>%s</title>\n<link rel=\"stylesheet\" href=\"%s\">\n%s"
            "</head>\n<body class=\"%s\">\n%s\n<div class=\"page\">%s\n<main>\n%s\n</main>\n</div>\n%s\n</body>\n</html>\n"
            % (html.escape(title), css, head, kind, bar, toc_html, body, bar))


# ---- Links ------------------------------------------------------------------------
HREF = re.compile(r'(href|src)="([^"]*)"')


def rewrite_links(page, src_md, text):
    """Links as the .md files write them (relative to src_md) -> links between pages."""
    md_to_page = dict(md_pages())

    def fix(m):
        attr, url = m.group(1), html.unescape(m.group(2))
        if re.match(r"^[a-z]+:", url) and not url.startswith("book:") or url.startswith("#") or not url:
            return m.group(0)
        path, _, frag = url.partition("#")
        if path.startswith("book:"):
            target = path[len("book:"):]
        else:
            repo = os.path.normpath(os.path.join(os.path.dirname(src_md), path))
            if repo in md_to_page:
                target = md_to_page[repo]
            elif repo.startswith(("steps/", "common/")) or repo == "LICENSE":
                target = source_page(repo)
            else:
                target = repo  # pictures and other files keep their place
        href = rel(page, target) + ("#" + frag if frag else "")
        return '%s="%s"' % (attr, html.escape(href, quote=True))

    return HREF.sub(fix, text)


# ---- Chapters ---------------------------------------------------------------------
def walkthrough(lines):
    """(first, end) line indices of the section that walks through the code:
    the ## section holding the "Files this chapter changes" line, else the
    first whose title starts "Walking through"; None when there is none."""
    heads = [i for i, l in enumerate(lines) if l.startswith("## ")] + [len(lines)]
    for pick in (lambda a, b: any(l.startswith(FILES_LINE) for l in lines[a:b]),
                 lambda a, b: lines[a][3:].startswith("Walking through")):
        for a, b in zip(heads, heads[1:]):
            if pick(a, b):
                return a, b
    return None


def excerpt_lines(name, body):
    """(first, last) line numbers in name of an excerpt, as excerpts.py finds it."""
    src = [l.rstrip() for l in (ROOT / name).read_text().splitlines()]
    at, first = 0, None
    for run in excerpts.runs(body):
        nxt = excerpts.find_run(src, run, at)
        if nxt < 0:
            return None
        first = first or nxt - len(run) + 1
        at = nxt
    return (first, at) if first else None


def prepare_chapter(md, text, diff_page):
    """The chapter's markdown with a link line before each tagged excerpt and,
    in its walk-through section, one to its diff page."""
    lines = text.splitlines()
    tags = {}
    for lineno, name, body in excerpts.excerpts(ROOT / md):
        if (ROOT / name).is_file():
            tags[lineno - 1] = (name, excerpt_lines(name, body))
    section = walkthrough(lines)
    out = []
    for i, line in enumerate(lines):
        m = IMAGE_LINE.match(line)
        if m:  # pandoc 2.17 breaks an image at brackets in its alt text, balanced or not
            line = "%s![%s](%s)" % (m.group(1), re.sub(r"([\[\]])", r"\\\1", m.group(2)), m.group(3))
        if i in tags:
            name, span = tags[i]
            indent = re.match(r" *", line).group(0)
            anchor = "#L%d" % span[0] if span else ""
            where = ", lines %d–%d" % span if span and span[0] != span[1] else (", line %d" % span[0] if span else "")
            out += ['%s<p class="excerpt-src"><a href="%s%s">%s</a>%s</p>'
                    % (indent, os.path.relpath(ROOT / name, (ROOT / md).parent), anchor, name, where), ""]
        out.append(line)
        if section and i == section[0] and diff_page:
            out += ["", '<p class="diff-link"><a href="book:%s">%s</a></p>' % diff_page]
    return "\n".join(out) + "\n"


def chapter_number(md):
    m = re.match(r"docs/(\d\d)-", md)
    return m.group(1) if m and (ROOT / md).is_file() and not md.endswith("-table.md") else None


def render_md(md, page, prev_next, have_diffs):
    text = (ROOT / md).read_text()
    num = chapter_number(md)
    diff_page = None
    if num and have_diffs and any(s.startswith(num + "-") for s in steps()):
        label = ("Step %s and common/, whole, in this section's order" % num if num == "01"
                 else "The whole diff of step %s against step %s, file by file, in this section's order"
                 % (num_before(num), num))
        diff_page = ("diff/%s.html" % num, label)
    text = prepare_chapter(md, text, diff_page)
    out = pandoc(["-f", "gfm", "-t", "html5", "-s", "--toc", "--toc-depth=2",
                  "--template", str(HERE / "parts.pandoc")], text)
    toc, _, body = out.partition("<!--BODY-->")
    toc = re.sub(r"^\s*<ul>\s*<li><a[^>]*>.*?</a>\s*(<ul>.*</ul>)\s*</li>\s*</ul>\s*$", r"\1", toc, flags=re.S)
    # A picture scaled down to the column opens at full size when clicked.
    body = re.sub(r'(<img src="([^"]+)"[^>]*>)', r'<a class="picture" href="\2">\1</a>', body)
    title = re.search(r"<h1[^>]*>(.*?)</h1>", body, re.S)
    title = re.sub(r"<[^>]+>", "", title.group(1)) if title else md
    page_html = skeleton(page, html.unescape(title), body, toc=toc.strip(), bar=nav_links(page, prev_next))
    return rewrite_links(page, md, page_html)


# ---- Source pages -------------------------------------------------------------------
def citations():
    """{file: [(chapter page, "chapter NN")]}: the chapters whose excerpts
    show a file, so that its source page can link back to them."""
    out = {}
    for md, page in md_pages():
        num = chapter_number(md)
        if not num:
            continue
        for _, name, _ in excerpts.excerpts(ROOT / md):
            entry = (page, "chapter %s" % num)
            if entry not in out.setdefault(name, []):
                out[name].append(entry)
    return out


def render_sources(out, files):
    """Every file as a page with line anchors, highlighted by one pandoc run
    over each distinct content (the steps share most of their files)."""
    by_hash, order = {}, []
    for f in files:
        data = (ROOT / f).read_text()
        h = hashlib.sha1(data.encode()).hexdigest()[:12]
        if h not in by_hash:
            by_hash[h] = (data, "c" if f.endswith((".c", ".h")) else "default")
            order.append(h)
    fence = "`" * 12
    doc = "\n".join("<!--FILE %s-->\n\n%s {#s%s .%s .numberLines}\n%s\n%s\n" % (h, fence, h, by_hash[h][1], by_hash[h][0].rstrip("\n"), fence)
                    for h in order)
    rendered = pandoc(["-f", "markdown", "-t", "html5", "-s", "--template", str(HERE / "parts.pandoc")], doc)
    chunks = dict(re.findall(r"<!--FILE (\w+)-->\s*(.*?)(?=<!--FILE |\Z)", rendered.partition("<!--BODY-->")[2], re.S))
    by_dir = {}
    for f in files:
        by_dir.setdefault(os.path.dirname(f), []).append(f)
    cited = citations()
    for f in files:
        h = hashlib.sha1((ROOT / f).read_text().encode()).hexdigest()[:12]
        code = re.sub(r'(id|href)="(#?)s%s-(\d+)"' % h, r'\1="\2L\3"', chunks[h])
        page = source_page(f)
        siblings = " ".join('<a href="%s"%s>%s</a>' % (rel(page, source_page(g)), ' aria-current="page"' if g == f else "",
                                                      os.path.basename(g)) for g in by_dir[os.path.dirname(f)])
        nlines = len((ROOT / f).read_text().splitlines())
        back = ""
        if cited.get(f):
            back = '<p class="src-cited">Shown in %s</p>\n' % ", ".join(
                '<a href="%s">%s</a>' % (rel(page, to), html.escape(title)) for to, title in cited[f])
        body = ('<h1 class="src-title">%s</h1>\n<p class="src-meta">%d lines · <a href="%s">all of %s</a></p>\n'
                '%s<p class="src-files">%s</p>\n%s' % (html.escape(f), nlines, rel(page, os.path.dirname(page) + "/index.html"),
                                                       html.escape(os.path.dirname(f) or "the repository"), back, siblings, code))
        write(out / page, skeleton(page, f, body, bar=nav_links(page, []), kind="source"))
    for d, fs in by_dir.items():
        page = os.path.dirname(source_page(fs[0])) + "/index.html"
        items = "\n".join('<li><a href="%s">%s</a></li>' % (rel(page, source_page(g)), html.escape(os.path.basename(g))) for g in fs)
        write(out / page, skeleton(page, d or "files", '<h1>%s</h1>\n<ul class="files">\n%s\n</ul>' % (html.escape(d or "files"), items),
                                   bar=nav_links(page, []), kind="source"))


# ---- Diff pages ---------------------------------------------------------------------
def reading_order(num, names):
    """The files of chapter num's diff in the order the chapter reads them:
    the order in which its walk-through section (the ## section holding
    "Files this chapter changes", else the one titled "Walking through ...")
    first names each, after that line, as a fenced block's file tag or a
    `name` in backticks; then the rest in the order of the "Files this
    chapter changes" line; then any others by name."""
    md = next((ROOT / "docs").glob("%s-*.md" % num), None)
    if md is None or md.name.endswith("-table.md"):
        return sorted(names)
    candidates = [p for p in sorted((ROOT / "docs").glob("%s-*.md" % num)) if not p.name.endswith("-table.md")]
    lines = candidates[0].read_text().splitlines()
    section = walkthrough(lines)
    seen = []

    def note(token):
        token = re.sub(r"^steps/[^/]+/", "", token)
        if token in names and token not in seen:
            seen.append(token)

    files_line = []
    if section:
        for line in lines[section[0]:section[1]]:
            if line.startswith(FILES_LINE):
                files_line = re.findall(r"`([^`]+)`", line)
                continue
            m = excerpts.FENCE.match(line)
            if m:
                note(m.group(3))
            for token in re.findall(r"`([^`]+)`", line):
                note(token)
    for token in files_line:
        note(token)
    return seen + sorted(n for n in names if n not in seen)


def step_dir(num):
    return next(s for s in steps() if s.startswith(num + "-"))


def diff_of(frm, to):
    """git diff --no-index of two steps' files (frm None: nothing), with
    paths relative to the step, as tests/tools/stepdiff.sh shows them, and
    step 01's common/ under common/. The two sides are directories a and b,
    so that with --no-prefix the paths read a/main.c and b/main.c. Returns (diff, files of frm, files of to)."""
    with tempfile.TemporaryDirectory() as tmp:
        sides = {}
        for side, step in (("a", frm), ("b", to)):
            files = {}
            if step:
                for f in tracked("steps/" + step):
                    files[f[len("steps/" + step) + 1:]] = f
                if step == steps()[0] and frm is None:
                    for f in tracked("common"):
                        files[f] = f
            sides[side] = files
        # A step's own copy of a common/ file replaces common's in its build,
        # so a step without one builds with common's: the copy is shown
        # against that (as tests/tools/stepdiff.sh shows it).
        if frm:
            for side, other in (("a", "b"), ("b", "a")):
                for name in list(sides[side]):
                    if "/" not in name and (ROOT / "common" / name).is_file() and name not in sides[other]:
                        sides[other][name] = "common/" + name
        for side in ("a", "b"):
            for name, f in sides[side].items():
                dest = pathlib.Path(tmp, side, name)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ROOT / f, dest)
            pathlib.Path(tmp, side).mkdir(exist_ok=True)
        r = subprocess.run(["git", "--no-pager", "diff", "--no-index", "--no-color", "--no-prefix", "a", "b"],
                           cwd=tmp, capture_output=True, text=True)
        if r.returncode not in (0, 1):
            sys.exit("book: git diff failed: " + r.stderr)
        return r.stdout, sides["a"], sides["b"]


def render_diff(out, frm_num, to_num, have_node):
    """diff/TO.html (or diff/FROM-TO.html for any other pair)."""
    to = step_dir(to_num)
    frm = step_dir(frm_num) if frm_num else None
    name = "diff/%s.html" % to_num if (frm_num is None or frm_num == num_before(to_num)) else "diff/%s-%s.html" % (frm_num, to_num)
    diff, a_files, b_files = diff_of(frm, to)
    names = sorted(set(re.findall(r"^(?:---|\+\+\+) [ab]/(\S+)$", diff, re.M)))
    order = reading_order(to_num, names) if frm_num is None or frm_num == num_before(to_num) else names
    links = {}
    for n in names:
        f = b_files.get(n) or a_files.get(n)
        links[n] = rel(name, source_page(f))
    unchanged = sorted(n for n in b_files if n in a_files and n not in names)
    job = {"diff": diff, "order": order, "links": links, "whole": frm is None}
    r = subprocess.run(["node", str(HERE / "diffpage.mjs"), str(D2H)], input=json.dumps(job),
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("book: diffpage.mjs failed: " + r.stderr)
    title = ("Step %s and common/, whole" % to if frm is None else "Step %s → %s" % (frm, to))
    chapter = next((m for m, _ in md_pages() if m.startswith("docs/%s-" % to_num) and not m.endswith("-table.md")), None)
    intro = ['<h1>%s</h1>' % html.escape(title)]
    if chapter:
        intro.append('<p>The code of <a href="%s">chapter %s</a>. %s</p>'
                     % (rel(name, dict(md_pages())[chapter]), to_num,
                        "Every file is new: shown whole." if frm is None else
                        "Each file is shown beside its version in the step before (on a narrow screen, "
                        "removed and added lines in one column); a new or deleted file whole, across the width."))
    intro.append('<p class="rule">Order: the order in which the chapter\'s walk-through first names each file '
                 '(a code excerpt\'s file, or the file\'s name in backticks), then the rest of the '
                 '“Files this chapter changes” line, then any others by name. '
                 'Each file\'s name links to its whole source in step %s (a removed file\'s, to the '
                 'step before).</p>' % html.escape(to))
    tail = ""
    if unchanged:
        items = "\n".join('<li><a href="%s">%s</a></li>' % (rel(name, source_page(b_files[n])), html.escape(n)) for n in unchanged)
        tail = ('<details class="unchanged"><summary>%d files unchanged from %s</summary>\n<ul class="files">\n%s\n</ul></details>'
                % (len(unchanged), html.escape(frm), items))
    if frm is not None and to != steps()[0]:
        copies = sorted(n for n, f in list(a_files.items()) + list(b_files.items()) if f.startswith("common/"))
        tail += ('<p class="src-meta">common/ is unchanged: <a href="%s">its files</a>.%s</p>'
                 % (rel(name, "src/common/index.html"),
                    " %s: a step's own copy, shown against common/'s, which the step without one builds with."
                    % html.escape(", ".join(copies)) if copies else ""))
    both = json.loads(r.stdout)
    body = "\n".join(intro) + ('\n<div id="diff" class="d2h d2h-sides">\n%s\n</div>\n<div id="diff-lines" class="d2h d2h-lines">\n%s\n</div>\n%s'
                               % (both["sides"], both["lines"], tail))
    head = ('<link rel="stylesheet" href="%s">\n<link rel="stylesheet" href="%s">\n<script src="%s"></script>\n<script src="%s" defer></script>\n'
            % (rel(name, "assets/diff2html.min.css"), rel(name, "assets/github.min.css"),
               rel(name, "assets/diff2html-ui-slim.min.js"), rel(name, "assets/diff.js")))
    nums = [s[:2] for s in steps()]
    i = nums.index(to_num)
    pn = []
    if frm_num is None or frm_num == num_before(to_num):
        pn = [("prev", "← %s", ("diff/%s.html" % nums[i - 1], "diff " + nums[i - 1]) if i > 0 else None),
              ("next", "%s →", ("diff/%s.html" % nums[i + 1], "diff " + nums[i + 1]) if i + 1 < len(nums) else None)]
    write(out / name, skeleton(name, title, body, bar=nav_links(name, pn), head=head, kind="diff"))
    return name


# ---- The whole ----------------------------------------------------------------------
def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def assets(out, have_diffs):
    a = out / "assets"
    a.mkdir(parents=True, exist_ok=True)
    # One stylesheet: the book's, then pandoc's colours for the code.
    write(a / "book.css", (HERE / "book.css").read_text() + "\n/* Code colours: pandoc's pygments style. */\n" + highlight_css())
    shutil.copyfile(HERE / "diff.js", a / "diff.js")
    if have_diffs:
        shutil.copyfile(D2H / "bundles/css/diff2html.min.css", a / "diff2html.min.css")
        shutil.copyfile(D2H / "bundles/js/diff2html-ui-slim.min.js", a / "diff2html-ui-slim.min.js")
        # diff2html marks the code with highlight.js's classes; their colours
        # are highlight.js's theme, from the copy diff2html depends on.
        shutil.copyfile(TOOLS / "node_modules/highlight.js/styles/github.min.css", a / "github.min.css")


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    out = pathlib.Path(args[0]).resolve()
    if not shutil.which("pandoc"):
        print("book: pandoc is not installed, so the book is not built; install it with "
              "`make deps` (Debian/Ubuntu: apt-get install pandoc)")
        return 0
    have_diffs = bool(shutil.which("node")) and (D2H / "package.json").is_file()
    if not have_diffs:
        print("book: diff2html is not installed (`make deps` installs node's package from "
              "tests/book/package-lock.json into build/book-tools/), so the diff pages are left out")
    if "--diff" in args:
        i = args.index("--diff")
        frm, to = ("%02d" % int(x) for x in args[i + 1:i + 3])
        if not have_diffs:
            return 0
        assets(out, True)
        print("book: %s" % (out / render_diff(out, frm, to, True)))
        if not (out / "index.html").is_file():
            print("book: its links to the source pages need the rest of the book: make book")
        return 0
    if out.exists():
        shutil.rmtree(out)
    assets(out, have_diffs)
    pages = md_pages()
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for i, (md, page) in enumerate(pages):
            prev_next = [("prev", "← %s", (pages[i - 1][1], title_of(pages[i - 1][0])) if i > 0 else None),
                         ("next", "%s →", (pages[i + 1][1], title_of(pages[i + 1][0])) if i + 1 < len(pages) else None)]
            jobs[page] = pool.submit(render_md, md, page, prev_next, have_diffs)
        files = [f for s in steps() for f in tracked("steps/" + s)] + tracked("common") + ["LICENSE"]
        src_job = pool.submit(render_sources, out, files)
        diff_jobs = []
        if have_diffs:
            nums = [s[:2] for s in steps()]
            diff_jobs = [pool.submit(render_diff, out, None if k == 0 else nums[k - 1], n, True) for k, n in enumerate(nums)]
        for page, job in jobs.items():
            write(out / page, job.result())
        src_job.result()
        for j in diff_jobs:
            j.result()
    shutil.copytree(ROOT / "docs" / "img", out / "docs" / "img", ignore=shutil.ignore_patterns("*.dot"))
    print("book: %d pages, %d source pages, %d diff pages in %s; open %s in a browser"
          % (len(pages), len(files), len(diff_jobs), out, os.path.relpath(out / "index.html")))
    return 0


def title_of(md):
    """A page's first heading, for the previous/next links. A chapter's
    companion page ("07-set-fsm-table.md") says whose it is, so that the
    link after chapter 07's pages does not read as chapter 07 itself."""
    for line in (ROOT / md).read_text().splitlines():
        m = HEADING.match(line)
        if m:
            if str(md).endswith("-table.md"):
                return "Chapter %s's table: %s" % (pathlib.PurePath(md).name[:2], m.group(2))
            return m.group(2)
    return md


if __name__ == "__main__":
    sys.exit(main())
