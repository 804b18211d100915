# workspace.mk -- writing a chapter, or an exercise, yourself; included by the
# Makefile.
#
# make workspace STEP=NN [EX=K] creates workspace/NN-name/ (for exercise K:
# workspace/NN-name-exK/), which git ignores; tests/tools/workspace.sh says
# what each starts from: for chapters 01 and 02, skeletons of the files the
# chapter teaches, made from the real files. Then:
#   make grade STEP=NN                 grades workspace/NN-name/ if it exists
#   make exercise STEP=NN EX=K         grades workspace/NN-name-exK/ if it exists
#   make test STEP=NN SERVER=workspace the suites of steps 01..NN against it
#   make run STEP=NN SERVER=workspace  starts it (with EX=K: the exercise's)
#
# A workspace is built like a step, but apart, into build/workspace/NAME/:
# never -Werror, and quiet about the unused parameters, functions and
# constants that stubs leave behind. Chapter 01's workspace holds all of
# common/ and builds from its own copies only; every other workspace links
# common/, compiled with the same flags into build/workspace/NAME/common/.
# The chapter's unit tests (tests/unit/test_*.c for 01, tests/NN-name/unit_*.c
# for the others) are built against the workspace's files into build/workspace/NAME/unit/, with
# the same names as under build/unit/, and the grader runs those. One that
# does not build (it tests a file not written yet) is reported by the grader
# as not built, with the start of what the compiler said (kept beside it, in
# NAME.log), at its stage: a later stage's errors do not come first.

.PHONY: workspace
workspace:
	@bash tests/tools/workspace.sh "$(STEP)" "$(EX)"

WS_CHAPTER  := $(if $(STEP_DIR),workspace/$(STEP_DIR))
# (make grade grades a chapter, never an exercise, whatever EX says.)
WS_EXERCISE := $(if $(and $(STEP_DIR),$(EX),$(filter-out grade,$(MAKECMDGOALS))),workspace/$(STEP_DIR)-ex$(EX))
ws_exists    = $(if $(1),$(wildcard $(1)/.))
WS_ASKED    := $(SERVER)

# make grade and make exercise grade your workspace when you have one.
ifeq ($(SERVER),)
  ifneq ($(and $(filter grade,$(MAKECMDGOALS)),$(call ws_exists,$(WS_CHAPTER))),)
    SERVER := workspace
  endif
  ifneq ($(and $(filter exercise,$(MAKECMDGOALS)),$(call ws_exists,$(WS_EXERCISE))),)
    SERVER := workspace
  endif
endif

ifeq ($(SERVER),workspace)
# The exercise's workspace when EX=K is given and it exists, else the chapter's.
WS_DIR  := $(if $(call ws_exists,$(WS_EXERCISE)),$(WS_EXERCISE),$(WS_CHAPTER))
ifeq ($(filter workspace,$(MAKECMDGOALS)),)
  ifeq ($(call ws_exists,$(WS_DIR)),)
    $(error no workspace$(if $(WS_DIR), $(WS_DIR)/) for STEP=$(STEP): run make workspace STEP=NN first)
  endif
endif
WS_NAME := $(notdir $(WS_DIR))
WS_OUT  := $(BUILD)/workspace/$(WS_NAME)
WS_BIN  := $(WS_OUT)/server
# Chapter 01's workspace (not an exercise's) has common/ in it.
WS_SELF := $(if $(filter $(firstword $(sort $(STEPS) $(WS_ONLY_STEPS))),$(WS_NAME)),1)
WS_LABEL := $(STEP_DIR) (your $(if $(filter $(STEP_DIR),$(WS_NAME)),workspace,exercise $(EX)))

WS_CFLAGS := $(filter-out -Werror,$(CFLAGS)) \
             -Wno-unused-parameter -Wno-unused-function -Wno-unused-const-variable
# A workspace that holds its own copy of a common/ file (chapter 12's net.c,
# say) builds as such a step does (the Makefile's own_copies): from a copy of
# common/ in build/workspace/NAME/common/ with the workspace's copied
# headers in place of common's, linking common's other files only.
WS_OWN    := $(if $(WS_SELF),,$(sort $(notdir $(filter $(addprefix $(WS_DIR)/,$(notdir $(wildcard common/*.[ch]))),$(wildcard $(WS_DIR)/*.[ch])))))
WS_COMMON := $(if $(WS_OWN),$(WS_OUT)/common,common)
WS_COPY   := $(if $(WS_OWN),$(addprefix $(WS_OUT)/common/,$(filter-out $(filter %.c,$(WS_OWN)),$(notdir $(wildcard common/*.[ch])))))
WS_INC    := -I$(WS_DIR) $(if $(WS_SELF),,-I$(WS_COMMON))
WS_SRC    := $(filter-out $(WS_DIR)/el_%.c,$(wildcard $(WS_DIR)/*.c)) \
             $(if $(WS_SELF),$(WS_DIR)/$(BACKEND).c)
WS_OBJ    := $(patsubst $(WS_DIR)/%.c,$(WS_OUT)/obj/%.o,$(WS_SRC))
WS_COMMON_OBJ := $(if $(WS_SELF),,$(patsubst common/%.c,$(WS_OUT)/common/%.o,\
                   $(filter-out $(addprefix common/,$(WS_OWN)),$(COMMON_SRC))))

# The workspace's files are compiled with the name the server prints, "01-resp
# (your workspace)": it starts with the step's name, which the suites read
# from INFO's tutorial_step.
# A workspace's build says one short line per file, so that the compiler's
# warnings about your code stand out; V=1 shows the whole commands.
WS_Q := $(if $(filter 1,$(V)),,@)
$(WS_OUT)/obj/%.o: $(WS_DIR)/%.c
	@mkdir -p $(@D)
	$(if $(WS_Q),@echo "  cc   $<")
	$(WS_Q)$(CC) $(WS_CFLAGS) $(DEPFLAGS) -DSTEP_NAME='"$(WS_LABEL)"' $(WS_INC) -c $< -o $@
$(WS_OUT)/common/%.o: $(WS_COMMON)/%.c $(filter %.h,$(WS_COPY))
	@mkdir -p $(@D)
	$(if $(WS_Q),@echo "  cc   $<")
	$(WS_Q)$(CC) $(WS_CFLAGS) $(DEPFLAGS) -I$(WS_COMMON) -c $< -o $@
ifneq ($(WS_OWN),)
$(filter-out $(addprefix %/,$(WS_OWN)),$(WS_COPY)): $(WS_OUT)/common/%: common/%
	@mkdir -p $(@D)
	@cp $< $@
$(filter $(addprefix %/,$(WS_OWN)),$(WS_COPY)): $(WS_OUT)/common/%: $(WS_DIR)/%
	@mkdir -p $(@D)
	@cp $< $@
$(WS_OBJ): $(filter %.h,$(WS_COPY))
endif
$(WS_BIN): $(WS_OBJ) $(WS_COMMON_OBJ)
	$(if $(WS_Q),@echo "  link $@")
	$(WS_Q)$(CC) $(WS_CFLAGS) $^ -o $@ $(LDLIBS) $(LIBS_$(STEP_DIR))

# The unit tests, for a chapter's workspace: linked with every file of it but
# main.c, from an archive, as unit.mk links a step's.
ifeq ($(WS_NAME),$(STEP_DIR))
WS_UNIT_FROM := $(if $(WS_SELF),tests/unit,tests)
WS_UNIT_SRC  := $(if $(WS_SELF),$(wildcard tests/unit/test_*.c),\
                  $(wildcard tests/$(STEP_DIR)/unit_*.c))
WS_UNITS     := $(patsubst $(WS_UNIT_FROM)/%.c,$(WS_OUT)/unit/%,$(WS_UNIT_SRC))
$(WS_OUT)/modules.a: $(filter-out $(WS_OUT)/obj/main.o,$(WS_OBJ)) $(WS_COMMON_OBJ)
	$(WS_Q)rm -f $@ && $(AR) rcs $@ $^
$(WS_OUT)/unit/%: $(WS_UNIT_FROM)/%.c $(WS_OUT)/modules.a
	@mkdir -p $(@D)
	@rm -f $@
	$(if $(WS_Q),@echo "  unit $@")
	$(WS_Q){ $(CC) $(WS_CFLAGS) $(DEPFLAGS) $(CHECK_FLAGS) -DSTEP_NAME='"$(STEP_DIR)"' $(WS_INC) \
	  $< $(WS_OUT)/modules.a -o $@ $(CHECK_LIBS) $(LDLIBS) $(LIBS_$(STEP_DIR)) >$@.log 2>&1 && cat $@.log; } \
	  || echo "  $(@F) did not build: the grader shows why at its stage ($@.log)"
endif

GRADE_NEEDS    := $(WS_BIN) $(WS_UNITS)
GRADE_UNIT_DIR := $(WS_OUT)/unit
EXERCISE_NEEDS := $(WS_BIN)
test: $(WS_BIN) $(WS_UNITS)
ifeq ($(WS_ASKED),workspace) # else the Makefile's run rule, for a step, stands
run: $(WS_BIN)
	cd $(<D) && ./$(<F) $(ARGS)
endif
override SERVER := $(CURDIR)/$(WS_BIN)
endif
