# book.mk -- the tutorial as a static site, included by the Makefile.
#
#   make book                  render it into build/book/ (open build/book/index.html;
#                              no server needed): README, chapters, benchmarks, each
#                              chapter's diff page and every step's source, linked
#   make book-diff FROM=AA TO=BB   the diff page of any two steps, build/book/diff/
#   make book-check            build it and load every page in headless Chromium:
#                              links, anchors, images, script errors; at 1400 px
#                              code that fits, pictures' text 11 px or more, the
#                              live console in view; screenshots (TAP)
#   make play-check            the chapters' live consoles (below) in headless Chromium (TAP)
# They need pandoc, emscripten's emcc (the live servers below) and chromium
# (the two checks), and for the diff pages node and diff2html (npm, pinned in
# tests/book/package-lock.json). On Debian/Ubuntu, all four targets install
# what is missing first (tests/tools/deps.sh book, which also runs
# tests/book/install.sh where node is: the pinned npm ci into
# build/book-tools/, done once); elsewhere they say what to install. Without
# pandoc, make book says what to install and succeeds. With emcc, make book
# also compiles every step to WebAssembly and puts its server, live, in the
# chapter's page (tests/book/play/); without it, it says so.
.PHONY: book book-diff book-check book-tools
book: book-tools
	@python3 tests/book/build.py $(BUILD)/book
	@bash tests/book/play/build.sh $(BUILD)/play
	@python3 tests/book/play/pages.py $(BUILD)/book $(BUILD)/play

book-tools:
	@bash tests/tools/deps.sh book

book-diff: book-tools
	@test -n "$(FROM)" -a -n "$(TO)" || { echo "usage: make book-diff FROM=AA TO=BB" >&2; exit 2; }
	@python3 tests/book/build.py $(BUILD)/book --diff $(FROM) $(TO)

book-check: book
	@BUILD=$(BUILD) python3 tests/tools/book_check.py --no-build

# The chapters' live consoles (tests/book/play/) in headless Chromium: each
# chapter page's transcripts typed into its console against the native
# server, the expiry experiment of 04-06, at 1400 and 390 px, screenshots in
# build/play-screens/ (TAP). Skips, saying why, without emcc, pandoc or chromium.
.PHONY: play-check
play-check: book-tools all
	@BUILD=$(BUILD) python3 tests/tools/play_check.py
