#!/usr/bin/env bash
# deps.sh -- find, and on Debian/Ubuntu install, the tools a target needs:
# each target installs, when missing, what its own parts use and no more.
#
#   deps.sh test      make test (and make unit): the unit tests, the checks
#                     of docs/, every step's suites and the reference run
#   deps.sh rest      make check-rest: what make check adds to make test
#   deps.sh all       make check: both
#   deps.sh valgrind  make valgrind: make test's tools and valgrind
#   deps.sh asan      make asan: make test's tools and the client libraries
#                     (its run includes them; the sanitizers come with gcc)
#   deps.sh book      make book, book-check, play-check
#   deps.sh exercises make exercise-check: the suites' tools and patch
#   deps.sh grade     make grade and make exercise
#   deps.sh bench     make bench
#   deps.sh install   make deps: everything above, saying so even when
#                     nothing is missing (docs/scripts/ use the benchmarks')
#
# Building and running a server needs only a C compiler and make (and, for
# steps 07 to 12, libxxhash's header). What uses each tool:
#   Check, found through pkg-config    the unit tests
#   bats, redis-cli, redis-benchmark   the black-box suites (the client
#                                      they talk through)
#   redis-server                       the reference run, proving the suites
#                                      encode Redis's behaviour; chapters 07
#                                      and 08 also run it beside the step
#   python3                            raw-socket tests, the docs checks
#   procps (pgrep)                     chapter 08's suites, which find the
#                                      server's BGSAVE child (Debian's
#                                      minimal system has no pgrep)
#   libxxhash                          steps 07 to 12 (DIGEST)
#   graphviz, gnuplot                  make pictures-check (part of make
#                                      test) draws the pictures and plots again
#   valgrind                           make valgrind, make bench (callgrind)
#   hiredis, redis-py, and from npm    tests/clients/, the real client
#   (when Node.js is present) ioredis  libraries (make check-rest, make asan)
#   and node-redis
#   clang and its fuzzer runtime       the fuzz smoke (make check-rest)
#   patch                              the exercise graders' solutions
#   bubblewrap                         class grading's sandbox
#   pandoc, emscripten (emcc),         the book: pandoc renders it, emcc
#   chromium, diff2html (npm)          compiles each step for the chapters'
#                                      live consoles (tests/book/play/),
#                                      chromium loads every page in its test
#   netcat-openbsd                     chapter 01's raw-socket examples
#                                      (make deps only: no test uses it)
set -u
MODE=${1:-test}

# tool-to-check : Debian package
# What a step's suites and unit tests need (every target that runs them).
SUITE_TOOLS=(
  "pkg-config:pkg-config"
  "pkgconfig-check:check"
  "bats:bats"
  "redis-cli:redis-tools"
  "redis-benchmark:redis-tools"
  "redis-server:redis-server"
  "python3:python3"
  "pgrep:procps"
  "header-xxhash:libxxhash-dev"
)
# make test's checks of docs/ also draw the pictures and plots again.
TEST_TOOLS=("${SUITE_TOOLS[@]}" "dot:graphviz" "gnuplot:gnuplot-nox")
# The real client libraries of tests/clients/.
CLIENT_TOOLS=("header-hiredis:libhiredis-dev" "python-redis:python3-redis")
# The book: rendered by pandoc, each step compiled by emcc, loaded in chromium.
BOOK_TOOLS=("python3:python3" "pandoc:pandoc" "emcc:emscripten" "chromium:chromium")
# What make check adds to make test: the exercise graders (patch), class
# grading (bubblewrap), the fuzz smoke (clang), the client libraries, the book.
REST_TOOLS=(
  "${SUITE_TOOLS[@]}"
  "patch:patch"
  "bwrap:bubblewrap"
  "clang:clang"
  "fuzzer-runtime:libclang-rt-dev"
  "${CLIENT_TOOLS[@]}"
  "${BOOK_TOOLS[@]}"
)
# The benchmarks build the servers (libxxhash) and need Redis and its client
# tools, valgrind (callgrind), gnuplot and python3.
BENCH_TOOLS=(
  "redis-server:redis-server"
  "redis-cli:redis-tools"
  "redis-benchmark:redis-tools"
  "valgrind:valgrind"
  "callgrind_control:valgrind"
  "gnuplot:gnuplot-nox"
  "python3:python3"
  "header-xxhash:libxxhash-dev"
)
# A chapter's grader (make grade, make exercise) builds one server and its
# unit tests and talks to it through redis-cli: no book, fuzzers or clients.
# redis-server: chapter 07's differential stage and chapter 08's files that
# real Redis writes and reads run it beside the student's server.
GRADE_TOOLS=(
  "pkg-config:pkg-config"
  "pkgconfig-check:check"
  "bats:bats"
  "redis-cli:redis-tools"
  "redis-benchmark:redis-tools"
  "redis-server:redis-server"
  "python3:python3"
  "header-xxhash:libxxhash-dev"
)
# NPM: which of the pinned npm installs the target runs (clients, book).
# SOFT=1: a tool that cannot be installed here is said, and is no failure.
NPM="" SOFT=""
case $MODE in
  test) REQUIRED=("${TEST_TOOLS[@]}") WHO="make test" ;;
  rest) REQUIRED=("${REST_TOOLS[@]}") WHO="make check-rest" NPM="clients book" ;;
  all) REQUIRED=("${TEST_TOOLS[@]}" "${REST_TOOLS[@]}") WHO="make check" NPM="clients book" ;;
  valgrind) REQUIRED=("${TEST_TOOLS[@]}" "valgrind:valgrind") WHO="make valgrind" ;;
  asan) REQUIRED=("${TEST_TOOLS[@]}" "${CLIENT_TOOLS[@]}") WHO="make asan" NPM=clients ;;
  # The book builds without them (saying what each adds): not a failure.
  book) REQUIRED=("${BOOK_TOOLS[@]}") WHO="make book" NPM=book SOFT=1 ;;
  exercises) REQUIRED=("${SUITE_TOOLS[@]}" "patch:patch") WHO="make exercise-check" ;;
  grade) REQUIRED=("${GRADE_TOOLS[@]}") WHO="make grade" ;;
  bench) REQUIRED=("${BENCH_TOOLS[@]}") WHO="make bench" ;;
  install)
    REQUIRED=("${TEST_TOOLS[@]}" "${REST_TOOLS[@]}" "valgrind:valgrind" "${BENCH_TOOLS[@]}" "nc:netcat-openbsd")
    WHO="make deps" NPM="clients book"
    ;;
  *)
    echo "usage: deps.sh test|rest|all|valgrind|asan|book|exercises|grade|bench|install" >&2
    exit 2
    ;;
esac

have() {
  case "$1" in
    pkgconfig-check) pkg-config --exists check 2>/dev/null ;;
    header-xxhash) [ -f /usr/include/xxhash.h ] ;;
    header-hiredis) [ -f /usr/include/hiredis/hiredis.h ] ;;
    fuzzer-runtime) command -v clang >/dev/null 2>&1 &&
      printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
      clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null ;;
    python-redis) [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import redis' 2>/dev/null ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing=()
for entry in "${REQUIRED[@]}"; do
  tool=${entry%%:*} pkg=${entry#*:}
  have "$tool" || missing+=("$pkg")
done
# Unique package names, in order.
mapfile -t missing < <(printf '%s\n' "${missing[@]+"${missing[@]}"}" | awk 'NF && !seen[$0]++')

# The npm packages of the target (NPM), pinned by their package-lock.json:
# the Node.js client libraries (tests/clients/) and diff2html (tests/book/).
# A no-op when they are installed, a message (and no failure) without Node.js.
node_clients() {
  local what
  for what in $NPM; do
    # A starter repository for students has neither tests/clients/ nor tests/book/.
    [ -f "tests/$what/install.sh" ] || continue
    if [ "$what" = clients ]; then bash tests/clients/install.sh || return 1; else bash tests/book/install.sh; fi
  done
}

if [ ${#missing[@]} -eq 0 ]; then
  [ "$MODE" = install ] && echo "deps: every tool of the tests, book, benchmarks and scripts is installed"
  node_clients
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps: missing ${missing[*]}; install them with your package manager (see README.md, Prerequisites)" >&2
  [ -n "$SOFT" ] && { node_clients; exit 0; }
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo"
else
  echo "deps: $WHO needs: ${missing[*]}" >&2
  echo "deps: run this, then $WHO again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  [ -n "$SOFT" ] && { node_clients; exit 0; }
  exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || exit 1
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || exit 1
# Debian starts the packaged redis-server as a service on port 6379; the
# tests start their own servers on free ports and want 6379 left for `make run`.
if command -v service >/dev/null 2>&1; then $SUDO service redis-server stop >/dev/null 2>&1 || true; fi
node_clients
echo "deps: done"
