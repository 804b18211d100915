# grade.mk -- a chapter's grader, stage by stage, included by the Makefile.
#
# make grade STEP=NN [SERVER=path|workspace|redis-server] [LIST=1]: run the
# stages of chapter NN (tests/NN-name/stages) in order and stop at the first
# that fails; LIST=1 prints them and their checks. SERVER defaults to your
# workspace when workspace/NN-name/ exists (see workspace.mk), else to the
# project's step NN. tests/tools/grade.sh does the work.
# STAGE=NN-K runs that stage alone; JUNIT_DIR=dir also writes bats's JUnit
# reports there (both for the class grader and GitHub Classroom, starter.mk).
# make grade-docs rewrites each chapter's "What the grader checks" from the
# stages; make test checks that they agree.

.PHONY: grade grade-docs
GRADE_UNIT_DIR ?= $(BUILD)/unit
grade: check-deps $(if $(LIST),,all $(UNIT_BINS) $(WS_BIN))
	@test -n "$(STEP_DIR)" || { echo "usage: make grade STEP=NN [SERVER=...] [LIST=1]" >&2; exit 2; }
	@# A unit test that does not build against the workspace fails its stage, not make.
	@$(if $(LIST),,$(if $(WS_UNITS),$(MAKE) -s --no-print-directory -k SERVER=workspace $(WS_UNITS) 2>&1 | tail -15 || true))
	@SERVER="$(or $(SERVER),$(CURDIR)/$(BUILD)/$(STEP_DIR)/server)" UNIT_DIR="$(GRADE_UNIT_DIR)" \
	  LIST="$(LIST)" STAGE="$(STAGE)" JUNIT_DIR="$(if $(JUNIT_DIR),$(abspath $(JUNIT_DIR)))" \
	  bash tests/tools/grade.sh "$(STEP_DIR)"

# Grading a workspace (workspace.mk sets WS_NAME and WS_BIN): the chapter's
# unit tests link with the workspace's files, from an archive as unit.mk does
# for a step; common/'s unit tests are the ones in build/unit.
ifdef WS_BIN
WS_UNIT_DIR    := $(BUILD)/workspace/$(WS_NAME)/unit
GRADE_UNIT_DIR := $(WS_UNIT_DIR)
WS_MODULES     := $(patsubst workspace/%.c,$(BUILD)/workspace/%.o,\
                    $(filter-out %/main.c,$(wildcard workspace/$(WS_NAME)/*.c)))
WS_UNITS := $(patsubst tests/%.c,$(WS_UNIT_DIR)/%,$(wildcard tests/$(WS_NAME)/unit_*.c)) \
            $(patsubst tests/unit/%.c,$(WS_UNIT_DIR)/%,$(wildcard tests/unit/test_*.c))
$(BUILD)/workspace/$(WS_NAME)/%.o: workspace/$(WS_NAME)/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -DSTEP_NAME='"$(WS_NAME)"' -Icommon -Iworkspace/$(WS_NAME) -c $< -o $@
$(BUILD)/workspace/$(WS_NAME)/modules.a: $(WS_MODULES)
	rm -f $@ && $(AR) rcs $@ $^
$(WS_UNIT_DIR)/$(WS_NAME)/%: tests/$(WS_NAME)/%.c $(BUILD)/workspace/$(WS_NAME)/modules.a $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(CHECK_FLAGS) -DSTEP_NAME='"$(WS_NAME)"' -Icommon -Iworkspace/$(WS_NAME) \
	  $(filter %.c %.a %.o,$^) -o $@ $(CHECK_LIBS) $(LDLIBS) $(LIBS_$(WS_NAME))
$(WS_UNIT_DIR)/test_%: $(BUILD)/unit/test_%
	@mkdir -p $(@D) && cp $< $@
endif

grade-docs:
	@python3 tests/tools/stages.py update
