#!/usr/bin/env bash
# deps.sh -- find, and on Debian/Ubuntu install, the tools the tests need.
#
#   deps.sh check     install only what is missing (used by make test)
#   deps.sh grade     the same for what make grade and make exercise need
#   deps.sh install   the tests' tools and the benchmarks' (docs/scripts/ use
#                     those too), saying so even when nothing is missing
#   deps.sh bench     the same for the benchmarks' tools (used by make bench)
#
# Building and running a server needs only a C compiler and make. The tests
# need more: Check (unit tests) found through pkg-config, bats (the black-box
# suites), redis-cli and redis-benchmark (the client the suites talk through),
# redis-server (the reference run proving the suites encode Redis's
# behaviour), valgrind, python3 (raw-socket tests), libxxhash (chapter 07's
# DIGEST), bubblewrap (make grade-class's sandbox), gnuplot (make
# pictures-check draws the plots again from their data), and the real client
# libraries of tests/clients/: hiredis,
# redis-py, and (from npm, when Node.js is present) ioredis and node-redis.
# The book (make book, tests/book/) needs pandoc and chromium, which loads
# every page in its test, and diff2html from npm (tests/book/install.sh);
# emscripten (emcc) compiles each step for the chapters' live consoles
# (tests/book/play/).
set -u
MODE=${1:-check}

# tool-to-check : Debian package
TEST_TOOLS=(
  "pkg-config:pkg-config"
  "pkgconfig-check:check"
  "bats:bats"
  "redis-cli:redis-tools"
  "redis-benchmark:redis-tools"
  "redis-server:redis-server"
  "valgrind:valgrind"
  "python3:python3"
  "header-xxhash:libxxhash-dev"
  "header-hiredis:libhiredis-dev"
  "python-redis:python3-redis"
  "dot:graphviz"
  "gnuplot:gnuplot-nox"
  "patch:patch"
  "nc:netcat-openbsd"
  "clang:clang"
  "fuzzer-runtime:libclang-rt-dev"
  "pandoc:pandoc"
  "chromium:chromium"
  "emcc:emscripten"
  "bwrap:bubblewrap"
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
GRADE_TOOLS=(
  "pkg-config:pkg-config"
  "pkgconfig-check:check"
  "bats:bats"
  "redis-cli:redis-tools"
  "redis-benchmark:redis-tools"
  "python3:python3"
  "header-xxhash:libxxhash-dev"
)
case $MODE in
  check) REQUIRED=("${TEST_TOOLS[@]}") WHO=tests AGAIN="make test" ;;
  grade) REQUIRED=("${GRADE_TOOLS[@]}") WHO=graders AGAIN="make grade" ;;
  install) REQUIRED=("${TEST_TOOLS[@]}" "${BENCH_TOOLS[@]}") WHO="tests and scripts" AGAIN="make deps" ;;
  bench) REQUIRED=("${BENCH_TOOLS[@]}") WHO=benchmarks AGAIN="make bench" ;;
  *)
    echo "usage: deps.sh check|grade|install|bench" >&2
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

# Node.js client libraries, pinned by tests/clients/package-lock.json; a
# no-op when they are installed, a message (and no failure) without Node.js.
# Only the tests use them.
node_clients() {
  [ "$MODE" = bench ] || [ "$MODE" = grade ] && return 0
  # A starter repository for students has neither tests/clients/ nor tests/book/.
  if [ -f tests/clients/install.sh ]; then bash tests/clients/install.sh || return 1; fi
  if [ -f tests/book/install.sh ]; then bash tests/book/install.sh; fi
}

if [ ${#missing[@]} -eq 0 ]; then
  [ "$MODE" = install ] && echo "deps: every tool of the tests, benchmarks and scripts is installed"
  node_clients
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps: missing ${missing[*]}; install them with your package manager (see README.md, Prerequisites)" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo"
else
  echo "deps: the $WHO need: ${missing[*]}" >&2
  echo "deps: run this, then $AGAIN again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
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
