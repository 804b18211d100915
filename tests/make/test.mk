# test.mk -- make test, valgrind and asan, included by the Makefile.
# tests/run.sh does the work and prints the summary line; see its header.

export STEP SERVER
.PHONY: test poll-servers valgrind asan test-asan-run
# A starter repository has only the steps before its chapter: no print_fsm
# without step 07; a server given (your workspace) is graded as its step.
test: check-deps all $(UNIT_BINS) $(if $(wildcard steps/07-set-options-fsm/set_fsm.c),$(BUILD)/tools/print_fsm) \
      poll-servers
	@BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(if $(SERVER),$(sort $(STEPS) $(WS_ONLY_STEPS)),$(STEPS))" \
	  POLL_BUILD=$(POLL_BUILD) POLL_STEPS="$(POLL_STEPS)" bash tests/run.sh

# make test also builds a variant in its own directory, and runs suites
# against it:
# - the poll() back end (POLL=1), which stands in for epoll off Linux: step
#   01 and the newest step.
POLL_STEPS   := $(firstword $(STEPS)) $(NEWEST)
POLL_BUILD   := build/poll
poll-servers:
	@$(MAKE) --no-print-directory POLL=1 BUILD=$(POLL_BUILD) $(foreach s,$(POLL_STEPS),$(POLL_BUILD)/$(s)/server)

valgrind: check-deps all $(UNIT_BINS)
	@BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" VALGRIND=1 NO_REFERENCE=1 bash tests/run.sh

# make asan: the same build, with ASan+UBSan, in build/asan (a make of its
# own, since CFLAGS change), then every suite against it.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_BUILD := build/asan$(BUILD_POLL)
asan: check-deps
	$(MAKE) BUILD=$(ASAN_BUILD) CFLAGS="$(ASAN_FLAGS)" all
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CFLAGS="$(ASAN_FLAGS)" test-asan-run

test-asan-run: $(UNIT_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" SANITIZED=1 NO_REFERENCE=1 bash tests/run.sh
