# test.mk -- make test, valgrind and asan, included by the Makefile.
# tests/run.sh does the work and prints the summary line; see its header.

export STEP SERVER LOAD TEST_JOBS
.PHONY: test check check-rest poll-servers valgrind asan test-asan-run
# make test: the verdict after a change (SCOPE=test in tests/run.sh): unit
# tests, the checks of docs/, every step's suites and the reference run.
# make check: all of that and the rest (SCOPE=all): the tooling around the
# servers (exercise graders, workspaces, the book, class grading), the poll()
# back end, hostile clients, fuzz smoke, the differential test, client
# libraries. make check-rest: only what make check adds (CI runs make test,
# then this). A starter repository has only the steps before its chapter: no
# print_fsm without step 07; a server given (your workspace) is graded as its step.
PRINT_FSM := $(if $(wildcard steps/07-set-options-fsm/set_fsm.c),$(BUILD)/tools/print_fsm)
RUN_TESTS = BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(if $(SERVER),$(sort $(STEPS) $(WS_ONLY_STEPS)),$(STEPS))" \
  POLL_BUILD=$(POLL_BUILD) POLL_STEPS="$(POLL_STEPS)" bash tests/run.sh
# The build is a make of its own, one job per core, started once the tools
# are there (the servers link libraries that check-deps may install): on
# two cores a serial build took about 30 s of make test's 260 to 300.
BUILD_JOBS := $(shell nproc 2>/dev/null || echo 2)
TEST_BUILD  = $(MAKE) --no-print-directory -j$(BUILD_JOBS) all $(UNIT_BINS) $(PRINT_FSM)
test: check-deps
	@$(TEST_BUILD)
	@SCOPE=test $(RUN_TESTS)
check: check-all-deps
	@$(TEST_BUILD) poll-servers
	@SCOPE=all $(RUN_TESTS)
check-rest: check-rest-deps all poll-servers
	@SCOPE=rest $(RUN_TESTS)

# make check also builds a variant in its own directory, and runs suites
# against it:
# - the poll() back end (POLL=1), which stands in for epoll off Linux: step
#   01 and the newest step.
POLL_STEPS   := $(firstword $(STEPS)) $(NEWEST)
POLL_BUILD   := build/poll
poll-servers:
	@$(MAKE) --no-print-directory POLL=1 BUILD=$(POLL_BUILD) $(foreach s,$(POLL_STEPS),$(POLL_BUILD)/$(s)/server)

# Under valgrind and the sanitizers, everything that tests memory (SCOPE=all
# without the tooling's checks, which test behaviour: tests/run.sh).
valgrind: check-valgrind-deps all $(UNIT_BINS)
	@SCOPE=all BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" VALGRIND=1 NO_REFERENCE=1 bash tests/run.sh

# make asan: the same build, with ASan+UBSan, in build/asan (a make of its
# own, since CFLAGS change), then every suite against it.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_BUILD := build/asan$(BUILD_POLL)
asan: check-asan-deps
	$(MAKE) BUILD=$(ASAN_BUILD) CFLAGS="$(ASAN_FLAGS)" all
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CFLAGS="$(ASAN_FLAGS)" test-asan-run

test-asan-run: $(UNIT_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  SCOPE=all BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" SANITIZED=1 NO_REFERENCE=1 bash tests/run.sh
