# Makefile -- builds and tests every step of the tutorial.
#
#   make                      build every step into build/NN-name/server
#   make run [STEP=NN]        build and start one step (default: the newest) on 127.0.0.1:6379
#   make test [STEP=NN] [SERVER=path|redis-server]
#                             unit tests, then the black-box suites; one summary line at the end
#   make unit                 only the Check unit tests
#   make valgrind             unit tests and every suite with the servers under memcheck
#   make asan                 every suite against ASan+UBSan builds
#   make diff STEP=NN         what chapter NN added to step NN-1
#   make deps                 install the test tools (Debian/Ubuntu, as root or with sudo)
#   make clean
#
# Plain GNU make: each step is a directory of C files linked with common/.
# POLL=1 selects the poll() event-loop back end instead of epoll. WERROR=1
# makes every warning an error (CI sets it).

CC      ?= cc
CFLAGS  ?= -O2 -g
override CFLAGS += -std=c11 -Wall -Wextra -MMD -MP
# Not in a learner's build: a newer compiler's new warning must not stop it.
ifeq ($(WERROR),1)
  override CFLAGS += -Werror
endif
LDLIBS  ?=

STEPS       := $(sort $(patsubst steps/%/main.c,%,$(wildcard steps/[0-9][0-9]-*/main.c)))
NEWEST      := $(lastword $(STEPS))
# STEP=5, 05 or 05-active-sampling name one step; an unknown STEP is an error.
ifdef STEP
  STEP_DIR := $(filter $(STEP) $(STEP)-% 0$(STEP)-%,$(STEPS))
  ifneq ($(words $(STEP_DIR)),1)
    $(error unknown step STEP=$(STEP); the steps are $(STEPS))
  endif
endif

# Variants live side by side: build/ (default), build/poll, build/asan.
ifeq ($(POLL),1)
  BUILD   ?= build/poll
  BACKEND := el_poll
else ifeq ($(shell uname -s),Linux)
  BACKEND := el_epoll
else
  BACKEND := el_poll
endif
BUILD ?= build

COMMON_SRC := $(filter-out common/el_epoll.c common/el_poll.c,$(wildcard common/*.c)) common/$(BACKEND).c
COMMON_OBJ := $(patsubst common/%.c,$(BUILD)/common/%.o,$(COMMON_SRC))

# Extra libraries a step links with.
LIBS_07-set-options-fsm := -lxxhash

.PHONY: all run test unit valgrind asan diff deps clean check-deps
all: $(foreach s,$(STEPS),$(BUILD)/$(s)/server)

$(BUILD)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Icommon -c $< -o $@

# One server per step: the step's files plus common/.
define STEP_RULES
$(BUILD)/$(1)/%.o: steps/$(1)/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -Icommon -Isteps/$(1) -c $$< -o $$@
$(BUILD)/$(1)/server: $(patsubst steps/$(1)/%.c,$(BUILD)/$(1)/%.o,$(wildcard steps/$(1)/*.c)) $(COMMON_OBJ)
	$$(CC) $$(CFLAGS) $$(filter %.o,$$^) -o $$@ $$(LDLIBS) $(LIBS_$(1))
endef
$(foreach s,$(STEPS),$(eval $(call STEP_RULES,$(s))))

# ---- Unit tests (Check) -------------------------------------------------
# tests/unit/test_*.c test common/; tests/NN-name/unit_*.c test a step's
# modules and link with that step's files except main.c.
CHECK_FLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS  = $(shell pkg-config --libs check 2>/dev/null)
UNIT_COMMON := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/test_*.c))

$(BUILD)/unit/%: tests/unit/%.c $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CHECK_FLAGS) -Icommon $(filter %.c %.o,$^) -o $@ $(CHECK_LIBS)

# The step's modules go in an archive, so a test links only the files it
# uses: unit_timewheel.c needs timewheel.o and nothing of the server.
define STEP_UNIT_RULES
$(BUILD)/$(1)/modules.a: $(filter-out $(BUILD)/$(1)/main.o,$(patsubst steps/$(1)/%.c,$(BUILD)/$(1)/%.o,$(wildcard steps/$(1)/*.c)))
	rm -f $$@ && $$(AR) rcs $$@ $$^
$(BUILD)/unit/$(1)/%: tests/$(1)/%.c $(BUILD)/$(1)/modules.a $(COMMON_OBJ)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(CHECK_FLAGS) -Icommon -Isteps/$(1) $$(filter %.c %.a %.o,$$^) -o $$@ $$(CHECK_LIBS) $(LIBS_$(1))
endef
$(foreach s,$(STEPS),$(eval $(call STEP_UNIT_RULES,$(s))))
UNIT_STEPS := $(foreach s,$(STEPS),$(patsubst tests/$(s)/%.c,$(BUILD)/unit/$(s)/%,$(wildcard tests/$(s)/unit_*.c)))
UNIT_BINS  := $(UNIT_COMMON) $(UNIT_STEPS)

# ---- Running ---------------------------------------------------------------
RUN_STEP := $(or $(STEP_DIR),$(NEWEST))
run: $(BUILD)/$(RUN_STEP)/server
	$(BUILD)/$(RUN_STEP)/server $(ARGS)

# ---- Testing ---------------------------------------------------------------
# tests/run.sh does the work and prints the summary line; see its header.
export STEP SERVER
test: check-deps all $(UNIT_BINS) $(BUILD)/tools/print_fsm poll-servers
	@BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" \
	  POLL_BUILD=build/poll POLL_STEPS="$(POLL_STEPS)" bash tests/run.sh

# The poll() back end (POLL=1), which stands in for epoll off Linux: make
# test also builds step 01 and the newest step with it, and runs their
# suites against those builds.
POLL_STEPS := $(firstword $(STEPS)) $(NEWEST)
.PHONY: poll-servers
poll-servers:
	@$(MAKE) --no-print-directory POLL=1 BUILD=build/poll $(foreach s,$(POLL_STEPS),build/poll/$(s)/server)

unit: check-deps $(UNIT_BINS)
	@BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" ONLY_UNIT=1 bash tests/run.sh

valgrind: check-deps all $(UNIT_BINS)
	@BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" VALGRIND=1 NO_REFERENCE=1 bash tests/run.sh

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan: check-deps
	$(MAKE) BUILD=build/asan CFLAGS="$(ASAN_FLAGS)" all
	@$(MAKE) --no-print-directory BUILD=build/asan CFLAGS="$(ASAN_FLAGS)" test-asan-run

.PHONY: test-asan-run
test-asan-run: $(UNIT_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BUILD=$(BUILD) UNIT_BINS="$(UNIT_BINS)" STEPS="$(STEPS)" SANITIZED=1 NO_REFERENCE=1 bash tests/run.sh

diff:
	@bash tests/tools/stepdiff.sh "$(STEP)" "$(FROM)" "$(TO)"

# ---- Chapter 07's state machine, as documentation ----------------------------
# print_fsm prints the transition table of steps/07-set-options-fsm/set_fsm.c
# as Markdown and as a Graphviz drawing. `make fsm-docs` writes them under
# docs/; make test fails when the committed copies are stale.
FSM_STEP := steps/07-set-options-fsm
$(BUILD)/tools/print_fsm: tests/07-set-options-fsm/print_fsm.c $(FSM_STEP)/set_fsm.c common/strnum.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Icommon -I$(FSM_STEP) $(filter %.c,$^) -o $@

.PHONY: fsm-docs fsm-check
fsm-docs: $(BUILD)/tools/print_fsm
	@mkdir -p docs/img
	$(BUILD)/tools/print_fsm > docs/07-set-fsm-table.md
	$(BUILD)/tools/print_fsm --dot > docs/img/07-set-fsm.dot
	@if command -v dot >/dev/null; then dot -Tsvg docs/img/07-set-fsm.dot -o docs/img/07-set-fsm.svg && echo "wrote docs/img/07-set-fsm.svg"; \
	 else echo "graphviz (dot) not installed: docs/img/07-set-fsm.svg not redrawn"; fi

fsm-check: $(BUILD)/tools/print_fsm
	@$(BUILD)/tools/print_fsm | cmp -s - docs/07-set-fsm-table.md || { echo "docs/07-set-fsm-table.md is stale: run make fsm-docs"; exit 1; }
	@$(BUILD)/tools/print_fsm --dot | cmp -s - docs/img/07-set-fsm.dot || { echo "docs/img/07-set-fsm.dot is stale: run make fsm-docs"; exit 1; }
	@if command -v dot >/dev/null; then dot -Tsvg docs/img/07-set-fsm.dot | cmp -s - docs/img/07-set-fsm.svg || { echo "docs/img/07-set-fsm.svg is stale: run make fsm-docs"; exit 1; }; fi
	@echo "the state machine's table and drawing in docs/ match set_fsm.c"

# ---- Benchmarks --------------------------------------------------------------
# The timing wheel against a binary heap, alone (chapter 06).
$(BUILD)/tools/bench_timewheel: tests/06-timewheel/bench_timewheel.c steps/06-timewheel/timewheel.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isteps/06-timewheel $^ -o $@

# make bench: this project's servers next to a real Redis (throughput and CPU
# time per request, memory per key, instructions per command, the expiry
# strategies side by side); writes docs/benchmarks.md and docs/img/bench-*.png.
# ROUNDS=N (default 5), QUICK=1 for a smoke run (report in build/bench/).
.PHONY: bench
bench:
	@bash tests/bench/bench.sh

.PHONY: bench-timewheel
bench-timewheel: $(BUILD)/tools/bench_timewheel
	$(BUILD)/tools/bench_timewheel $(ARGS)

# ---- Robustness --------------------------------------------------------------
# make fuzz SECONDS=N: each libFuzzer target (RESP parser, SET's state machine,
# the newest step's whole command path) for N seconds, after replaying every
# input that once crashed. make compat OPS=N: seeded random command sequences
# sent to each step and to a real redis-server in lockstep, every reply
# compared, plus the expiry-safety model. make hostile: the hostile-client
# suite against the newest step. make test runs short versions of all three.
SECONDS ?= 60
OPS ?= 3000
.PHONY: fuzz compat hostile
fuzz:
	@bash tests/fuzz/run.sh all $(SECONDS)
compat: all
	@BUILD=$(BUILD) STEPS="$(STEPS)" bash tests/compat/run.sh $(OPS)
hostile: all
	@SERVER=$(abspath $(BUILD)/$(NEWEST)/server) bats --tap tests/hostile

# ---- Exercises -----------------------------------------------------------------
# make exercise STEP=NN EX=K [SERVER=path|workspace|redis-server]: run the grader
# of exercise K of chapter NN (tests/exercises/NN-name/exK.bats) against SERVER,
# by default this step's build (build/NN-name/server, where an exercise done in
# steps/NN-name lands after make); SERVER=workspace builds and grades workspace/NN-name/.
# make exercise-check: every grader against its solution (docs/solutions/), the
# unmodified step and a real redis-server (make test runs it too).
.PHONY: exercise exercise-check
exercise: check-deps all
	@BUILD=$(BUILD) bash tests/exercises/grade.sh "$(STEP)" "$(EX)" "$(SERVER)"

exercise-check: check-deps all
	@BUILD=$(BUILD) bash tests/exercises/check.sh

# ---- Writing a step yourself ---------------------------------------------------
# make workspace STEP=NN copies step NN-1 to workspace/NN-name/ (ignored by
# git); make test STEP=NN SERVER=workspace builds it like a step and grades it,
# and so does make exercise STEP=NN EX=K SERVER=workspace.
.PHONY: workspace
workspace:
	@bash tests/tools/workspace.sh "$(STEP)"

ifeq ($(SERVER),workspace)
WS_NAME := $(STEP_DIR)
WS_BIN  := $(BUILD)/workspace/$(WS_NAME)/server
$(WS_BIN): $(wildcard workspace/$(WS_NAME)/*.c workspace/$(WS_NAME)/*.h) $(COMMON_OBJ)
	@test -n "$(STEP)" -a -d "workspace/$(WS_NAME)" || { echo "no workspace for STEP=$(STEP): run make workspace STEP=NN first"; exit 1; }
	@mkdir -p $(@D)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -Icommon -Iworkspace/$(WS_NAME) $(filter %.c,$^) $(COMMON_OBJ) -o $@ $(LDLIBS) $(LIBS_$(WS_NAME))
test exercise: $(WS_BIN)
override SERVER := $(CURDIR)/$(WS_BIN)
endif

# clangd reads the flags of every file from here.
.PHONY: compile_commands.json
compile_commands.json:
	@python3 tests/tools/compile_commands.py "$(CC)" "$(filter-out -MMD -MP,$(CFLAGS))" > $@
	@echo "wrote $@ ($$(grep -c '"file"' $@) files)"

# ---- Tools -----------------------------------------------------------------
deps:
	@bash tests/tools/deps.sh install

check-deps:
	@bash tests/tools/deps.sh check

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
