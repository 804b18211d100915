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
#   make diff STEP=NN     what chapter NN added to the step before it (or FROM=AA TO=BB)
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
LIBS_08-snapshot        := -lxxhash
LIBS_09-replication     := -lxxhash
LIBS_12-fast-path       := -lxxhash

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

# A step may hold its own copy of a common/ file (steps/12-fast-path/net.c
# and net.h beside common/net.c and net.h): in that step's build the copy
# replaces common's. A quoted #include looks beside the including file
# first, so common/reply.h would still find common/net.h; such a step
# therefore builds from build/NN-name/common/, a copy of common/ with the
# step's copied headers in place of common's, compiles common/'s other .c
# files from there, for itself alone, and its own files with -I that
# directory instead of -Icommon. A step that holds no copy links
# build/common/ as it is.
#   own_copies STEP         the names of the files STEP holds copies of (net.c net.h)
#   common_dir STEP         where STEP's build finds common/: common, or its copy
#   common_objects_of STEP  the common/ objects its server links
#   common_sources_of STEP  their sources (in common_dir STEP)
own_copies        = $(sort $(notdir $(filter $(addprefix steps/$(1)/,$(notdir $(wildcard common/*.[ch]))),$(wildcard steps/$(1)/*.[ch]))))
common_dir        = $(if $(call own_copies,$(1)),$(BUILD)/$(1)/common,common)
common_sources_of = $(patsubst common/%,$(call common_dir,$(1))/%,$(filter-out $(addprefix common/,$(call own_copies,$(1))),$(COMMON_SRC)))
common_objects_of = $(if $(call own_copies,$(1)),$(patsubst %.c,%.o,$(call common_sources_of,$(1))),$(COMMON_OBJ))
common_copy_of    = $(if $(call own_copies,$(1)),$(addprefix $(BUILD)/$(1)/common/,$(filter-out $(filter %.c,$(call own_copies,$(1))),$(notdir $(wildcard common/*.[ch])))))
server_objects    = $(call objects_of,$(1)) $(call common_objects_of,$(1))

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
	$(CC) $(CFLAGS) $(DEPFLAGS) -DSTEP_NAME='"$(*D)"' -I$(call common_dir,$(*D)) -Isteps/$(*D) -c $< -o $@

# A step that holds copies of common/ files (above): its copy of common/, the
# common/ objects compiled from it, and its own files wait for the copy.
define OWN_COPY_RULES
$(filter-out $(addprefix %/,$(call own_copies,$(1))),$(call common_copy_of,$(1))): $(BUILD)/$(1)/common/%: common/%
	@mkdir -p $$(@D)
	@cp $$< $$@
$(filter $(addprefix %/,$(call own_copies,$(1))),$(call common_copy_of,$(1))): $(BUILD)/$(1)/common/%: steps/$(1)/%
	@mkdir -p $$(@D)
	@cp $$< $$@
$(call common_objects_of,$(1)): %.o: %.c $(filter %.h,$(call common_copy_of,$(1)))
	$$(CC) $$(CFLAGS) $$(DEPFLAGS) -c $$< -o $$@
$(call objects_of,$(1)): $(filter %.h,$(call common_copy_of,$(1)))
endef
$(foreach s,$(STEPS),$(if $(call own_copies,$(s)),$(eval $(call OWN_COPY_RULES,$(s)))))

# A server: its step's files, compiled, and common/'s. A new step needs a line.
$(BUILD)/01-resp/server:            $(call server_objects,01-resp)
$(BUILD)/02-get-set/server:         $(call server_objects,02-get-set)
$(BUILD)/03-del/server:             $(call server_objects,03-del)
$(BUILD)/04-expiry-lazy/server:     $(call server_objects,04-expiry-lazy)
$(BUILD)/05-active-sampling/server: $(call server_objects,05-active-sampling)
$(BUILD)/06-timewheel/server:       $(call server_objects,06-timewheel)
$(BUILD)/07-set-options-fsm/server: $(call server_objects,07-set-options-fsm)
$(BUILD)/08-snapshot/server:        $(call server_objects,08-snapshot)
$(BUILD)/09-replication/server:     $(call server_objects,09-replication)
$(BUILD)/12-fast-path/server:       $(call server_objects,12-fast-path)
$(SERVERS):
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $(LIBS_$(notdir $(@D)))

# Steps 07 to 12's DIGEST hashes with xxHash, whose header is not part of a
# C compiler: say what to install rather than fail with a compiler error.
.PHONY: xxhash-header
$(BUILD)/07-set-options-fsm/keyspace.o $(BUILD)/08-snapshot/keyspace.o $(BUILD)/09-replication/keyspace.o $(BUILD)/12-fast-path/keyspace.o: | xxhash-header
xxhash-header:
	@printf '#include <xxhash.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || { \
	  echo "steps 07 to 12 need xxHash's header (xxhash.h): install libxxhash-dev on Debian/Ubuntu," \
	    "xxhash-devel on Fedora, xxhash with Homebrew (make deps does it on Debian/Ubuntu)" >&2; exit 1; }

# ---- Running one, comparing two ----------------------------------------------
# SERVER=workspace runs your workspace's build instead (tests/make/workspace.mk).
# It runs in its build directory: from chapter 08 on, a server keeps its
# snapshot (dump.rdb) in the directory it runs in.
ifneq ($(SERVER),workspace)
run: $(BUILD)/$(or $(STEP_DIR),$(NEWEST))/server
	cd $(<D) && ./server $(ARGS)
endif
diff:
	@bash tests/tools/stepdiff.sh "$(STEP)" "$(FROM)" "$(TO)"
clean:
	rm -rf build

include $(addprefix tests/make/,build-vars.mk unit.mk workspace.mk test.mk exercises.mk grade.mk \
          robustness.mk fsm.mk pictures.mk bench.mk compile_commands.mk deps.mk book.mk starter.mk)
-include $(shell find build -name '*.d' 2>/dev/null)
