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
# What a grade needs built, and where its unit tests are: the project's, unless
# workspace.mk set both for a workspace.
GRADE_NEEDS    ?= all $(UNIT_BINS)
GRADE_UNIT_DIR ?= $(BUILD)/unit
grade: check-grade-deps $(if $(LIST),,$(GRADE_NEEDS))
	@test -n "$(STEP_DIR)" || { echo "usage: make grade STEP=NN [SERVER=...] [LIST=1]" >&2; exit 2; }
	@SERVER="$(or $(SERVER),$(CURDIR)/$(BUILD)/$(STEP_DIR)/server)" UNIT_DIR="$(GRADE_UNIT_DIR)" \
	  LIST="$(LIST)" STAGE="$(STAGE)" JUNIT_DIR="$(if $(JUNIT_DIR),$(abspath $(JUNIT_DIR)))" \
	  bash tests/tools/grade.sh "$(STEP_DIR)"

grade-docs:
	@python3 tests/tools/stages.py update
