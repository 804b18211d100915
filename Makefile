# Makefile -- how each step of the tutorial is built. The targets that test it
# are in tests/make/*.mk, included at the end; README.md lists them all.
#
#   make                  build every step into build/NN-name/server
#   make run [STEP=NN] [ARGS="--port 7777"] [SERVER=workspace]
#                         build and start one step (default: the newest), or your workspace
#   make test [STEP=NN] [SERVER=path|redis-server|workspace]
#                         unit tests, docs checks, the black-box suites and the reference
#                         run, several parts at once; one summary line at the end
#   make check            make test and the rest (graders, workspaces, book, class
#                         grading, poll back end, hostile, fuzz, compat, clients); CI runs it
#   make unit             only the Check unit tests
#   make valgrind | asan  every suite with the servers under memcheck | built with ASan+UBSan
#   make diff STEP=NN     what chapter NN added to step NN-1 (or FROM=AA TO=BB)
#   make workspace STEP=NN [EX=K]  write chapter NN (or its exercise K) yourself;
#                         make grade STEP=NN grades it (tests/make/workspace.mk)
#   make deps | clean     install the test tools (Debian/Ubuntu) | remove build/

# ---- Flags -------------------------------------------------------------------
# CFLAGS is yours (-O2 -g by default); the project's are added. WERROR=1 makes
# warnings errors (CI).
CC       ?= cc
CFLAGS   ?= -O2 -g
PROJECT_CFLAGS := -std=c11 -Wall -Wextra
ifeq ($(WERROR),1)
  PROJECT_CFLAGS += -Werror
endif
override CFLAGS += $(PROJECT_CFLAGS)
# Each .o gets a .d, the headers it read, so that a changed header rebuilds it.
DEPFLAGS := -MMD -MP
# The libraries a step links with, beyond LDLIBS.
LIBS_07-set-options-fsm := -lxxhash
LIBS_10-fast-path       := -lxxhash

# The event loop's back end: epoll on Linux, poll() elsewhere or with POLL=1.
# POLL=1 builds beside the default, in build/poll.
BACKEND := $(if $(filter Linux,$(shell uname -s)),el_epoll,el_poll)
ifeq ($(POLL),1)
  BACKEND := el_poll
endif
BUILD_POLL := $(if $(filter 1,$(POLL)),/poll)
BUILD ?= build$(BUILD_POLL)

# ---- The steps ---------------------------------------------------------------
# STEP=5, 05 or 05-active-sampling name one step; an unknown STEP is an error.
# A step may exist only as your workspace (workspace/NN-name/, as in a
# starter repository, which has no steps/NN-name): SERVER is then workspace.
STEPS  := $(sort $(patsubst steps/%/main.c,%,$(wildcard steps/[0-9][0-9]-*/main.c)))
NEWEST := $(lastword $(STEPS))
WS_ONLY_STEPS := $(filter-out $(STEPS),$(filter $(patsubst tests/%/,%,$(wildcard tests/[0-9][0-9]-*/)),\
  $(patsubst workspace/%/main.c,%,$(wildcard workspace/[0-9][0-9]-*/main.c))))
ifdef STEP
  STEP_DIR := $(filter $(STEP) $(STEP)-% 0$(STEP)-%,$(STEPS) $(WS_ONLY_STEPS))
  ifneq ($(words $(STEP_DIR)),1)
    $(error unknown step STEP=$(STEP); the steps are $(STEPS) $(WS_ONLY_STEPS))
  endif
  ifneq ($(filter $(STEP_DIR),$(WS_ONLY_STEPS)),)
    SERVER ?= workspace
  endif
endif

# ---- Building them -----------------------------------------------------------
# common/ is compiled once, into build/common/, with one event-loop back end.
# (A starter repository for chapter 01 has no common/: the workspace is it.)
COMMON_SRC := $(if $(wildcard common/*.c),$(filter-out common/el_%.c,$(wildcard common/*.c)) common/$(BACKEND).c)
COMMON_OBJ := $(patsubst common/%.c,$(BUILD)/common/%.o,$(COMMON_SRC))
objects_of  = $(patsubst steps/%.c,$(BUILD)/%.o,$(wildcard steps/$(1)/*.c))

.PHONY: all run diff clean
SERVERS := $(foreach s,$(STEPS),$(BUILD)/$(s)/server)
all: $(SERVERS)

$(BUILD)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Icommon -c $< -o $@

# A step's file, say steps/04-expiry-lazy/main.c: $* is 04-expiry-lazy/main and
# $(*D) the step, its headers' directory and the name the server prints.
$(BUILD)/%.o: steps/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -DSTEP_NAME='"$(*D)"' -Icommon -Isteps/$(*D) -c $< -o $@

# A server: its step's files, compiled, and common/'s. A new step needs a line.
$(BUILD)/01-resp/server:            $(call objects_of,01-resp)
$(BUILD)/02-get-set/server:         $(call objects_of,02-get-set)
$(BUILD)/03-del/server:             $(call objects_of,03-del)
$(BUILD)/04-expiry-lazy/server:     $(call objects_of,04-expiry-lazy)
$(BUILD)/05-active-sampling/server: $(call objects_of,05-active-sampling)
$(BUILD)/06-timewheel/server:       $(call objects_of,06-timewheel)
$(BUILD)/07-set-options-fsm/server: $(call objects_of,07-set-options-fsm)
$(BUILD)/10-fast-path/server:       $(call objects_of,10-fast-path)
$(SERVERS): $(BUILD)/%/server: $(COMMON_OBJ)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(LIBS_$*)

# Steps 07 and 10's DIGEST hashes with xxHash, whose header is not part of a
# C compiler: say what to install rather than fail with a compiler error.
.PHONY: xxhash-header
$(BUILD)/07-set-options-fsm/keyspace.o $(BUILD)/10-fast-path/keyspace.o: | xxhash-header
xxhash-header:
	@printf '#include <xxhash.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || { \
	  echo "steps 07 and 10 need xxHash's header (xxhash.h): install libxxhash-dev on Debian/Ubuntu," \
	    "xxhash-devel on Fedora, xxhash with Homebrew (make deps does it on Debian/Ubuntu)" >&2; exit 1; }

# ---- Running one, comparing two ----------------------------------------------
# SERVER=workspace runs your workspace's build instead (tests/make/workspace.mk).
ifneq ($(SERVER),workspace)
run: $(BUILD)/$(or $(STEP_DIR),$(NEWEST))/server
	$< $(ARGS)
endif
diff:
	@bash tests/tools/stepdiff.sh "$(STEP)" "$(FROM)" "$(TO)"
clean:
	rm -rf build

include $(addprefix tests/make/,build-vars.mk unit.mk workspace.mk test.mk exercises.mk grade.mk \
          robustness.mk fsm.mk pictures.mk bench.mk compile_commands.mk deps.mk book.mk starter.mk)
-include $(shell find build -name '*.d' 2>/dev/null)
